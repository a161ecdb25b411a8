"""Play to win: the hold and the box that maximise the chance of finishing first, not the expected total.

What a final total is worth is an `Aim`: W(x), the chance of finishing first with x against the
opponents as their sheets stand (each plays on by the expected-total strategy, their final totals from
`outcomes`; ties shared), or, against a field (the daily challenge, a tournament), the share of the
field one beats (ties half): maximising it maximises the expected place and the matchpoints.

A decision is the exact within-turn search of the solver, fed with the worth of each way to end the
turn (Pawlewicz's approach, "A nearly optimal computer player in multi-player Yahtzee", 2011):

- With more than EXACT_BOXES boxes left, ending the turn in state s' with total y is worth
  E[W(y + F)], F the points still to come in s' under the expected-total strategy (its distribution
  from `outcomes`). The player re-plans at every turn, so it only ever commits to that play for the
  turns it cannot yet see.
- With EXACT_BOXES or fewer (and the search under EXACT_BUDGET), the rest of the game is searched
  exactly (`reach`): every later turn also plays for W, per total.

Ties (within TIE of the best chance: a game already decided, options worth the same) go to the
expected-total play. Without the distributions for a position (no table built, or a partial one), the
expected-total play decides. Pure numpy, no Django.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import Box, Scoresheet, validate_dice

from . import reach
from . import tables as T
from .decisions import Strategy
from .outcomes import Outcomes
from .turn import State, TurnValues, best_subkeeps, check_open, check_rolls_left
from .writing import flat_index, writes

TOTALS = 1600  # every final total there can be (the highest is 1,575), and then some
EXACT_BOXES = 3
# States x totals the exact search may cost (about 12 us each on this machine: 4,000 is under 50 ms);
# a search that would cost more (three boxes left with a long tail of totals) leaves it to the lookahead.
EXACT_BUDGET = 4000
TIE = 1e-7  # chances closer than this are equal (the stored distributions are float32)
_FULL = int(flat_index(T.ALL_FILLED, 0, 0))
_PAD = 1200  # room past TOTALS for a distribution moved along by a total


@dataclass(frozen=True)
class Aim:
    """worth[x]: what finishing with total x is worth (non-decreasing, in [0, 1])."""

    worth: np.ndarray
    key: tuple  # the same key, the same worth: decisions are remembered by it

    def at(self, total: int) -> float:
        return float(self.worth[min(total, TOTALS - 1)])


def final_totals(outcomes: Outcomes | None, sheet: Scoresheet) -> np.ndarray | None:
    """The chance of each final total (TOTALS,) of a sheet between turns under the expected-total
    play; None where the table has no distribution for it."""
    pmf = np.zeros(TOTALS)
    if sheet.is_complete:
        pmf[sheet.total] = 1.0
        return pmf
    state = State.of(sheet)
    if outcomes is None or not outcomes.covers(state):
        return None
    lo, chances = outcomes.future(state)
    first = sheet.total + lo
    pmf[first : first + len(chances)] = chances[: TOTALS - first]
    return pmf


def first_place_worth(distributions: Sequence[np.ndarray]) -> np.ndarray:
    """W(x): the chance that a total x finishes first against opponents with these independent
    distributions of final totals; a tie for first shared evenly (as winprob.first_place)."""
    below = [np.concatenate([[0.0], np.cumsum(d)[:-1]]) for d in distributions]
    worth = np.zeros(TOTALS)
    k = len(distributions)
    for subset in range(1 << k):
        term = np.ones(TOTALS)
        tied = 0
        for j in range(k):
            if subset >> j & 1:
                term *= distributions[j]
                tied += 1
            else:
                term *= below[j]
        worth += term / (1 + tied)
    return np.clip(worth, 0.0, 1.0)


def against(outcomes: Outcomes | None, opponents: Sequence[Scoresheet]) -> Aim | None:
    """The aim of finishing first against these opponents' sheets (between turns); None if one of
    them has no distribution in the table, or there is no opponent."""
    if not opponents:
        return None
    dists = [final_totals(outcomes, s) for s in opponents]
    if any(d is None for d in dists):
        return None
    states = ((State.of(s), s.total) for s in opponents)
    key = ("first", tuple(sorted((st.mask, st.upper, st.penta, total) for st, total in states)))
    return Aim(first_place_worth(dists), key)


def against_field(field: np.ndarray, key: object) -> Aim:
    """The aim of beating as much of a field as possible: `field[x]` the share of the field that ends on
    x. Its worth is the share below x plus half the share on x (the expected matchpoints, and one minus
    the expected place's fraction)."""
    field = np.asarray(field, dtype=float)[:TOTALS]
    field = np.pad(field, (0, TOTALS - len(field)))
    field = field / field.sum()
    below = np.concatenate([[0.0], np.cumsum(field)[:-1]])
    return Aim(np.clip(below + field / 2, 0.0, 1.0), ("field", key))


@dataclass(frozen=True)
class Option:
    """One choice and the chance of winning (or the share of the field) it leaves."""

    chance: float
    keep: tuple[int, ...] | None = None
    box: Box | None = None
    points: int | None = None


class WinPlay:
    """Decisions that maximise an Aim. Remembers the last turns' final-roll values (a turn asks up to
    three times about the same state and aim)."""

    def __init__(self, strategy: Strategy, outcomes: Outcomes | None, exact_boxes: int = EXACT_BOXES):
        self.strategy = strategy
        self.outcomes = outcomes
        self.exact_boxes = exact_boxes
        self.exact_budget = EXACT_BUDGET
        self._finals: OrderedDict = OrderedDict()
        self._lock = threading.Lock()  # the clock's and the requests' threads share one player

    def can_judge(self, sheet: Scoresheet, aim: Aim | None) -> bool:
        """Whether this position can be weighed for the aim (else: the expected-total play)."""
        if aim is None or sheet.is_complete or self.outcomes is None:
            return False
        return len(sheet.open_boxes) <= self.exact_boxes or self.outcomes.min_layer <= len(sheet.boxes) + 1

    # -- the turn's values ------------------------------------------------------------------------

    def finals(self, sheet: Scoresheet, aim: Aim) -> tuple[np.ndarray, np.ndarray]:
        """(final (252,), by_box (13, 252)): each final roll's worth written in its best box, and in each
        box (-1 where it cannot be written)."""
        state = State.of(sheet)
        key = (state, sheet.total, aim.key)
        with self._lock:
            found = self._finals.get(key)
            if found is not None:
                self._finals.move_to_end(key)
                return found
        found = self._compute_finals(state, sheet.total, aim)
        with self._lock:
            self._finals[key] = found
            if len(self._finals) > 64:
                self._finals.popitem(last=False)
        return found

    def _compute_finals(self, state: State, base: int, aim: Aim) -> tuple[np.ndarray, np.ndarray]:
        w = writes(np.array([state.mask]), np.array([state.upper]), np.array([state.penta]))
        legal, gain, nxt = w.legal[:, :, 0], w.gain[:, :, 0], np.where(w.legal, w.next_state, _FULL)[:, :, 0]
        pairs, inverse = np.unique(nxt * 256 + gain, return_inverse=True)
        pair_next, pair_gain = np.divmod(pairs, 256)
        worth = None
        if T.N_BOXES - int(T.POPCOUNT[state.mask]) <= self.exact_boxes:
            worth = self._exact_pairs(state, base, aim, pair_next, pair_gain)
        if worth is None:
            worth = self._lookahead_pairs(base, aim, pair_next, pair_gain)
        by_box = np.where(legal, worth[inverse.reshape(legal.shape)], -1.0)
        return by_box.max(axis=0), by_box

    def _lookahead_pairs(self, base: int, aim: Aim, nxt: np.ndarray, gain: np.ndarray) -> np.ndarray:
        padded = np.concatenate([aim.worth, np.full(_PAD, aim.worth[-1])])
        out = np.empty(len(nxt))
        for i, (f, g) in enumerate(zip(nxt.tolist(), gain.tolist(), strict=True)):
            y = base + g
            if f // (T.N_UPPER * 2) == T.ALL_FILLED:  # the sheet is full: its total is final
                out[i] = padded[y]
                continue
            row = int(self.outcomes.row_of[f])
            if row < 0:
                raise KeyError("no distribution for a state this turn leads to")
            lo = int(self.outcomes.lo[row])
            chances = self.outcomes.data[self.outcomes.start[row] : self.outcomes.start[row + 1]]
            out[i] = float(np.dot(chances, padded[y + lo : y + lo + len(chances)]))
        return out

    def _exact_pairs(
        self, state: State, base: int, aim: Aim, nxt: np.ndarray, gain: np.ndarray
    ) -> np.ndarray | None:
        """The exact search of the rest of the game (None: over EXACT_BUDGET, the lookahead decides)."""
        worth = aim.worth
        changes = np.flatnonzero(np.diff(worth))
        top = int(changes[-1]) + 1 if len(changes) else 0  # worth is constant from `top` on
        width = max(1, top - base + 1)
        layers = reach.descendants(state.mask, state.upper, state.penta)
        if sum(len(m) for m, _u, _p in layers) * width > self.exact_budget and self.outcomes is not None:
            return None
        terminal = worth[np.minimum(base + np.arange(width), TOTALS - 1)]
        table = reach.PointTable(width, terminal)
        for m, u, p in layers:
            reach.solve_layer(table, m, u, p, chunk=16)
        rows = table.row_indices(reach.representative(nxt))
        return table.values[rows, np.minimum(gain, width - 1)]

    # -- decisions --------------------------------------------------------------------------------

    def keep_options(self, sheet: Scoresheet, dice: Sequence[int], rolls_left: int, aim: Aim) -> list[Option]:
        """Every distinct hold with its chance, best first (ties: the expected-total play's order)."""
        dice = validate_dice(dice)
        check_rolls_left(rolls_left)
        check_open(sheet)
        final, _by_box = self.finals(sheet, aim)
        turn = TurnValues.from_final(final)
        order = [c.keep for c in self.strategy.evaluate(sheet, dice, rolls_left)]
        keeps = np.array([T.KEEP_INDEX[k] for k in order])
        values = turn.keep_values(keeps, rolls_left)
        if rolls_left == 2:  # holding all five stops the turn: it is worth the best box now
            roll = T.ROLL_INDEX[tuple(sorted(dice))]
            values = np.where(T.KEEP_SIZE[keeps] == 5, final[roll], values)
        options = [Option(float(v), keep=k) for k, v in zip(order, values, strict=True)]
        return _best_first(options)

    def box_options(self, sheet: Scoresheet, dice: Sequence[int], aim: Aim) -> list[Option]:
        """Every legal box with its chance, best first (ties: the expected-total play's order)."""
        dice = validate_dice(dice)
        check_open(sheet)
        _final, by_box = self.finals(sheet, aim)
        roll = T.ROLL_INDEX[tuple(sorted(dice))]
        options = [
            Option(float(by_box[c.box.value, roll]), box=c.box, points=c.points)
            for c in self.strategy.evaluate(sheet, dice, 0)
        ]
        return _best_first(options)

    def start_chance(self, sheet: Scoresheet, aim: Aim) -> float:
        """The chance (or share) from the start of the sheet's next turn, played for the aim."""
        if sheet.is_complete:
            return aim.at(sheet.total)
        final, _by_box = self.finals(sheet, aim)
        one_left = best_subkeeps(T.TRANSITION @ final)
        return float(T.FIRST_ROLL @ best_subkeeps(T.TRANSITION @ one_left))


def _best_first(options: list[Option]) -> list[Option]:
    """Sorted by chance, best first; options within TIE of each other keep the order given (the
    expected-total play's)."""
    best = max(o.chance for o in options)
    top = [o for o in options if o.chance >= best - TIE]
    rest = sorted((o for o in options if o.chance < best - TIE), key=lambda o: -o.chance)
    return top + rest


def hint_figures(
    play: WinPlay, sheet: Scoresheet, dice: Sequence[int], rolls_left: int, opponents: Sequence[Scoresheet]
) -> dict:
    """The hint "best to win" beside "best for your total", JSON-ready: {"win": {"move", "chance"},
    "total": {"move", "chance"}}, a move {"keep": [...]} or {"box", "points", "stop"}; {} where the
    position cannot be judged (no tables for it)."""
    aim = against(play.outcomes, opponents)
    if not play.can_judge(sheet, aim):
        return {}
    dice = validate_dice(dice)
    boxes = play.box_options(sheet, dice, aim)
    box_chance = {o.box: o.chance for o in boxes}
    et_box = play.strategy.evaluate(sheet, dice, 0)[0]

    def box_move(box: Box, points: int, stop: bool) -> dict:
        return {"box": box.name, "points": points, "stop": stop}

    if rolls_left == 0:
        win = {"move": box_move(boxes[0].box, boxes[0].points, False), "chance": boxes[0].chance}
        total = {"move": box_move(et_box.box, et_box.points, False), "chance": box_chance[et_box.box]}
        return {"win": win, "total": total}
    keeps = play.keep_options(sheet, dice, rolls_left, aim)
    keep_chance = {o.keep: o.chance for o in keeps}
    best = keeps[0]
    if len(best.keep) == 5:
        win = {"move": box_move(boxes[0].box, boxes[0].points, True), "chance": boxes[0].chance}
    else:
        win = {"move": {"keep": list(best.keep)}, "chance": best.chance}
    et_keep = play.strategy.evaluate(sheet, dice, rolls_left)[0].keep
    if len(et_keep) == 5:
        total = {"move": box_move(et_box.box, et_box.points, True), "chance": box_chance[et_box.box]}
    else:
        total = {"move": {"keep": list(et_keep)}, "chance": keep_chance[et_keep]}
    return {"win": win, "total": total}
