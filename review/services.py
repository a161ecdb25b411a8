"""The review's writes: a finished game's analysis is worked out once, right after its end commits, so
its review (and the statistics, the daily's figures, the puzzles) open at once."""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction

from dicegame import events
from dicegame.analysis_store import analyse_pending

logger = logging.getLogger(__name__)


def on_game_finished(event: events.GameFinished) -> None:
    transaction.on_commit(partial(_analyse, event.game.pk))


def _analyse(game_id: int) -> None:
    try:
        analyse_pending([game_id])
    except Exception:  # the game is saved; the review computes the analysis on first view instead
        logger.exception("could not analyse game %s", game_id)
