"""Sign up, log in, log out and change password (Django auth), keeping a guest's games; the person's
preferences (the time zone of the times shown)."""

from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.forms import SignupForm
from accounts.models import Profile
from accounts.selectors import TIME_ZONE_COOKIE, offered_time_zones, valid_time_zone
from accounts.services import SettingError, SignupRefused, account_create, profile_set_time_zone
from accounts.throttle import client_address
from dicegame.actors import GUEST_SESSION_KEY
from dicegame.play.games import guest_games_claim


def _log_in_keeping_guest_games(request: HttpRequest, user) -> None:
    guest_key = request.session.get(GUEST_SESSION_KEY, "")
    # The model backend keeps the session's user (the throttling backend before it only refuses).
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    moved = guest_games_claim(user=user, guest_key=guest_key)
    request.session.pop(GUEST_SESSION_KEY, None)
    if moved:
        messages.success(request, _("Your games as a guest are now in your account."))


def _safe_next(request: HttpRequest) -> str:
    """Where to go after signing up (the `next` of the form or the address), if it is on this site."""
    target = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    next_url = _safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url or "dicegame:history")
    form = SignupForm(request.POST or None)
    error, status = "", 200
    if request.method == "POST" and form.is_valid():
        try:
            # Two sign-ups with one name at once both pass the form's check; the second gets its error.
            user = account_create(form=form, address=client_address(request))
        except SignupRefused as exc:
            error, status = exc.message, exc.status
        else:
            if user is not None:
                _log_in_keeping_guest_games(request, user)
                messages.success(request, _("Welcome to Penta, %(name)s!") % {"name": user.get_username()})
                return redirect(next_url or "dicegame:history")
    if form.errors:
        status = 400
    context = {"form": form, "next": next_url, "error": error}
    return render(request, "accounts/signup.html", context, status=status)


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form):
        _log_in_keeping_guest_games(self.request, form.get_user())
        return redirect(self.get_success_url())

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("dicegame:history")

    def form_valid(self, form):
        messages.success(self.request, _("Your password has been changed."))
        return super().form_valid(form)


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    """The time zone the person's times are shown in: one they choose, or their browser's."""
    error, status = "", 200
    if request.method == "POST":
        try:
            zone = profile_set_time_zone(user=request.user, name=request.POST.get("time_zone", ""))
        except SettingError as exc:
            error, status = exc.message, exc.status
        else:
            if zone:
                messages.success(request, _("Times are now shown in %(zone)s.") % {"zone": zone})
            else:
                messages.success(request, _("Times are now shown in this browser's time zone."))
            return redirect("accounts:preferences")
    chosen = Profile.objects.filter(user=request.user).values_list("time_zone", flat=True).first() or ""
    context = {
        "chosen": chosen,
        "browser_zone": valid_time_zone(request.COOKIES.get(TIME_ZONE_COOKIE)),
        "zones": offered_time_zones(),
        "current_zone": timezone.get_current_timezone_name(),
        "now": timezone.now(),
        "error": error,
    }
    return render(request, "accounts/preferences.html", context, status=status)
