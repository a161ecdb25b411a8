"""After a change to a game commits, every open screen of it gets the change, rendered once.

Play announces the change (`events.GameChanged`, inside its transaction); once the transaction commits,
the board is worked out once from the rows play holds (`dicegame.screen.state.board_state`), rendered once per
kind of viewer and language (a seat that may act, a seat that may not, a seat the computer keeps,
the spectators), and sent: to each seat's own channel, and to the spectators' group of each language
in use. A socket forwards what it gets without touching the database. Each push carries the game's
version; a screen that missed one is redrawn whole from the database by its socket.

Nothing private crosses seats: a seat's push is rendered for that seat and sent to its channel only;
spectators get the spectator's board. A room before its start (the lobby differs per viewer: the
host's controls, the friends one may invite) is rare traffic: there each socket renders its own.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import transaction
from django.utils import translation

from core import courier
from core.courier import Message, game_group
from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.screen.regions import game_status, live_update
from dicegame.screen.state import CHANGE_REGIONS, board_state
from dicegame.screen.view import board_for, view_key

logger = logging.getLogger(__name__)

GAME_TEMPLATE = "dicegame/game.html"
_UNSET = object()


def spectators_group(game_id: int, language: str) -> str:
    return f"game_{game_id}_watch_{language}"


def on_game_changed(event: events.GameChanged) -> None:
    # A solo game has one screen, which the answer to its own request updates; every other game is
    # watched live (other players, spectators, the computer's moves).
    if event.game.kind != Game.Kind.SOLO:
        after_commit(event.game, event.change)


def after_commit(game: Game, change: str | None = None) -> None:
    """Push the game's state to its screens once the current transaction commits (at most one push
    per transaction: two changes in one make one push of the final state, of every region if they
    differ). Called by the services, inside their transaction."""
    pending = getattr(game, "_push_change", _UNSET)
    if pending is _UNSET:
        game._push_change = change
        transaction.on_commit(lambda: _push_committed(game))
    elif pending != change:
        game._push_change = None


def _push_committed(game: Game) -> None:
    change = game.__dict__.pop("_push_change", None)
    try:
        messages = push_messages(game, change)
        if messages:
            # Rendered and handed over: the end of the push's "applied" stage (core.metrics).
            handed_at = time.time()
            for _how, _where, event in messages:
                event["handed_at"] = handed_at
            courier.dispatch(messages)
    except Exception:  # the change is saved; a screen that missed it is redrawn when it reconnects
        logger.exception("could not broadcast version %s of game %s", game.version, game.pk)
    try:
        # What follows the board, off the action's path (the winning chances bar: winprob.live).
        events.publish(events.BoardPushed(game, change))
    except Exception:
        logger.exception("could not follow up the push of game %s", game.pk)


def push_messages(game: Game, change: str | None) -> list[Message]:
    """(how, where, event) for every screen of the game: "send" to a channel, "group" to a group."""
    if game.is_open:
        return [("group", game_group(game.pk), {"type": "game.refresh", "version": game.version})]
    if not game.is_active:
        # Finished, expired or cancelled: the page has another shape and reloads itself on the new
        # status; the status marker is all it needs.
        html = game_status(game, oob=True)
        return [("group", game_group(game.pk), _event(game, html, partial=False))]
    players = game.seats
    if players is None:
        players = list(Player.objects.filter(game=game).order_by("seat"))
    seats = [p for p in players if p.channel_name]
    languages = game.spectator_languages.split()
    if not seats and not languages:
        return []
    turn = game.turn_in_play
    if turn is None or turn.completed_at is not None:
        turn = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()
    state = board_state(game=game, players=players, turn=turn)
    regions = CHANGE_REGIONS.get(change, frozenset())
    renders: dict[tuple, str] = {}

    def render(seat: Player | None, language: str) -> str:
        key = (view_key(state, seat), language)
        if key not in renders:
            renders[key] = render_board(state, seat, language, regions)
        return renders[key]

    messages = [
        ("send", seat.channel_name, _event(game, render(seat, seat.channel_language), bool(regions)))
        for seat in seats
    ]
    messages += [
        ("group", spectators_group(game.pk, language), _event(game, render(None, language), bool(regions)))
        for language in languages
    ]
    return messages


def render_board(state, seat: Player | None, language: str, regions: frozenset = frozenset()) -> str:
    """The `live-update` regions of the game screen for `seat` (None: a spectator), in `language`: made
    by dicegame.screen.regions, without a template (the regions a change redraws cost a template ten
    times as much)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return live_update(board_for(state, seat), regions)


def _event(game: Game, html: str, partial: bool) -> dict:
    # `partial`: only the regions the change can alter; a screen that missed a version can't use it.
    # `acted_at`: when the server took the action that made it (None for the clock's own changes), for
    # the operators' figure of the time from an action to its push written (core.metrics).
    return {
        "type": "game.push",
        "version": game.version,
        "html": html,
        "partial": partial,
        "acted_at": getattr(game, "acted_at", None),
    }
