"""A person's notification settings (their devices, their address for the digest), a device's
subscription sent by the page's script, and the links in the mails (confirm the address, unsubscribe),
which work without logging in."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.throttle import client_address
from core.http import message_response
from dicegame.errors import GameActionError
from notifications import selectors, services
from notifications.devices import device_name
from notifications.vapid import application_server_key

PREFERENCES_TEMPLATE = "notifications/preferences.html"
MAX_BODY_BYTES = 4096


def _preferences(
    request: HttpRequest, *, error: str = "", status: int = 200, saved: str = "", typed: dict | None = None
) -> HttpResponse:
    """The settings page; `typed`: a refused form's fields, shown again as they were typed."""
    mail = selectors.mail_of(user_id=request.user.pk)
    context = {
        "devices": selectors.devices_of(user_id=request.user.pk),
        "mail": mail,
        "form": typed or {"address": mail.address if mail else "", "digest": bool(mail and mail.digest)},
        "vapid_key": application_server_key(),
        "error": error,
        "saved": saved,
    }
    return TemplateResponse(request, PREFERENCES_TEMPLATE, context, status=status)


@require_GET
@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    return _preferences(request)


@require_POST
@login_required
def device_add(request: HttpRequest) -> HttpResponse:
    """The page's script sends the device's subscription (JSON: endpoint, keys) after the person
    allowed notifications in their browser; answers JSON (a refusal: its message, 4xx)."""
    if len(request.body) > MAX_BODY_BYTES:
        return JsonResponse({"error": _("That request is too long.")}, status=413)
    try:
        data = json.loads(request.body or b"{}")
        keys = data.get("keys") or {}
        endpoint, p256dh, auth = str(data["endpoint"]), str(keys["p256dh"]), str(keys["auth"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return JsonResponse({"error": _("The request was malformed: reload the page.")}, status=400)
    label = device_name(request.headers.get("User-Agent", ""))
    try:
        device = services.push_subscribe(
            user=request.user,
            endpoint=endpoint,
            p256dh=p256dh,
            auth=auth,
            label=label,
            language=get_language(),
        )
    except GameActionError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return JsonResponse({"id": device.pk}, status=201)


@require_POST
@login_required
def device_remove(request: HttpRequest, device_id: int) -> HttpResponse:
    try:
        services.push_unsubscribe(user=request.user, device_id=device_id)
    except GameActionError as exc:
        return _preferences(request, error=exc.message, status=exc.status)
    if not request.htmx:
        return redirect("notifications:preferences")
    return _preferences(request, saved=_("The device gets no more notifications."))


@require_POST
@login_required
def mail_set(request: HttpRequest) -> HttpResponse:
    address = request.POST.get("address", "").strip()
    digest = request.POST.get("digest") == "1"
    typed = {"address": address, "digest": digest}
    try:
        mail = services.mail_address_set(
            user=request.user,
            address=address,
            digest=digest,
            language=get_language(),
            client=client_address(request),
        )
    except GameActionError as exc:
        return _preferences(request, error=exc.message, status=exc.status, typed=typed)
    saved = (
        _("Saved. A confirmation link is on its way to %(address)s.") % {"address": mail.address}
        if mail.address and mail.confirmed_at is None
        else _("Saved.")
    )
    return _preferences(request, saved=saved)


@require_http_methods(["GET", "POST"])
def mail_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link in the confirmation mail: a page with one button (a mail program that opens links ahead
    of the reader confirms nothing)."""
    if request.method == "GET":
        return TemplateResponse(request, "notifications/confirm.html", {"token": token})
    try:
        mail = services.mail_confirm(token=token)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return TemplateResponse(request, "notifications/confirm.html", {"confirmed": mail.address})


@csrf_exempt  # RFC 8058 one-click: the mail program POSTs without the page; the signed token is the proof
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "GET":
        return TemplateResponse(request, "notifications/unsubscribe.html", {"token": token})
    try:
        services.mail_unsubscribe(token=token)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return TemplateResponse(request, "notifications/unsubscribe.html", {"done": True})
