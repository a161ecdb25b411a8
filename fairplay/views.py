"""The fair-play page (the rules and the model, for everyone to read; a marked account's notice and
how to appeal), the game page's report that it was hidden during one's turn, and the form that reports
a person to staff."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import Profile
from accounts.selectors import audiences, friend_ids, may_see_games_of
from accounts.throttle import client_address
from core.http import int_field
from dicegame.errors import GameActionError
from fairplay import reports, selectors, services
from fairplay.models import PersonReport


@require_GET
def fair_play(request: HttpRequest) -> HttpResponse:
    marked = (
        request.user.is_authenticated
        and Profile.objects.filter(user=request.user, standing=Profile.Standing.MARKED).exists()
    )
    return TemplateResponse(
        request, "fairplay/fair_play.html", {"numbers": selectors.rules(), "marked": marked}
    )


@require_POST
def hidden(request: HttpRequest, game_id: int) -> HttpResponse:
    """`navigator.sendBeacon` from the game page (the CSRF token in the form body) when the page is
    hidden during the viewer's own turn. Refusals answer JSON with the message (no page shows it: the
    page is hidden by then) and count nothing."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": _("Log in first.")}, status=403)
    game = selectors.seated_game(game_id, request.user)
    if game is None:  # someone else's game answers as a missing one: no oracle of which games exist
        return JsonResponse({"error": _("There is no such game.")}, status=404)
    try:
        turn = int_field(request, "turn")
        services.report_hidden(game=game, user=request.user, turn_number=turn)
    except GameActionError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    except services.FairPlayError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return HttpResponse(status=204)


@login_required
@require_http_methods(["GET", "POST"])
def report_person(request: HttpRequest, username: str) -> HttpResponse:
    """Report a person to staff (from their player page, a game of the two, or a notice); the game, when
    the link names one, goes with it if the reporter may see it and the person is in it."""
    data = request.POST if request.method == "POST" else request.GET
    context = {
        "username": username,
        "reasons": PersonReport.Reason.choices,
        "reason": data.get("reason", ""),
        "message": data.get("message", ""),
        "game_id": data.get("game", ""),
        "error": "",
    }
    try:
        reported = reports.reported_person(username)
    except reports.PersonReportRefused as exc:
        return TemplateResponse(
            request, "fairplay/report_person.html", {**context, "error": exc.message}, status=404
        )
    game = reports.report_game(
        reporter_id=request.user.pk, reported_id=reported.pk, game_id=context["game_id"]
    )
    context["game"] = game
    if request.method == "GET":
        return TemplateResponse(request, "fairplay/report_person.html", context)
    try:
        reports.person_report_submit(
            reporter=request.user,
            username=username,
            reason=context["reason"],
            message=context["message"],
            game_id=context["game_id"],
            address=client_address(request),
        )
    except reports.PersonReportRefused as exc:
        context["error"] = exc.message
        return TemplateResponse(request, "fairplay/report_person.html", context, status=exc.status)
    messages.success(
        request, _("Thank you: your report about %(name)s is with the site's staff.") % {"name": username}
    )
    return (
        redirect("review:player", username)
        if _player_page_open(request, reported)
        else redirect("dicegame:history")
    )


def _player_page_open(request: HttpRequest, reported) -> bool:
    audience = audiences([reported.pk])[reported.pk]
    return may_see_games_of(
        viewer_id=request.user.pk,
        target_id=reported.pk,
        audience=audience,
        friend_ids=friend_ids(user_id=request.user.pk),
    )
