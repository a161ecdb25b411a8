"""The fair-play page (the rules and the model, for everyone to read; a marked account's notice and
how to appeal) and the game page's report that it was hidden during one's turn."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import Profile
from core.http import int_field
from dicegame.errors import GameActionError
from fairplay import selectors, services


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
