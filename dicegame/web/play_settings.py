"""A person's settings for play, for guests and accounts alike: the time to choose a box after the last
roll (the auto-commit: 3, 6 or 10 seconds, or off), and the computer players' speed. An account keeps
them on its Profile, a guest in the session; dicegame.play.play_settings_set checks and applies them."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from dicegame import play
from dicegame.actors import PLAY_SETTINGS_SESSION_KEY, actor_from_request
from dicegame.errors import GameActionError
from dicegame.play.kernel import person_play_settings
from dicegame.rules.turn import AUTO_COMMIT_MAX_SECONDS


def _back(request: HttpRequest) -> str:
    """Where the form leads back to (a game page it was opened from), if it is on this site."""
    target = request.POST.get("next") or request.GET.get("next", "")
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    return target if target and safe and target.startswith("/") else ""


@require_http_methods(["GET", "POST"])
def play_settings(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request)
    error, status = "", 200
    if request.method == "POST":
        try:
            chosen = play.play_settings_set(
                actor=actor,
                auto_commit=request.POST.get("auto_commit", ""),
                computer_speed=request.POST.get("computer_speed", ""),
            )
        except GameActionError as exc:
            error, status = exc.message, exc.status
        else:
            if actor.user_id is None:
                request.session[PLAY_SETTINGS_SESSION_KEY] = {
                    "auto_commit": chosen.auto_commit,
                    "fast": chosen.fast_computer,
                }
            messages.success(request, _("Your settings are saved: they apply to your games at once."))
            return redirect(_back(request) or "dicegame:settings")
    current = person_play_settings(actor)
    auto = {None: "3", 6: "6", 10: "10", 0: "off"}.get(current.auto_commit, "3")
    context = {
        "auto_commit": request.POST.get("auto_commit", auto) if error else auto,
        "computer_speed": "fast" if current.fast_computer else "normal",
        "auto_commit_max": AUTO_COMMIT_MAX_SECONDS,
        "next": _back(request),
        "error": error,
    }
    return TemplateResponse(request, "dicegame/settings.html", context, status=status)
