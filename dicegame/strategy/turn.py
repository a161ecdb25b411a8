"""The within-turn search for one state: what each roll and each holding choice is worth.

Given what a final roll is worth in each box (points now plus a value for the sheet after it), the
rest of a turn is exact expectation and maximisation over 252 rolls and 462 keeps. The optimal
strategy feeds it the solved table; the medium bot feeds it a hand-made estimate of the sheet's worth.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import JOKER_LOWER_BOXES, Box, Scoresheet, joker_score

from . import solver
from . import tables as T

# Two choices whose expected totals differ by less than this (expected points) are a tie: far above the
# float rounding of the table's sums (about 1e-11), far below any difference a player could feel. Ties
# are broken by a fixed rule (`ranked`), so that optimal play, and the par of the daily and the
# tournaments, is one line that anyone can replay (docs/fair-dice.md).
TIE = 1e-6


def ranked(values: np.ndarray) -> np.ndarray:
    """The values as a sort key: those within TIE of the best count as equal to it (the rest to 9
    decimals), so that the tie-break decides among every choice as good as the best."""
    values = np.asarray(values, dtype=float)
    top = values.max() if len(values) else 0.0
    return np.where(values >= top - TIE, top, np.round(values, 9))


@dataclass(frozen=True)
class State:
    """A sheet as the solver sees it: filled boxes, capped upper total, Penta box holds 50."""

    mask: int
    upper: int
    penta: int

    @classmethod
    def of(cls, sheet: Scoresheet) -> State:
        mask = upper = 0
        for box, points in sheet.boxes.items():
            bit = _BIT[box]
            mask |= bit
            if bit & T.UPPER_MASK:
                upper += points
        return cls(mask, min(T.UPPER_CAP, upper), int(sheet.penta_box_full))


_BIT = {b: 1 << b.value for b in Box}  # enum attribute access is slow on the per-decision path


@dataclass(frozen=True, eq=False)
class TurnValues:
    """Expected points still to come (this turn's box included) from each point of one turn.

    final[r]: roll r with no roll left, written in its best box. keep_last[k]: holding keep k and
    rolling the others for the last time. one_left[r]: roll r with one roll left (its best sub-keep;
    holding all five is stopping). Values of keeps before the second roll are computed on demand,
    for the few keeps a roll allows.
    """

    final: np.ndarray
    keep_last: np.ndarray
    one_left: np.ndarray

    @classmethod
    def from_final(cls, final: np.ndarray) -> TurnValues:
        keep_last = T.TRANSITION @ final
        return cls(final, keep_last, best_subkeeps(keep_last))

    @classmethod
    def from_table(cls, values: np.ndarray, state: State) -> TurnValues:
        """The turn of `state` given a (8192, 64, 2) table of what each later sheet is worth."""
        return cls.from_final(solver.final_roll_values_one(values, state.mask, state.upper, state.penta))

    def keep_values(self, keeps: np.ndarray, rolls_left: int) -> np.ndarray:
        """Values of holding these keeps (indices into tables.KEEPS) with rolls_left rolls left."""
        if rolls_left == 1:
            return self.keep_last[keeps]
        return T.TRANSITION[keeps] @ self.one_left

    def start_value(self) -> float:
        """Expected points still to come from the start of the turn (before the first roll)."""
        return float(T.FIRST_ROLL @ best_subkeeps(T.TRANSITION @ self.one_left))

    def keep_options(self, dice: tuple[int, ...], rolls_left: int) -> tuple[np.ndarray, np.ndarray]:
        """(keep indices, values) for every distinct keep from these dice, best first; ties (TIE) go to
        holding more dice, then to the lexicographically smaller keep."""
        keeps = T.SUBKEEPS[T.ROLL_INDEX[tuple(sorted(dice))]]
        keeps = keeps[keeps < T.N_KEEPS]
        values = self.keep_values(keeps, rolls_left)
        order = np.lexsort((T.KEEP_LEX_RANK[keeps], -T.KEEP_SIZE[keeps], -ranked(values)))
        return keeps[order], values[order]

    def best_keep(self, dice: tuple[int, ...], rolls_left: int) -> int:
        """keep_options(...)[0][0] without sorting them all: the common case has a single best."""
        keeps = T.SUBKEEPS[T.ROLL_INDEX[tuple(sorted(dice))]]
        keeps = keeps[keeps < T.N_KEEPS]
        values = self.keep_values(keeps, rolls_left)
        best = keeps[values >= values.max() - TIE]
        if len(best) == 1:
            return int(best[0])
        return int(best[np.lexsort((T.KEEP_LEX_RANK[best], -T.KEEP_SIZE[best]))[0]])


def best_subkeeps(keep_values: np.ndarray) -> np.ndarray:
    """(252,): for each roll, the best value among the keeps it allows."""
    return np.append(keep_values, -np.inf)[T.SUBKEEPS].max(axis=1)


_BOXES = tuple(Box)
_SCORE_ROWS = T.SCORE.tolist()


def legal_options(state: State, dice: tuple[int, ...]) -> list[tuple[Box, int]]:
    """(box, points) for every legal box, in sheet order: Scoresheet.options from the precomputed
    score tables (the rules engine scores every box afresh, which is too slow for simulations;
    tests check the two agree)."""
    mask = state.mask
    open_boxes = [b for b in _BOXES if not mask >> b.value & 1]
    roll = T.ROLL_INDEX[tuple(sorted(dice))]
    if state.penta and T.IS_PENTA_ROLL[roll]:
        face = dice[0]
        own = Box.upper(face)
        if not mask >> own.value & 1:
            return [(own, 5 * face)]
        lower = [b for b in open_boxes if b in JOKER_LOWER_BOXES]
        if lower:
            return [(b, joker_score(b, face)) for b in lower]
        return [(b, 0) for b in open_boxes]
    points = _SCORE_ROWS[roll]
    return [(b, points[b.value]) for b in open_boxes]


def check_rolls_left(rolls_left: object, allowed: tuple[int, ...] = (1, 2)) -> int:
    if type(rolls_left) is not int or rolls_left not in allowed:
        raise ValueError(
            f"rolls_left must be one of {allowed} (rolls still allowed this turn), not {rolls_left!r}"
        )
    return rolls_left


def check_open(sheet: Scoresheet) -> None:
    if sheet.is_complete:
        raise ValueError("the sheet is complete: there is no turn left to play")


def is_subkeep(keep: Iterable[int], dice: Iterable[int]) -> bool:
    """Whether keep is a sub-multiset of dice."""
    keep, dice = list(keep), list(dice)
    return all(keep.count(v) <= dice.count(v) for v in set(keep))
