"""The hint "best to win" (dicegame.screen.win_hints), worked out off the action's path, once per
position, fairly.

A position's hint is asked for when a change moved it (`after_push`: a roll, a written box, hints
switched on) and its player sees hints there (`win_hints.hint_position`). Like the winning chances bar
(`winprob.live`) it goes through the process's fair queue to its one worker thread, is worked out in the
niced child (`winprob.process`: a decision there takes a few milliseconds, at most about 50), and is
kept in the shared cache under the position alone, so every game, process and viewer that reaches it
reads it there; a claim in the cache keeps a second process from queueing it again. Once worked out it
is pushed to the game's screens in each language in use, and a seat's screen shows it only for the
position it was worked out for. Nothing asks for it but a change made in the game: no request a
guest (or anyone) can repeat at will. Plain synchronous code (tests, commands) works it out at once.

Without the win tables on disk (`build_strategy --win-tables`), nothing is asked for: the hints stay
as they were.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from core import courier
from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.screen import win_hints
from dicegame.strategy import Strategy, win_tables
from dicegame.strategy import winner as W

from . import live, process

logger = logging.getLogger(__name__)

CACHE_SECONDS = 6 * 3600
CLAIM_SECONDS = 60


def on_board_pushed(event: events.BoardPushed) -> None:
    after_push(event.game, event.change)


def after_push(game: Game, change: str | None) -> None:
    """Called after the board of a committed change was sent."""
    if change is not None or not game.is_active:
        return  # a hold or a choice of box: the position is the same
    if game.kind not in (Game.Kind.COMPUTER, Game.Kind.LOCAL) or game.rated or game.on_shared_dice:
        return
    players = game.seats
    if players is None:
        players = list(Player.objects.filter(game=game).order_by("seat"))
    turn = game.turn_in_play
    if turn is None or turn.completed_at is not None:
        turn = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()
    request_hint(game, players, turn)


def request_hint(game: Game, players: list[Player], turn: Turn | None) -> bool:
    """Ask for the win hint of the position as it stands (False: none to ask for, or the queue refused
    it because its person's games wait already)."""
    position = win_hints.hint_position(game, players, turn)
    if position is None or not win_tables.on_disk():
        return False
    key = position.key
    if cache.get(key) is not None:
        return True
    loop = courier.event_loop()
    if loop is None:
        cache.set(key, _figures(position, in_child=False), CACHE_SECONDS)
        return True
    claim = win_hints.claim_key(key)
    if not cache.add(claim, os.getpid(), CLAIM_SECONDS):
        return True  # on its way already
    languages = {p.channel_language or settings.LANGUAGE_CODE for p in players if p.channel_name}
    job = (game.pk, game.kind == Game.Kind.LOCAL, position, frozenset(languages or {settings.LANGUAGE_CODE}))
    if not live._put(("hint", game.pk), live.driver_of(game, players), lambda: _run(job, loop, claim)):
        cache.delete(claim)
        logger.info("win hint of game %s not queued: its person's games wait already", game.pk)
        return False
    return True


@lru_cache(maxsize=1)
def _local_play() -> W.WinPlay:
    return W.WinPlay(Strategy.shared(), win_tables.shared())


_local_lock = threading.Lock()


def _figures(position: win_hints.HintPosition, *, in_child: bool) -> dict:
    args = (position.sheet, position.dice, position.rolls_left, position.opponents)
    if in_child and process.available():
        return process.hint(*args)
    with _local_lock:
        return W.hint_figures(_local_play(), *args)


def _run(job, loop, claim: str) -> None:
    game_id, local, position, languages = job
    try:
        figures = _figures(position, in_child=True)
        cache.set(position.key, figures, CACHE_SECONDS)
    finally:
        cache.delete(claim)
    if not figures:
        return
    hint = win_hints.WinHint(position.key, figures)
    messages = []
    for language in sorted(languages):
        with translation.override(language):
            html = str(win_hints.region(hint, oob=True))
        event = {
            "type": "win.hint",
            "seat": position.seat.pk,
            "local": local,
            "language": language,
            "html": html,
        }
        messages.append(("group", courier.game_group(game_id), event))
    with contextlib.suppress(RuntimeError):  # the loop closed: the process is stopping
        loop.call_soon_threadsafe(courier.post, messages)
