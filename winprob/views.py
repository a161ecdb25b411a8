"""The winning chances bar: a player switches it on or off for themselves, and the region fetches its
figures when the page had none at hand (a page load never waits for them).

No request works chances out: they are read from the shared cache. When a position's are missing, a
guest gets nothing (204: the figures follow by push once worked out for the game's screens); a
logged-in viewer's request also asks for them (`live.request_bar`: once per position, in the niced
child, in the fair queue; 202). A logged-in person's requests are counted, PENTA_WIN_BAR_ASKS_PER_MINUTE
a minute (429 beyond)."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.http import game_url, message_response
from dicegame.actors import actor_from_request
from dicegame.models import Game, Player, Turn
from dicegame.play import selectors
from dicegame.screen import win_hints

from . import chances as wp
from . import live
from .models import WinBarChoice

GAME_TEMPLATE = "dicegame/game.html"


def _game(request: HttpRequest, game_id: int) -> tuple[Game, list[Player], Player | None, str]:
    actor = actor_from_request(request)
    token = request.GET.get("t", "")
    game = selectors.game_for_viewer(game_id=game_id, actor=actor, token=token)
    players = list(game.players.all())
    mine = next((p for p in players if actor.owns(p)), None)
    return game, players, mine, token


def _turn(game: Game) -> Turn | None:
    return Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()


def _region(request: HttpRequest, game: Game, players: list[Player], mine: Player | None, token: str):
    """The region as it stands: with the figures if they are worked out; else "working out" (they follow
    by push)."""
    bar = wp.page_bar(game, players, _turn(game), mine)
    context = {"game": game, "win_bar": bar, "oob": True, "token": token}
    return TemplateResponse(request, f"{GAME_TEMPLATE}#win-bar", context)


def _ask_allowed(user_id: int) -> bool:
    """Count one ask of this person's against the minute's limit, in one atomic step (incr)."""
    key = f"winprob:asks:{user_id}"
    cache.add(key, 0, timeout=60)
    try:
        asked = cache.incr(key)
    except ValueError:  # the minute ended between the two calls
        cache.add(key, 1, timeout=60)
        asked = 1
    return asked <= settings.PENTA_WIN_BAR_ASKS_PER_MINUTE


@require_GET
def bar(request: HttpRequest, game_id: int) -> HttpResponse:
    """The `win-bar` region with its figures, for a viewer who may see them."""
    try:
        game, players, mine, token = _game(request, game_id)
    except Http404 as exc:
        return message_response(request, str(exc), status=404)
    if not wp.has_bar(game, players):
        return message_response(request, _("This game has no winning chances to show."), status=409)
    if mine is not None:
        if game.rated:
            return message_response(
                request, _("Players never see the winning chances in a rated game."), status=403
            )
        if not WinBarChoice.objects.filter(player=mine).exists():
            return message_response(request, _("Switch the winning chances on first."), status=403)
    elif game.rated:
        return message_response(
            request,
            _("The winning chances of a rated game are shown once it is over, in its review."),
            status=403,
        )
    if request.user.is_authenticated and not _ask_allowed(request.user.pk):
        return message_response(
            request, _("Too many requests for the winning chances: wait a minute."), status=429
        )
    turn = _turn(game)
    if wp.cached_chances(players, turn) is None:
        if not request.user.is_authenticated:
            return HttpResponse(status=204)  # a guest makes nothing be worked out
        live.request_bar(game, players, turn, request.LANGUAGE_CODE)
        if wp.cached_chances(players, turn) is None:
            return HttpResponse(status=202)  # on its way: the figures follow by push
    return _region(request, game, players, mine, token)


@require_GET
def hint(request: HttpRequest, game_id: int) -> HttpResponse:
    """The hint "best to win" of the position as it stands, for the player to move: read from the shared
    cache (worked out after the change that made the position, `winprob.hints`); nothing is worked out
    here. An empty region when there is none (the page then stops asking)."""
    try:
        game, players, _mine, _token = _game(request, game_id)
    except Http404 as exc:
        return message_response(request, str(exc), status=404)
    position = win_hints.hint_position(game, players, _turn(game))
    found = None
    if position is not None and actor_from_request(request).owns(position.seat):
        found = win_hints.win_hint(position)
    url = request.path if found is not None and found.pending and found.figures is None else ""
    return HttpResponse(win_hints.region(found, poll=url))


@require_POST
def toggle(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player switches the bar on (on=1) or off (on=0) for themselves, in a game that is not rated."""
    try:
        game, players, mine, token = _game(request, game_id)
    except Http404 as exc:
        return message_response(request, str(exc), status=404)
    raw = request.POST.get("on", "")
    if raw not in ("0", "1"):
        return message_response(
            request, _("The request was malformed (on must be 0 or 1): reload the page."), status=400
        )
    if mine is None:
        return message_response(
            request, _("Only the players of this game can switch the winning chances."), status=403
        )
    if game.rated:
        return message_response(
            request, _("Players never see the winning chances in a rated game."), status=403
        )
    if not wp.has_bar(game, players):
        return message_response(request, _("This game has no winning chances to show."), status=409)
    wp.switch_bar(mine, raw == "1")
    if raw == "1":
        # The player's own bar of the position as it stands: worked out once (a repeated toggle
        # finds it in the cache or queued), off this request.
        live.request_bar(game, players, _turn(game), request.LANGUAGE_CODE)
    if mine.channel_name:
        # The seat's open screen forwards the pushed bar from now on (or no longer).
        async_to_sync(get_channel_layer().send)(mine.channel_name, {"type": "win.choice", "on": raw == "1"})
    if not request.htmx:
        return redirect(game_url(game.pk, token))
    return _region(request, game, players, mine, token)
