"""The installable app: the web app manifest (name, icons from the logo, standalone), the service worker
(served from the root so that its scope is every page; it keeps only the offline page, never a game's
state) and the page it shows when there is no network."""

from __future__ import annotations

import functools
import json

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

THEME_COLOUR = "#14664f"  # the logo's green
BACKGROUND_COLOUR = "#f7f3ea"


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    data = {
        "name": "Penta",
        "short_name": "Penta",
        "description": _(
            "Five dice, thirteen boxes, three rolls a turn. Fill the sheet for the highest total."
        ),
        "lang": request.LANGUAGE_CODE,
        "start_url": reverse("dicegame:home"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": static("img/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("img/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


@functools.cache
def _worker_source() -> str:
    with open(finders.find("js/sw.js"), encoding="utf-8") as source:
        return source.read()


@require_GET
@cache_control(no_cache=True)  # a new version of the worker is picked up on the next visit
def service_worker(request: HttpRequest) -> HttpResponse:
    # The offline page's address, and the version that names the worker's cache.
    source = _worker_source().replace("__OFFLINE_URL__", json.dumps(reverse("dicegame:offline")))
    response = HttpResponse(source, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "dicegame/offline.html")
