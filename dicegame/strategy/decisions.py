"""The optimal strategy as the game, the bots and the hints ask it: values and decisions for one sheet.

The solved table holds, for every sheet state, the expected points still to come. A decision inside a
turn is then a small exact search over that state's rolls and keeps (TurnValues), done on demand and
remembered for the last few states, since a turn asks about the same state up to three times.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from dicegame.rules.scoring import (
    PENTA_SCORE,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Box,
    Scoresheet,
    validate_dice,
)

from . import cache, solver
from . import tables as T
from .turn import State, TurnValues, check_open, check_rolls_left, legal_options, ranked

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Choice:
    """One option at a decision point and the expected final TOTAL if it is taken and play is optimal.

    Exactly one of `keep` and `box` is set: `keep` (sorted dice values to hold, all five meaning
    "roll no more") while rolls are left, `box` after the last roll. `points` is what the box
    scores now (Penta bonus and upper bonus not included); None for a keep.
    """

    expected_total: float
    keep: tuple[int, ...] | None = None
    box: Box | None = None
    points: int | None = None


class Strategy:
    """The optimal solitaire strategy (maximum expected final total) under the rules of RULES.md."""

    def __init__(self, values: np.ndarray):
        if values.shape != cache.SHAPE:
            raise ValueError(f"a strategy table has shape {cache.SHAPE}, not {values.shape}")
        self.values = values
        self._turn = lru_cache(maxsize=256)(self._compute_turn)

    # -- building and loading ------------------------------------------------------------------

    @classmethod
    def build(cls, progress: solver.Progress | None = None) -> Strategy:
        """Solve the game afresh (a few seconds), touching no file."""
        values = solver.solve(progress)
        values.flags.writeable = False
        return cls(values)

    @classmethod
    def load(cls, path: str | Path | None = None, progress: solver.Progress | None = None) -> Strategy:
        """The table from the cache file (default: cache.default_path()); built and written if the
        file is missing, corrupt or stale."""
        path = Path(path) if path is not None else cache.default_path()
        try:
            return cls(cache.load(path))
        except cache.StaleCache as exc:
            log.info("rebuilding the strategy table: %s", exc)
        strategy = cls.build(progress)
        try:
            cache.save(path, strategy.values)
        except OSError as exc:  # a read-only checkout still plays, it just solves again next time
            log.warning("could not write the strategy table to %s: %s", path, exc)
        return strategy

    @classmethod
    def shared(cls) -> Strategy:
        """One table per process, loaded (or built) on first use: for the game, the hints, the bots."""
        return _shared()

    # -- values --------------------------------------------------------------------------------

    def expected_total(self, sheet: Scoresheet) -> float:
        """Expected final TOTAL under optimal play from the start of the next turn on this sheet."""
        s = State.of(sheet)
        return sheet.total + float(self.values[s.mask, s.upper, s.penta])

    def turn(self, sheet: Scoresheet) -> TurnValues:
        """The within-turn values for this sheet (future points from each roll and keep)."""
        check_open(sheet)
        return self._turn(State.of(sheet))

    def _compute_turn(self, state: State) -> TurnValues:
        return TurnValues.from_table(self.values, state)

    # -- decisions -----------------------------------------------------------------------------

    def evaluate(self, sheet: Scoresheet, dice: Iterable[int], rolls_left: int) -> list[Choice]:
        """Every choice at this point, best first, with its expected final total.

        rolls_left 1 or 2: every distinct set of dice to hold (ties, within `turn.TIE`: holding more dice
        first, then the lexicographically smaller values).
        rolls_left 0: every legal box for the dice (ties: sheet order).
        """
        dice = validate_dice(dice)
        check_rolls_left(rolls_left, (0, 1, 2))
        check_open(sheet)
        if rolls_left == 0:
            return self._box_choices(sheet, dice)
        keeps, values = self.turn(sheet).keep_options(dice, rolls_left)
        total = sheet.total
        return [
            Choice(expected_total=total + float(v), keep=T.KEEPS[k])
            for k, v in zip(keeps, values, strict=True)
        ]

    def best_keep(self, sheet: Scoresheet, dice: Iterable[int], rolls_left: int) -> tuple[int, ...]:
        """The dice to hold (sorted values) before the next roll; all five means stop and score."""
        dice = validate_dice(dice)
        check_rolls_left(rolls_left)
        check_open(sheet)
        return T.KEEPS[self.turn(sheet).best_keep(dice, rolls_left)]

    def best_box(self, sheet: Scoresheet, dice: Iterable[int]) -> Box:
        """The legal box where the final dice are best written (the forced joker respected)."""
        return self._box_choices(sheet, validate_dice(dice))[0].box

    def _box_choices(self, sheet: Scoresheet, dice: tuple[int, ...]) -> list[Choice]:
        check_open(sheet)
        state = State.of(sheet)
        base = sheet.total + sheet.bonus_for(dice)
        choices = []
        for box, points in legal_options(state, dice):
            upper, penta, gained = state.upper, state.penta, points
            if box.is_upper:
                upper = min(T.UPPER_CAP, state.upper + points)
                if state.upper < UPPER_BONUS_THRESHOLD <= state.upper + points:
                    gained += UPPER_BONUS
            elif box is Box.PENTA:
                penta = int(points == PENTA_SCORE)
            future = float(self.values[state.mask | 1 << box.value, upper, penta])  # 0 once the sheet is full
            choices.append(Choice(expected_total=base + gained + future, box=box, points=points))
        key = ranked([c.expected_total for c in choices])
        order = sorted(range(len(choices)), key=lambda i: -key[i])  # stable: ties stay in sheet order
        return [choices[i] for i in order]


@lru_cache(maxsize=1)
def _shared() -> Strategy:
    return Strategy.load()
