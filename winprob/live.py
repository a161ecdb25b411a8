"""The winning chances bar on live screens, pushed after the board, worked out off the action's path,
once per position, fairly.

A position's bar is asked for (`request_bar`) when a change moved it (`after_push`, once the board of
the change was handed to the courier: a roll, a written box; a hold or a choice of box does not) and
someone may see the bar: the game has spectators, or a seat's player switched it on (a hint in the
shared cache, set when they switch it on, load the page or open its socket); and when a screen that
may show the bar opens, or a logged-in viewer's page asks (`winprob.views.bar`), and the figures are
missing. Nobody sees the bar of a rated game while it is played (its review shows the course).

What is asked for goes to this process's one worker thread through its fair queue
(`winprob.queue.FairQueue`: round-robin over the people the games belong to and over their games, one
position waiting per game, the newest replacing the older, at most PENTA_WIN_BAR_GAMES_PER_PERSON games
of a person waiting). A position's figures are worked out once: in the niced child process
(`winprob.process`), never in a thread that serves requests; kept in the shared cache under the position
alone (`chances.position_key`), so every process, game and viewer that reaches it reads them there; and
a claim in the shared cache per game and position keeps a second process from queueing what a first
one has queued. The worker renders the `win-bar` region once per language in use and per kind of
viewer (spectator, seat) and sends it to the game's group through the process's courier, after the
board. Each socket forwards what its screen may show (`GameConsumer.win_bar`). No SQL on the way.

Plain synchronous code (tests, commands without an event loop) computes and sends at once.
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

from core import courier
from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.strategy.winprob import SeatPosition

from . import chances as wp
from . import review
from .models import WinBarChoice
from .queue import FairQueue

logger = logging.getLogger(__name__)

GAME_TEMPLATE = "dicegame/game.html"
# For measuring the bar's cost (bench/live_games.py): work it out after every move of every live game,
# as if every game had a spectator.
ALWAYS = os.environ.get("PENTA_WIN_BAR_ALWAYS", "").lower() == "true"
# How long a process's claim on a game's position keeps the others from queueing it too (should the
# process die with it queued, the next ask after this works it out elsewhere).
CLAIM_SECONDS = 60


@dataclass(frozen=True)
class BarJob:
    """A game's position, as it stood at `version`: what the bar of that version shows."""

    game: Game
    version: int
    players: tuple[Player, ...]
    seats: tuple[SeatPosition, ...]
    languages: frozenset[str]

    @property
    def key(self) -> str:
        return wp.position_key(list(self.seats))


_queue: FairQueue | None = None
_queue_lock = threading.Lock()
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
    if game.kind not in (Game.Kind.FRIENDS, Game.Kind.COMPUTER) or (game.rated and not ALWAYS):
        return
    players = game.seats
    seats_may_see = players is None or any(p.channel_name for p in players)
    if not ALWAYS and not game.spectator_languages and not (seats_may_see and game.win_bar_wanted):
        return  # nobody to show it to
    if players is None:
        players = list(Player.objects.filter(game=game).order_by("seat"))
    turn = game.turn_in_play
    if turn is None or turn.completed_at is not None:
        turn = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()
    request_bar(game, players, turn)


def request_bar(game: Game, players: list[Player], turn: Turn | None, language: str = "") -> bool:
    """Ask for the bar of the game's position as it stands (`game.version`, the seats and turn given):
    sent to the game's screens once worked out. `language`: one more language to render it in (a screen
    that has just opened). False if the queue refused it (the person's games wait already)."""
    if not wp.has_bar(game, players):
        return False
    languages = set(game.spectator_languages.split()) | ({language} if language else set())
    languages |= {p.channel_language or settings.LANGUAGE_CODE for p in players if p.channel_name}
    job = BarJob(
        game=game,
        version=game.version,
        players=tuple(players),
        seats=tuple(wp.positions(players, turn)),
        languages=frozenset(languages or {settings.LANGUAGE_CODE}),
    )
    loop = courier.event_loop()
    if loop is None:
        _run(job, None)
        return True
    claim = f"winprob:claim:{game.pk}:{job.key}"
    if cache.get(job.key) is None and not cache.add(claim, os.getpid(), CLAIM_SECONDS):
        return True  # queued by another process (or this one) already: its bar goes to every screen
    if not _put(("bar", game.pk), driver_of(game, players), lambda: _run(job, loop, claim)):
        cache.delete(claim)
        logger.info("winning chances of game %s not queued: its person's games wait already", game.pk)
        return False
    return True


def schedule_course(game: Game) -> bool:
    """Work out the winning chances through a finished game for its review, on the worker thread of a
    server process (False where there is none: a test, a command; the review then goes without)."""
    if courier.event_loop() is None:
        return False
    work: Callable[[], object] = lambda: review.stored(game) or review.compute(game, in_child=True)  # noqa: E731
    return _put(("course", game.pk), driver_of(game, None), work)


def driver_of(game: Game, players: list[Player] | None) -> str:
    """Whose the game is, for the queue's fairness: its host (a game against friends), else its person
    (a game against the computer)."""
    if game.host_id is not None:
        return f"user:{game.host_id}"
    if players is None:
        players = list(Player.objects.filter(game=game, bot_strength=""))
    person = next((p for p in players if not p.is_bot), None)
    if person is None:
        return f"game:{game.pk}"
    return f"user:{person.user_id}" if person.user_id is not None else f"guest:{person.guest_key}"


def seat_wants_bar(seat_id: int) -> bool:
    """For a seat's socket as it opens: did its player switch the bar on?"""
    return WinBarChoice.objects.filter(player_id=seat_id).exists()


def queue() -> FairQueue:
    global _queue
    with _queue_lock:
        if _queue is None:
            _queue = FairQueue(settings.PENTA_WIN_BAR_GAMES_PER_PERSON)
        return _queue


def _put(key: tuple, driver: str, work: Callable[[], object]) -> bool:
    if not queue().put(key, driver, work):
        return False
    _ensure_worker()
    return True


def _ensure_worker() -> None:
    global _worker
    with _queue_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="winprob-bar", daemon=True)
            _worker.start()


def _work() -> None:
    jobs = queue()
    while True:
        key, work = jobs.take()
        try:
            close_old_connections()
            work()
        except Exception:
            if not threading.main_thread().is_alive():
                return  # the process is exiting: its child is gone, and so is the work
            logger.exception("winning chances (%s of game %s) not done", *key)
        finally:
            connections.close_all()  # a connection this thread opened goes back (to the pool)
            jobs.done()


def _run(job: BarJob, loop, claim: str = "") -> None:
    try:
        chances = cache.get(job.key)
        if chances is None:
            # On a server the work goes to the niced child process; plain synchronous code does it itself.
            chances = wp.compute_chances(list(job.seats), in_child=loop is not None)
    finally:
        if claim:
            cache.delete(claim)
    messages = bar_messages(job, chances)
    if loop is None:
        async_to_sync(courier.deliver)(messages)
        return
    with contextlib.suppress(RuntimeError):  # the loop closed: the process is stopping
        loop.call_soon_threadsafe(courier.post, messages)


def board_bar(state, seat: Player | None, wants_bar: bool, language: str) -> str:
    """The `win-bar` region for a whole board drawn by a socket (on opening, after a missed version),
    if this viewer may see it and the position's chances are in the cache; else nothing, and the
    position is asked for (its bar follows by push)."""
    game = state.game
    if not wp.has_bar(game, state.players) or game.rated:
        return ""
    if seat is not None and not wants_bar:
        return ""
    chances = wp.cached_chances(state.players, state.turn)
    if chances is None:
        request_bar(game, state.players, state.turn, language)
        return ""
    with translation.override(language or settings.LANGUAGE_CODE):
        bar = {"seats": wp.bar_seats(state.players, chances), "shown": True, "on": seat is not None}
        bar["can_toggle"] = seat is not None
        return render_bar(game, bar, language)


def render_bar(game: Game, bar: dict | None, language: str) -> str:
    with translation.override(language or settings.LANGUAGE_CODE):
        return render_to_string(f"{GAME_TEMPLATE}#win-bar", {"game": game, "win_bar": bar, "oob": True})


def bar_messages(job: BarJob, chances: list[float]) -> list[tuple[str, str, dict]]:
    """One message to the game's group per language in use: the spectators' render and the seats'
    (with the switch to hide it); each socket picks its own (GameConsumer.win_bar)."""
    game, players = job.game, list(job.players)
    messages = []
    for language in sorted(job.languages):
        with translation.override(language):
            # A computer player's name is made in the viewer's language.
            seats = wp.bar_seats(players, chances)
        spectator = {"seats": seats, "shown": True, "on": False, "can_toggle": False}
        seat = {"seats": seats, "shown": True, "on": True, "can_toggle": True}
        event = {
            "type": "win.bar",
            "version": job.version,
            "language": language,
            "rated": game.rated,
            "html": render_bar(game, spectator, language),
            "seat_html": render_bar(game, seat, language),
        }
        messages.append(("group", courier.game_group(game.pk), event))
    return messages
