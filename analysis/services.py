"""The analysis's writes: a finished game's analysis is worked out once, soon after its end commits, so its
review (and the statistics, the daily's figures, the puzzles) open at once.

On a server it is the clock's work (`analyse_finished`, in the clock's loop kept apart from the games'
sweep: the `run_timers` process in production), never the answer's or the socket's: a solo game's
analysis and its puzzles cost the last confirm some 30-60 ms of CPU, which the person waited for and
which held the web process from every other request and socket for as long. Plain synchronous code (a
test, a command: no event loop) analyses at once, after the commit. Either way, a review opened before
the analysis is stored computes it then (`store.analysis_for`)."""

from __future__ import annotations

import datetime as dt
import logging
from functools import partial

from django.db import transaction
from django.utils import timezone

from analysis.store import analyse_pending
from core import courier
from dicegame import events
from dicegame.models import Game
from dicegame.strategy import analysis as A

logger = logging.getLogger(__name__)

# The clock's sweep: how often, how many games a pass, and how far back it looks (older games are
# analysed on their review's first view, or by the commands that catch up).
ANALYSE_EVERY_SECONDS = 1.0
ANALYSE_BATCH = 10
ANALYSE_HORIZON = dt.timedelta(hours=1)

# Games whose log could not be replayed, with when they finished: not tried again every pass.
_unanalysable: dict[int, dt.datetime] = {}


def on_game_finished(event: events.GameFinished) -> None:
    transaction.on_commit(partial(_after_the_end, event.game.pk))


def _after_the_end(game_id: int) -> None:
    if courier.event_loop() is not None:
        return  # a server: the clock's sweep analyses it, off this answer or socket
    _analyse(game_id)


def _analyse(game_id: int) -> None:
    try:
        analyse_pending([game_id])
    except Exception:  # the game is saved; the review computes the analysis on first view instead
        logger.exception("could not analyse game %s", game_id)


def analyse_finished() -> int:
    """The clock's sweep: analyse the games that finished lately without a current analysis, the
    oldest first, a few a pass."""
    since = timezone.now() - ANALYSE_HORIZON
    for game_id, finished_at in list(_unanalysable.items()):
        if finished_at < since:
            del _unanalysable[game_id]
    pending = list(
        Game.objects.filter(status=Game.Status.FINISHED, finished_at__gte=since)
        .exclude(analysis__version=A.ANALYSIS_VERSION)
        .exclude(pk__in=list(_unanalysable))
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at")[:ANALYSE_BATCH]
    )
    if not pending:
        return 0
    ids = [pk for pk, _at in pending]
    try:
        analyse_pending(ids)
    except Exception:
        logger.exception("could not analyse games %s", ids)
    done = set(
        Game.objects.filter(pk__in=ids, analysis__version=A.ANALYSIS_VERSION).values_list("pk", flat=True)
    )
    _unanalysable.update((pk, at) for pk, at in pending if pk not in done)
    return 0  # no game's play changed
