"""The winning chances bar on live screens, pushed after the board, computed off the action's path.

`after_push` runs once the board of a change has been handed to the courier (`events.BoardPushed`).
If anyone may see the bar (the game has spectators, or a seat's player switched it on in a game that
is not rated: a hint in the shared cache, set when they switch it on, load the page or open its
socket) and the change moved the position (a roll, a written box; a hold or a choice of box does not),
the position goes to this process's one worker thread. The worker keeps only the newest job per game
(a burst of changes costs one computation), works out the chances (cached per position,
`winprob.chances`), renders the `win-bar` region once per language in use and per kind of viewer
(spectator, seat), and sends it to the game's group through the process's courier, after the board.
Each socket forwards what its screen may show (`GameConsumer.win_bar`): spectators always, a seat only
if its player switched the bar on and the game is not rated. No SQL on the way.

Plain synchronous code (tests, commands without an event loop) computes and sends at once, after the
board.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connections
from django.template.loader import render_to_string
from django.utils import translation

from dicegame import courier, events
from dicegame.models import Game, Player, Turn

from . import chances as wp
from . import review
from .models import WinBarChoice

logger = logging.getLogger(__name__)

GAME_TEMPLATE = "dicegame/game.html"
# For measuring the bar's cost (bench/live_games.py): work it out after every move of every live game,
# as if every game had a spectator.
ALWAYS = os.environ.get("PENTA_WIN_BAR_ALWAYS", "").lower() == "true"


@dataclass
class _Job:
    game: Game
    players: list[Player] | None
    turn: Turn | None
    loop: object


_pending: dict[tuple, Callable[[], object]] = {}
_wake = threading.Condition()
_worker: threading.Thread | None = None


def on_board_pushed(event: events.BoardPushed) -> None:
    after_push(event.game, event.change)


def after_push(game: Game, change: str | None) -> None:
    """Called after the board of a committed change was sent (`live.pushes`)."""
    if game.is_finished and game.kind != Game.Kind.SOLO:
        schedule_course(game)
        return
    if change is not None or not game.is_active:
        return  # a hold, a choice of box or a screen opening (events.HOLDS, ...): the position is the same
    if game.kind not in (Game.Kind.FRIENDS, Game.Kind.COMPUTER):
        return
    players = game.seats
    seats_may_see = not game.rated and (players is None or any(p.channel_name for p in players))
    if (
        not ALWAYS
        and not game.spectator_languages
        and not (seats_may_see and cache.get(wp.opted_key(game.pk)))
    ):
        return  # nobody to show it to
    turn = game.turn_in_play
    job = _Job(game, list(players) if players is not None else None, turn, courier.event_loop())
    if job.loop is None:
        _run(job)
        return
    _queue(("bar", game.pk), lambda: _run(job))


def schedule_course(game: Game) -> bool:
    """Work out the winning chances through a finished game for its review, on the worker thread of a
    server process (False where there is none: a test, a command; the review then goes without)."""
    if courier.event_loop() is None:
        return False
    _queue(("course", game.pk), lambda: review.stored(game) or review.compute(game, in_child=True))
    return True


def _queue(key: tuple, work: Callable[[], object]) -> None:
    """The newest job per key waits for the worker (a burst of changes to a game costs one)."""
    with _wake:
        _pending[key] = work
        _ensure_worker()
        _wake.notify()


def seat_wants_bar(game_id: int, seat_id: int) -> bool:
    """For a seat's socket as it opens: did its player switch the bar on? (Renews the cache's hint.)"""
    wants = WinBarChoice.objects.filter(player_id=seat_id).exists()
    if wants:
        cache.set(wp.opted_key(game_id), 1, wp.OPTED_SECONDS)
    return wants


def _ensure_worker() -> None:
    global _worker
    if _worker is None or not _worker.is_alive():
        _worker = threading.Thread(target=_work, name="winprob-bar", daemon=True)
        _worker.start()


def _work() -> None:
    while True:
        with _wake:
            while not _pending:
                _wake.wait()
            key, work = _pending.popitem()
        try:
            close_old_connections()
            work()
        except Exception:
            logger.exception("winning chances (%s of game %s) not done", *key)
        finally:
            connections.close_all()  # a connection this thread opened goes back (to the pool)


def _run(job: _Job) -> None:
    players = job.players
    if players is None:
        players = list(Player.objects.filter(game=job.game).order_by("seat"))
    turn = job.turn
    if turn is None or turn.completed_at is not None:
        turn = Turn.objects.filter(game=job.game, completed_at__isnull=True).order_by("number").first()
    if not wp.has_bar(job.game, players):
        return
    # On a server the work goes to the niced child process; plain synchronous code does it itself.
    messages = bar_messages(job.game, players, turn, in_child=job.loop is not None)
    if job.loop is None:
        async_to_sync(courier.deliver)(messages)
        return
    with contextlib.suppress(RuntimeError):  # the loop closed: the process is stopping
        job.loop.call_soon_threadsafe(courier.post, messages)


def cached_bar(state, seat: Player | None, wants_bar: bool, language: str) -> str:
    """The `win-bar` region for a whole board drawn by a socket (on opening, after a missed version),
    if this viewer may see it and the position's chances are in the cache; else nothing."""
    game = state.game
    if not wp.has_bar(game, state.players):
        return ""
    if seat is not None and (game.rated or not wants_bar):
        return ""
    chances = wp.cached_chances(game, state.players, state.turn)
    if chances is None:
        return ""
    bar = {"seats": wp.bar_seats(state.players, chances), "shown": True, "on": seat is not None}
    bar["can_toggle"] = seat is not None
    return render_bar(game, bar, language)


def render_bar(game: Game, bar: dict | None, language: str) -> str:
    with translation.override(language or settings.LANGUAGE_CODE):
        return render_to_string(f"{GAME_TEMPLATE}#win-bar", {"game": game, "win_bar": bar, "oob": True})


def bar_messages(
    game: Game, players: list[Player], turn: Turn | None, *, in_child: bool = False
) -> list[tuple[str, str, dict]]:
    """One message to the game's group per language in use: the spectators' render and the seats'
    (with the switch to hide it); each socket picks its own (GameConsumer.win_bar)."""
    languages = set(game.spectator_languages.split())
    languages |= {p.channel_language or settings.LANGUAGE_CODE for p in players if p.channel_name}
    chances = wp.game_chances(game, players, turn, in_child=in_child)
    seats = wp.bar_seats(players, chances)
    messages = []
    for language in sorted(languages):
        spectator = {"seats": seats, "shown": True, "on": False, "can_toggle": False}
        seat = {"seats": seats, "shown": True, "on": True, "can_toggle": True}
        event = {
            "type": "win.bar",
            "version": game.version,
            "language": language,
            "rated": game.rated,
            "html": render_bar(game, spectator, language),
            "seat_html": render_bar(game, seat, language),
        }
        messages.append(("group", courier.game_group(game.pk), event))
    return messages
