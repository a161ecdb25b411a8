"""Sign up (with an e-mail address if the person wants one), log in (asking for the second factor of
an account that has one: accounts.two_factor), log out and change password (Django auth), keeping a
guest's games; the person's preferences (the time zone of the times shown, privacy, blocks)."""

from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts import blocks, logins
from accounts.forms import SignupForm
from accounts.models import Profile
from accounts.selectors import (
    TIME_ZONE_COOKIE,
    blocks_by,
    deletion_pending,
    offered_time_zones,
    privacy_of,
    valid_time_zone,
)
from accounts.services import SettingError, SignupRefused, account_create, profile_set_time_zone
from accounts.throttle import client_address
from dicegame.actors import GUEST_SESSION_KEY
from dicegame.errors import GameActionError
from dicegame.play.games import guest_games_claim
from notifications import services as services_mail

# The account whose password was right, waiting for its second factor (accounts.two_factor.login_code).
SECOND_STEP_KEY = "penta_second_step"


def log_in_keeping_guest_games(request: HttpRequest, user) -> None:
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
                log_in_keeping_guest_games(request, user)
                messages.success(request, _("Welcome to Penta, %(name)s!") % {"name": user.get_username()})
                _offer_address(request, user, form.cleaned_data.get("email", ""))
                return redirect(next_url or "dicegame:history")
    if form.errors:
        status = 400
    context = {"form": form, "next": next_url, "error": error}
    return render(request, "accounts/signup.html", context, status=status)


def _offer_address(request: HttpRequest, user, address: str) -> None:
    """The address typed at sign-up gets its confirmation link (the form checked it is an address); a
    refusal of the mail caps is said, and the address can be given again on the notifications page."""
    if not address:
        return
    try:
        services_mail.mail_address_set(
            user=user, address=address, digest=False, language=get_language(), client=client_address(request)
        )
    except GameActionError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(
            request,
            _(
                "A confirmation link is on its way to %(address)s: once confirmed, it can reset a forgotten "
                "password."
            )
            % {"address": address},
        )


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form):
        user = form.get_user()
        if logins.has_two_factor(user):
            # The password was right: the code comes next, before the person is logged in.
            self.request.session[SECOND_STEP_KEY] = {
                "user": user.pk,
                "at": int(timezone.now().timestamp()),
                "next": self.get_success_url(),
            }
            return redirect("accounts:login_code")
        log_in_keeping_guest_games(self.request, user)
        return redirect(self.get_success_url())

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("dicegame:history")

    def form_valid(self, form):
        messages.success(
            self.request, _("Your password has been changed: you are logged out everywhere else.")
        )
        response = super().form_valid(form)
        # Django kept this session (a new key, the new hash); every other one ends now.
        logins.end_others(user_id=self.request.user.pk, keep=self.request.session.session_key)
        logins.record(self.request, self.request.user)
        return response


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
        **preferences_context(request),
        "chosen": chosen,
        "browser_zone": valid_time_zone(request.COOKIES.get(TIME_ZONE_COOKIE)),
        "zones": offered_time_zones(),
        "current_zone": timezone.get_current_timezone_name(),
        "now": timezone.now(),
        "error": error,
    }
    return render(request, "accounts/preferences.html", context, status=status)


def preferences_context(request: HttpRequest) -> dict:
    """What the preferences page shows besides the time zone: privacy, blocks, the account's pages."""
    return {
        "privacy": privacy_of(user_id=request.user.pk),
        "challenge_choices": Profile.Challenges.choices,
        "audience_choices": Profile.Audience.choices,
        "blocks": list(blocks_by(request.user.pk)),
        "two_factor": logins.has_two_factor(request.user),
        "deletion": deletion_pending(user_id=request.user.pk),
        "privacy_error": "",
        "block_error": "",
    }


@login_required
@require_http_methods(["POST"])
def privacy_set(request: HttpRequest) -> HttpResponse:
    """Who may challenge the person, who may see their games, whether they are found by name."""
    try:
        blocks.privacy_set(
            user=request.user,
            challenges_from=request.POST.get("challenges_from", ""),
            games_visible_to=request.POST.get("games_visible_to", ""),
            findable=request.POST.get("findable") == "1",
        )
    except blocks.BlockError as exc:
        return _preferences_refused(request, exc, "privacy_error")
    messages.success(request, _("Your privacy choices are saved."))
    return redirect("accounts:preferences")


def _preferences_refused(request: HttpRequest, exc, field: str) -> HttpResponse:
    chosen = Profile.objects.filter(user=request.user).values_list("time_zone", flat=True).first() or ""
    context = {
        **preferences_context(request),
        field: exc.message,
        "chosen": chosen,
        "browser_zone": valid_time_zone(request.COOKIES.get(TIME_ZONE_COOKIE)),
        "zones": offered_time_zones(),
        "current_zone": timezone.get_current_timezone_name(),
        "now": timezone.now(),
        "error": "",
    }
    return render(request, "accounts/preferences.html", context, status=exc.status)


@login_required
@require_http_methods(["POST"])
def block(request: HttpRequest) -> HttpResponse:
    """Block a person (from their player page, a game, or a notice on the friends page): back where it
    was asked, or to the preferences page with the list of blocks."""
    try:
        done = blocks.block_add(user=request.user, username=request.POST.get("username", ""))
    except blocks.BlockError as exc:
        return _preferences_refused(request, exc, "block_error")
    messages.success(
        request,
        _(
            "You blocked %(name)s. They are not told; they no longer reach you, and you no longer see each "
            "other."
        )
        % {"name": done.blocked.get_username()},
    )
    return redirect(_safe_next(request) or "accounts:preferences")


@login_required
@require_http_methods(["POST"])
def unblock(request: HttpRequest, block_id: int) -> HttpResponse:
    try:
        person = blocks.block_remove(user=request.user, block_id=block_id)
    except blocks.BlockError as exc:
        return _preferences_refused(request, exc, "block_error")
    messages.success(request, _("You unblocked %(name)s.") % {"name": person.get_username()})
    return redirect("accounts:preferences")
