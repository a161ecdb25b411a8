"""Computer players of three strengths.

- easy: greedy. Writes the roll in the box that scores most right now; holds the biggest group of equal
  dice (or everything when the roll already makes a straight, a full house or a Penta worth taking).
- medium: a sensible heuristic. It searches each turn exactly, like the optimal player, but judges the
  sheet after a box is written by a hand-made formula instead of the solved table: every open box is
  worth its typical score ("par"), the upper bonus is worth 35 times a rough chance of still making 63
  (so upper boxes are valued relative to three dice of their face), and a 50 in the Penta box is worth
  the Penta bonuses it may still bring. So it chases straights, full houses and Pentas when they pay,
  and does not throw away Chance or the Penta box early.
- hard: the optimal strategy (Strategy): the most points on average.
- winner: plays to finish first. Against the opponents' sheets (`opponents`), it takes the hold and the
  box with the best chance of finishing first, ties shared (`winner.WinPlay`). Without the tables of
  final totals (`win_tables`), or without opponents, it plays as hard does.

Every strength's `choose_keep` and `choose_box` take the opponents' sheets as a keyword, `opponents`, so
that any harness can seat any of them; only the winner looks at them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from dicegame.rules.scoring import Box, Scoresheet, validate_dice

from . import tables as T
from . import win_tables
from .decisions import Strategy
from .outcomes import Outcomes
from .turn import State, check_open, check_rolls_left, legal_options
from .winner import WinPlay, against

STRENGTHS = ("easy", "medium", "hard", "winner")
_NO_TABLES = object()


class Bot:
    """A computer player: `choose_keep` after the first and second roll, `choose_box` to score."""

    def __init__(
        self, strength: str, strategy: Strategy | None = None, outcomes: Outcomes | object | None = _NO_TABLES
    ):
        """`outcomes`: the winner's tables of final totals (default: this process's, `win_tables.shared`;
        None: none, the expected-total play)."""
        if strength not in STRENGTHS:
            raise ValueError(f"unknown bot strength {strength!r}; valid strengths: {', '.join(STRENGTHS)}")
        self.strength = strength
        self._strategy = strategy
        self._outcomes = outcomes
        self._win: WinPlay | None = None

    def __repr__(self) -> str:
        return f"Bot({self.strength!r})"

    @property
    def policy(self) -> Strategy | GreedyPolicy:
        if self.strength == "easy":
            return _greedy()
        if self.strength == "medium":
            return heuristic_strategy()
        if self._strategy is None:
            self._strategy = Strategy.shared()
        return self._strategy

    @property
    def win_play(self) -> WinPlay:
        if self._win is None:
            outcomes = win_tables.shared() if self._outcomes is _NO_TABLES else self._outcomes
            self._win = WinPlay(self.policy, outcomes)
        return self._win

    def choose_keep(
        self, sheet: Scoresheet, dice: Iterable[int], rolls_left: int, *, opponents: Sequence[Scoresheet] = ()
    ) -> tuple[int, ...]:
        """The dice to hold (sorted values) before rolling again; all five means score now.
        `opponents`: the other players' sheets (between turns), which only the winner weighs."""
        dice = validate_dice(dice)
        check_rolls_left(rolls_left)
        check_open(sheet)
        if self.strength == "winner":
            aim = against(self.win_play.outcomes, opponents)
            if self.win_play.can_judge(sheet, aim):
                return self.win_play.keep_options(sheet, dice, rolls_left, aim)[0].keep
        return self.policy.best_keep(sheet, dice, rolls_left)

    def choose_box(
        self, sheet: Scoresheet, dice: Iterable[int], *, opponents: Sequence[Scoresheet] = ()
    ) -> Box:
        """A legal open box for the final dice (`opponents` as for choose_keep)."""
        dice = validate_dice(dice)
        check_open(sheet)
        if self.strength == "winner":
            aim = against(self.win_play.outcomes, opponents)
            if self.win_play.can_judge(sheet, aim):
                return self.win_play.box_options(sheet, dice, aim)[0].box
        return self.policy.best_box(sheet, dice)


class GreedyPolicy:
    """Points now, nothing else."""

    # Boxes whose points come from the whole pattern: holding them all is the greedy thing to do.
    _PATTERNS = frozenset({Box.FULL_HOUSE, Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT, Box.PENTA})

    def best_box(self, sheet: Scoresheet, dice: tuple[int, ...]) -> Box:
        return self._best(sheet, dice)[0]

    def best_keep(self, sheet: Scoresheet, dice: tuple[int, ...], rolls_left: int) -> tuple[int, ...]:
        box, points = self._best(sheet, dice)
        if box in self._PATTERNS and points > 0:
            return tuple(sorted(dice))
        count, face = max((n, v) for v, n in Counter(dice).items())
        return (face,) * count

    @staticmethod
    def _best(sheet: Scoresheet, dice: tuple[int, ...]) -> tuple[Box, int]:
        """The legal box scoring most now (ties: the earliest box) and its points."""
        options = legal_options(State.of(sheet), dice)
        return max(options, key=lambda option: (option[1], -option[0].value))


@lru_cache(maxsize=1)
def _greedy() -> GreedyPolicy:
    return GreedyPolicy()


def greedy_policy() -> GreedyPolicy:
    """The easy computer's policy (the most points now), shared: fair play's rule of thumb."""
    return _greedy()


# Typical points of each box: averages over 2,000 games of the optimal strategy (hard bot), rounded.
PAR = {
    Box.ONES: 1.9,
    Box.TWOS: 5.3,
    Box.THREES: 8.7,
    Box.FOURS: 12.1,
    Box.FIVES: 15.8,
    Box.SIXES: 19.2,
    Box.THREE_OF_A_KIND: 21.8,
    Box.FOUR_OF_A_KIND: 13.2,
    Box.FULL_HOUSE: 22.5,
    Box.SMALL_STRAIGHT: 29.5,
    Box.LARGE_STRAIGHT: 32.1,
    Box.CHANCE: 22.0,
    Box.PENTA: 16.4,
}
BONUS_SPREAD = 4.0  # points of upper total by which the chance of the bonus goes from ~27% to ~73%
PENTA_CHANCE_PER_TURN = 0.03


def heuristic_values() -> np.ndarray:
    """A (8192, 64, 2) table of what each sheet state is worth by the medium bot's formula."""
    masks = np.arange(1 << T.N_BOXES)[:, None, None]
    upper = np.arange(T.N_UPPER)[None, :, None]
    penta = np.arange(2)[None, None, :]
    is_open = [(masks >> b.value & 1) == 0 for b in Box]
    pars = sum(np.where(is_open[b.value], PAR[b], 0.0) for b in Box)
    par_to_come = sum(np.where(is_open[f - 1], 3.0 * f, 0.0) for f in T.FACES)
    most_to_come = sum(np.where(is_open[f - 1], 5.0 * f, 0.0) for f in T.FACES)
    needed = T.UPPER_CAP - upper
    chance = 1.0 / (1.0 + np.exp(-(par_to_come - needed) / BONUS_SPREAD))
    bonus = np.where((needed > 0) & (most_to_come >= needed), 35.0 * chance, 0.0)
    turns_left = sum(o.astype(float) for o in is_open)
    pentas = penta * 100.0 * (1.0 - (1.0 - PENTA_CHANCE_PER_TURN) ** turns_left)
    values = pars + bonus + pentas
    values.flags.writeable = False
    return values


@lru_cache(maxsize=1)
def heuristic_strategy() -> Strategy:
    """The medium bot: exact within each turn, a formula for the sheet afterwards."""
    return Strategy(heuristic_values())
