"""Middleware that answers before the rest of the stack: the health check, the metrics, and requests
carrying NUL; the one that shows every time in the person's own time zone; and the one that keeps the
list of where a person is logged in."""

from __future__ import annotations

import json
from collections.abc import Callable
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django_htmx.middleware import HtmxDetails

from accounts import logins
from accounts.selectors import DEFAULT_TIME_ZONE, TIME_ZONE_COOKIE, time_zone_of, valid_time_zone
from core import metrics
from core.http import message_response

HEALTHZ_PATH = "/healthz/"


class HealthzMiddleware:
    """`GET /healthz/` answers 200 "ok" at once, first in MIDDLEWARE: before the host check (a proxy's or
    orchestrator's health check may address the process by IP) and before the redirect to HTTPS (it
    checks over plain HTTP inside the private network). It says the process answers, nothing more."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == HEALTHZ_PATH and request.method in ("GET", "HEAD"):
            return HttpResponse("ok", content_type="text/plain")
        return self.get_response(request)


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _holds_nul(value) -> bool:
    """A NUL in any string of a parsed JSON document, its keys too (without recursion: any depth)."""
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _body_has_nul(request: HttpRequest) -> bool:
    """A body that is not a form (JSON, the push subscription's): a NUL byte, or a JSON string that
    holds one (written \\u0000, its only other spelling). A body that is not JSON is the view's to judge."""
    if request.content_type in FORM_TYPES:
        return False
    body = request.body
    if b"\x00" in body:
        return True
    if b"\\u0000" not in body:
        return False
    try:
        return _holds_nul(json.loads(body))
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return False


def _has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path_info or "\x00" in request.path:
        return True
    if _body_has_nul(request):
        return True
    # The query string and the posted form, names and values, as the views will read them (decoded).
    for data in (request.GET, request.POST):
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return True
    return any("\x00" in key or "\x00" in value for key, value in request.COOKIES.items())


class RejectNulMiddleware:
    """Refuse a request with a NUL character (\\0) in its path, query string, posted form, JSON body or
    cookies: PostgreSQL cannot store or compare one (psycopg refuses it: a 500), and no screen asks for
    it. A 400 with the message on the page, in the message area for htmx, or as JSON's "error" for a
    JSON request (the page's script shows it); nothing is read or written.

    After LocaleMiddleware (the message is in the visitor's language) and before anything that reads
    the database (the session, the user)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _has_nul(request):
            if not hasattr(request, "htmx"):
                request.htmx = HtmxDetails(request)
            message = _(
                "The request contained a NUL character, which is never allowed: check what you typed."
            )
            if request.content_type == "application/json":
                return JsonResponse({"error": message}, status=400)
            return message_response(request, message, status=400).render()
        return self.get_response(request)


METRICS_PATH = "/metrics"


class MetricsMiddleware:
    """`GET /metrics` (Prometheus's text format, `core.metrics`) for a scraper on the host or the
    private network: only a direct connection from an address of PENTA_METRICS_ALLOWED (loopback by
    default) that did not come through the proxy (the proxy always sets X-Forwarded-For). Anyone else
    gets the site's own 404. Early in MIDDLEWARE, like the health check: a scraper addresses the process
    by IP, over plain HTTP."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info in (METRICS_PATH, METRICS_PATH + "/") and self._allowed(request):
            body, content_type = metrics.exposition()
            return HttpResponse(body, content_type=content_type)
        return self.get_response(request)

    @staticmethod
    def _allowed(request: HttpRequest) -> bool:
        if request.method not in ("GET", "HEAD"):
            return False
        if any(h in request.META for h in ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")):
            return False
        return request.META.get("REMOTE_ADDR", "") in settings.PENTA_METRICS_ALLOWED


def request_time_zone(request: HttpRequest) -> str:
    """The zone to show this request's times in: the person's setting (a profile's), else the zone
    their browser reported, else DEFAULT_TIME_ZONE. A cookie that names no zone is ignored."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        chosen = valid_time_zone(time_zone_of(user=user))
        if chosen:
            return chosen
    return valid_time_zone(request.COOKIES.get(TIME_ZONE_COOKIE)) or DEFAULT_TIME_ZONE


class TimeZoneMiddleware:
    """Activates the person's time zone for the request (`request_time_zone`), so that templates show
    times in it ("20:14" for a game finished at 19:14 UTC, seen from Amsterdam in winter). After the
    authentication middleware, which it reads."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        timezone.activate(ZoneInfo(request_time_zone(request)))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class SessionSeenMiddleware:
    """Keeps the list of where a person is logged in (accounts.logins): their session's row is written
    when it is first seen and then at most every few minutes, never on each request. After the
    authentication middleware, which it reads."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        logins.seen(request)
        return self.get_response(request)
