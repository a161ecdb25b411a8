"""After a change to a game commits, every open screen of it gets the change, rendered once.

The service that made the change calls `after_commit`; once the transaction commits, the board is
worked out once from the rows the service holds (`dicegame.board.board_state`), rendered once per
kind of viewer and language (a seat that may act, a seat that may not, a seat the computer keeps,
the spectators), and sent: to each seat's own channel, and to the spectators' group of each language
in use. A socket forwards what it gets without touching the database. Each push carries the game's
version; a screen that missed one is redrawn whole from the database by its socket.

Nothing private crosses seats: a seat's push is rendered for that seat and sent to its channel only;
spectators get the spectator's board. A room before its start (the lobby differs per viewer: the
host's controls, the friends one may invite) is rare traffic: there each socket renders its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation
from redis.exceptions import ConnectionError as RedisConnectionError

from dicegame.board import CHANGE_REGIONS, board_for, board_state, view_key
from dicegame.models import Game, Player, Turn
from winprob import live as winprob_live

logger = logging.getLogger(__name__)

GAME_TEMPLATE = "dicegame/game.html"
_UNSET = object()


def game_group(game_id: int) -> str:
    """Every socket of the game: for what all of them handle alike (the room's changes)."""
    return f"game_{game_id}"


def spectators_group(game_id: int, language: str) -> str:
    return f"game_{game_id}_watch_{language}"


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
        messages = _messages(game, change)
        if messages:
            _dispatch(messages)
    except Exception:  # the change is saved; a screen that missed it is redrawn when it reconnects
        logger.exception("could not broadcast version %s of game %s", game.version, game.pk)
    try:
        # The winning chances bar, after the board and off the action's path (winprob.live).
        winprob_live.after_push(game, change)
    except Exception:
        logger.exception("could not start the winning chances of game %s", game.pk)


def _dispatch(messages: list[tuple[str, str, dict]]) -> None:
    """Hand the messages to this process's courier on its event loop, in order, without waiting for
    Redis (the action answers sooner, and a process that is stopping cannot hang on a loop that no
    longer runs); plain synchronous code (a test, a command with no event loop) delivers them itself."""
    loop = _event_loop()
    if loop is None:
        async_to_sync(_deliver)(messages)
        return
    try:
        loop.call_soon_threadsafe(_post, messages)
    except RuntimeError:  # the loop closed under us: the process is stopping
        logger.warning("the process is stopping: %d pushes not sent", len(messages))


def _event_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this thread works for (asgiref's sync_to_async records it), if any."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


_outboxes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _post(messages: list[tuple[str, str, dict]]) -> None:
    """On the event loop: queue the messages for the loop's one courier, which sends them in order."""
    loop = asyncio.get_running_loop()
    if loop not in _outboxes:
        outbox = asyncio.Queue()
        # The task is kept with its queue: the loop holds tasks only weakly.
        _outboxes[loop] = (outbox, loop.create_task(_courier(outbox)))
    _outboxes[loop][0].put_nowait(messages)


async def _courier(outbox: asyncio.Queue) -> None:
    while True:
        await _deliver(await outbox.get())


def _messages(game: Game, change: str | None) -> list[tuple[str, str, dict]]:
    """(how, where, event) for every screen of the game: "send" to a channel, "group" to a group."""
    if game.is_open:
        return [("group", game_group(game.pk), {"type": "game.refresh", "version": game.version})]
    if not game.is_active:
        # Finished, expired or cancelled: the page has another shape and reloads itself on the new
        # status; the status marker is all it needs.
        html = render_to_string(f"{GAME_TEMPLATE}#game-status", {"game": game, "oob": True})
        return [("group", game_group(game.pk), _event(game, html, partial=False))]
    players = getattr(game, "seats", None)
    if players is None:
        players = list(Player.objects.filter(game=game).order_by("seat"))
    seats = [p for p in players if p.channel_name]
    languages = game.spectator_languages.split()
    if not seats and not languages:
        return []
    turn = getattr(game, "_turn_in_play", None)
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
    """The `live-update` regions of the game screen for `seat` (None: a spectator), in `language`."""
    with translation.override(language or settings.LANGUAGE_CODE):
        board = board_for(state, seat)
        context = {"game": state.game, "board": board, "lobby": None, "regions": regions, "oob": True}
        return render_to_string(f"{GAME_TEMPLATE}#live-update", context)


def _event(game: Game, html: str, partial: bool) -> dict:
    # `partial`: only the regions the change can alter; a screen that missed a version can't use it.
    return {"type": "game.push", "version": game.version, "html": html, "partial": partial}


async def _deliver(messages: list[tuple[str, str, dict]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for how, where, event in messages:
        send = layer.send if how == "send" else layer.group_send
        try:
            try:
                await send(where, event)
            except RedisConnectionError:
                # A pooled connection that Redis dropped (it restarted) fails its first command, and
                # redis-py connects afresh for the next: without this retry the first push after a
                # Redis restart was lost, and a screen waiting on it stayed stale.
                await send(where, event)
        except Exception as exc:  # one screen's channel (full, of a dead process) must not stop the others
            # One line each: in a Redis outage every push fails alike.
            logger.warning("could not broadcast version %s to %s: %r", event.get("version"), where, exc)
