"""Two-factor log-in, optional: an authenticator app's codes (TOTP) and ten recovery codes, each usable
once, kept by django-otp (its devices, and its throttling: each wrong code doubles the wait before the
next is tried).

Log-in asks for the code after the right password (accounts.views.LoginView leaves the account waiting
in the session for LOGIN_STEP_SECONDS); a wrong code counts as a failed log-in for django-axes, so the
same limits per account and per address hold for the code as for the password.
"""

from __future__ import annotations

import segno
from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_otp import match_token
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import logins
from accounts.throttle import login_locked_out
from accounts.views import SECOND_STEP_KEY, log_in_keeping_guest_games

LOGIN_STEP_SECONDS = 300
RECOVERY_CODES = 10
PAGE = "accounts/two_factor.html"


# -- the log-in's second step -------------------------------------------------------------------------


def _waiting_user(request: HttpRequest):
    step = request.session.get(SECOND_STEP_KEY)
    if not isinstance(step, dict):
        return None, ""
    if timezone.now().timestamp() - step.get("at", 0) > LOGIN_STEP_SECONDS:
        request.session.pop(SECOND_STEP_KEY, None)
        return None, ""
    user = get_user_model().objects.filter(pk=step.get("user"), is_active=True).first()
    return user, step.get("next", "")


@require_http_methods(["GET", "POST"])
def login_code(request: HttpRequest) -> HttpResponse:
    user, next_url = _waiting_user(request)
    if user is None:
        messages.info(request, _("Log in with your password first."))
        return redirect("accounts:login")
    if request.method == "GET":
        return TemplateResponse(request, "accounts/login_code.html", {})
    credentials = {settings.AXES_USERNAME_FORM_FIELD: user.get_username()}
    if not AxesProxyHandler.is_allowed(request, credentials):
        return login_locked_out(request, credentials=credentials)
    code = "".join((request.POST.get("code") or "").split()).lower()[:16]
    device = match_token(user, code) if code else None
    if device is None:
        user_login_failed.send(sender=__name__, credentials=credentials, request=request)
        if getattr(request, "axes_locked_out", False):
            return login_locked_out(request, credentials=credentials)
        error = _("That code is not right, or it was used already. Try the next one from your app.")
        return TemplateResponse(request, "accounts/login_code.html", {"error": error}, status=400)
    request.session.pop(SECOND_STEP_KEY, None)
    log_in_keeping_guest_games(request, user)
    if isinstance(device, StaticDevice):
        left = StaticToken.objects.filter(device=device).count()
        messages.info(request, _("Recovery code used: %(n)d left.") % {"n": left})
    allowed = url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()})
    return redirect(next_url if next_url and allowed else settings.LOGIN_REDIRECT_URL)


# -- setting it up ------------------------------------------------------------------------------------------


def _page(request: HttpRequest, *, status: int = 200, **context) -> HttpResponse:
    user = request.user
    confirmed = logins.has_two_factor(user)
    pending = None if confirmed else TOTPDevice.objects.filter(user=user, confirmed=False).first()
    codes_left = StaticToken.objects.filter(device__user=user, device__confirmed=True).count()
    base = {"enabled": confirmed, "pending": pending, "codes_left": codes_left}
    if pending is not None:
        base["qr"] = segno.make(pending.config_url, error="m").svg_data_uri(scale=4, border=2)
        base["secret"] = _spaced(pending.config_url.split("secret=")[1].split("&")[0])
    return TemplateResponse(request, PAGE, {**base, **context}, status=status)


def _spaced(secret: str) -> str:
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


@require_GET
@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@require_POST
@login_required
def start(request: HttpRequest) -> HttpResponse:
    """A new secret for the person's app (not yet used to log in: it is confirmed with a code)."""
    with transaction.atomic():
        if logins.has_two_factor(request.user):
            return _page(request, error=_("Two-factor log-in is on already."), status=409)
        TOTPDevice.objects.filter(user=request.user, confirmed=False).delete()
        TOTPDevice.objects.create(user=request.user, name="app", confirmed=False)
    return _page(request)


def _new_recovery_codes(user) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="recovery", confirmed=True)
    codes = [StaticToken.random_token() for _n in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=c) for c in codes])
    return codes


@require_POST
@login_required
def confirm(request: HttpRequest) -> HttpResponse:
    """The first code from the app turns two-factor log-in on; the recovery codes are shown once."""
    code = "".join((request.POST.get("code") or "").split())[:10]
    with transaction.atomic():
        device = TOTPDevice.objects.select_for_update().filter(user=request.user, confirmed=False).first()
        if device is None:
            return _page(request, error=_("Start the set-up first."), status=409)
        if not code.isdigit() or not device.verify_token(code):
            return _page(
                request, error=_("That code is not right: type the one your app shows now."), status=400
            )
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        codes = _new_recovery_codes(request.user)
    return _page(request, codes=codes, saved=_("Two-factor log-in is on."))


def _password_checked(request: HttpRequest) -> bool:
    return request.user.check_password(request.POST.get("password") or "")


@require_POST
@login_required
def recovery_codes(request: HttpRequest) -> HttpResponse:
    """Ten new recovery codes (the old ones stop working); the password is asked again."""
    if not logins.has_two_factor(request.user):
        return _page(request, error=_("Two-factor log-in is off."), status=409)
    if not _password_checked(request):
        return _page(request, error=_("That is not your password."), status=400)
    with transaction.atomic():
        codes = _new_recovery_codes(request.user)
    return _page(request, codes=codes, saved=_("New recovery codes: the old ones no longer work."))


@require_POST
@login_required
def disable(request: HttpRequest) -> HttpResponse:
    if not _password_checked(request):
        return _page(request, error=_("That is not your password."), status=400)
    with transaction.atomic():
        TOTPDevice.objects.filter(user=request.user).delete()
        StaticDevice.objects.filter(user=request.user).delete()
    return _page(request, saved=_("Two-factor log-in is off."))
