"""How the simulated people of `fairplay.simulate` choose: styles of play written from the rules alone,
independently of the computer players (`dicegame.strategy.bots`), so that the fair-play model is checked
on people who do not think like our computers. Pure.

A style answers two questions: what to hold (sorted values; all five is stopping) and where to write.
Each sees a `View` of the decision: the sheet, the dice, the rolls left, the round, and (on demand) the
optimal strategy's choices, best first, for the styles that model judgement as noise on true values.

- `Boltzmann`, `Noisy`: judgement as noise on the true values (a choice taken with probability
  proportional to exp(value / T); the computers' own choices, misjudged).
- `Guide`: a classic strategy-guide player, by rules in priority order, with slips (another reasonable
  choice) and moments of feel (chasing a Penta on a pair, stopping on a good-enough score). Two guides:
  "the bonus first" and "patterns first", with their own rules and values.
- `Calculator`: strong on holds (the exact odds of the turn, on its own values of the boxes), weak on
  boxes (points now). `Judge`: weak on holds (the largest group, always), strong on boxes.
- `Biased`: a fixed bias on top of another style: always chasing the Penta, never writing a zero.
- `Thoughtful`: a guide who, on a share of decisions, thinks it through (good judgement).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import tables as T
from dicegame.strategy.analysis import keep_choices
from dicegame.strategy.decisions import Choice, Strategy
from dicegame.strategy.turn import TurnValues

UPPER = tuple(Box.upper(f) for f in range(1, 7))
STRAIGHTS = (Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT)


@dataclass
class View:
    """One decision as a person faces it. `choices` (the optimal strategy's, best first, holding all five
    valued as stopping, as the analysis values it) is worked out only when asked."""

    strategy: Strategy
    sheet: Scoresheet
    dice: tuple[int, ...]
    rolls_left: int
    round: int
    extra: dict = field(default_factory=dict)

    @cached_property
    def choices(self) -> list[Choice]:
        dice = tuple(sorted(self.dice))
        if self.rolls_left:
            return keep_choices(self.strategy, self.sheet, dice, self.rolls_left)
        return self.strategy.evaluate(self.sheet, dice, 0)

    @property
    def margin(self) -> float:
        c = self.choices
        return c[0].expected_total - c[1].expected_total if len(c) > 1 else 10.0

    @property
    def sorted_dice(self) -> tuple[int, ...]:
        return tuple(sorted(self.dice))

    @property
    def open(self) -> frozenset[Box]:
        return frozenset(self.sheet.open_boxes)


def target(choice: Choice):
    return choice.box if choice.box is not None else choice.keep


def boltzmann_index(rng: np.random.Generator, values, temperature: float) -> int:
    values = np.asarray(values, dtype=float)
    w = np.exp((values - values.max()) / temperature)
    return int(rng.choice(len(values), p=w / w.sum()))


# -- judgement as noise on the true values ------------------------------------------------------------


@dataclass(frozen=True)
class Boltzmann:
    """Each choice with probability proportional to exp(expected total / T), on holds and boxes alike (or
    at `box_temperature` on boxes)."""

    temperature: float
    box_temperature: float | None = None

    @property
    def label(self) -> str:
        boxes = "" if self.box_temperature is None else f", boxes T={self.box_temperature:g}"
        return f"Boltzmann T={self.temperature:g}{boxes}"

    def keep(self, rng, view: View):
        c = view.choices
        return c[boltzmann_index(rng, [x.expected_total for x in c], self.temperature)].keep

    def box(self, rng, view: View):
        c = view.choices
        t = self.box_temperature or self.temperature
        return c[boltzmann_index(rng, [x.expected_total for x in c], t)].box


@dataclass(frozen=True)
class Noisy:
    """The optimal strategy's values misjudged by normal noise of `noise` expected points, taking the best
    as it seems (a strong player who sometimes misjudges)."""

    noise: float

    @property
    def label(self) -> str:
        return f"optimal, misjudging by {self.noise:g}"

    def _pick(self, rng, view: View):
        c = view.choices
        values = np.array([x.expected_total for x in c]) + rng.normal(0.0, self.noise, len(c))
        return target(c[int(values.argmax())])

    keep = _pick
    box = _pick


# -- the dice as a person reads them ------------------------------------------------------------------


def group(dice, sheet: Scoresheet | None = None) -> tuple[int, int]:
    """(count, face) of the largest group of equal dice; ties go to a face whose upper box is open, then
    to the higher face."""
    counts = Counter(dice)
    open_ = set(sheet.open_boxes) if sheet is not None else set(UPPER)
    return max((n, Box.upper(f) in open_, f) for f, n in counts.items())[::2]


def run(dice) -> tuple[int, ...]:
    """The longest run of consecutive faces among the dice (ties: the higher run)."""
    faces = sorted(set(dice))
    best: list[int] = []
    current: list[int] = []
    for f in faces:
        current = [*current, f] if current and f == current[-1] + 1 else [f]
        if len(current) >= len(best):
            best = current
    return tuple(best)


def straight_draw(dice) -> tuple[int, ...]:
    """Four faces that a fifth die can make a large straight of (a run of four, or one with a gap
    inside, like 1-2-4-5), else the longest run."""
    faces = set(dice)
    for low in (2, 1):  # 2-3-4-5 first: open at both ends
        want = set(range(low, low + 5))
        if len(want & faces) == 4:
            return tuple(sorted(want & faces))
    return run(dice)


def unique(candidates) -> list:
    out = []
    for c in candidates:
        if c is not None and c not in out:
            out.append(c)
    return out


# -- the classic strategy guides -----------------------------------------------------------------------

# What each guide expects a box to score (its "par"), and what a zero there costs beyond that.
PAR_BONUS_FIRST = {
    Box.ONES: 3,
    Box.TWOS: 6,
    Box.THREES: 9,
    Box.FOURS: 12,
    Box.FIVES: 15,
    Box.SIXES: 18,
    Box.THREE_OF_A_KIND: 22,
    Box.FOUR_OF_A_KIND: 16,
    Box.FULL_HOUSE: 25,
    Box.SMALL_STRAIGHT: 30,
    Box.LARGE_STRAIGHT: 38,
    Box.CHANCE: 22,
    Box.PENTA: 18,
}
PAR_PATTERNS = {
    Box.ONES: 2,
    Box.TWOS: 5,
    Box.THREES: 8,
    Box.FOURS: 11,
    Box.FIVES: 14,
    Box.SIXES: 17,
    Box.THREE_OF_A_KIND: 20,
    Box.FOUR_OF_A_KIND: 12,
    Box.FULL_HOUSE: 22,
    Box.SMALL_STRAIGHT: 26,
    Box.LARGE_STRAIGHT: 30,
    Box.CHANCE: 24,
    Box.PENTA: 12,
}


@dataclass(frozen=True)
class Guide:
    """A strategy guide's rules. `patterns`: the "patterns first" guide (straights and full houses before
    groups, the lower section early, Chance spent freely) rather than "the bonus first" (groups for the
    upper bonus, straights only from four in a row, Chance kept for late). `slip`: the share of
    decisions where the person takes the next reasonable choice by the same rules; `feel`: the share of
    holds made on feel (a pair kept to chase a Penta, or stopping on a score that looks good enough)."""

    patterns: bool = False
    slip: float = 0.05
    feel: float = 0.05

    @property
    def label(self) -> str:
        name = "guide: patterns first" if self.patterns else "guide: the bonus first"
        return f"{name} (slips {self.slip:.0%}, feel {self.feel:.0%})"

    @property
    def par(self) -> dict:
        return PAR_PATTERNS if self.patterns else PAR_BONUS_FIRST

    # -- holds --

    def keeps(self, view: View) -> list[tuple[tuple[int, ...], float]]:
        """The holds the guide's rules consider, with how much the guide likes each, best first."""
        dice, open_, sheet = view.sorted_dice, view.open, view.sheet
        counts = Counter(dice)
        n, face = group(dice, sheet)
        straight, draw = run(dice), straight_draw(dice)
        pat = self.patterns
        groups_wanted = bool(open_ & {Box.THREE_OF_A_KIND, Box.FOUR_OF_A_KIND, Box.PENTA})
        cands: list[tuple[tuple[int, ...], float]] = []
        if n == 5:
            return [(dice, 100.0)]
        if len(straight) == 5 and Box.LARGE_STRAIGHT in open_:
            cands.append((dice, 30.0))
        if len(straight) >= 4 and Box.SMALL_STRAIGHT in open_:
            cands.append((dice, 14.0 if Box.LARGE_STRAIGHT not in open_ else 6.0))
        if n == 3 and len(counts) == 2 and Box.FULL_HOUSE in open_:
            cands.append((dice, 12.0 if pat else 9.0))
        # Groups of equal dice: for the upper box of their face, the kinds and the Penta.
        for f, k in counts.items():
            if k < 2 and f != face:
                continue
            worth = 2.5 * k + 0.2 * f
            worth += (4.0 if not pat else 2.0) if Box.upper(f) in open_ else 0.0
            worth += 2.0 if groups_wanted else -3.0
            if Box.upper(f) not in open_ and not groups_wanted and Box.FULL_HOUSE not in open_:
                worth -= 4.0
            cands.append(((f,) * k, worth))
        pairs = sorted(f for f, k in counts.items() if k == 2)
        if len(pairs) == 2 and Box.FULL_HOUSE in open_:
            cands.append((tuple(sorted(pairs * 2)), 9.0 if pat else 7.0))
        if len(draw) == 4 and Box.LARGE_STRAIGHT in open_:
            cands.append((draw, 11.0 if pat else 8.5))
        elif len(draw) == 4 and Box.SMALL_STRAIGHT in open_:
            cands.append((draw, 8.0 if pat else 6.0))
        if len(straight) == 3 and open_ & set(STRAIGHTS):
            cands.append((straight, 7.0 if pat else 3.5))
        if Box.CHANCE in open_ or any(Box.upper(f) in open_ for f in (5, 6)):
            high = tuple(f for f in dice if f >= 5)
            if high:
                cands.append((high, 2.0 + (1.0 if Box.CHANCE in open_ else 0.0)))
        cands.append(((), 0.0))
        cands.sort(key=lambda c: -c[1])
        return [
            (keep, worth) for i, (keep, worth) in enumerate(cands) if keep not in [k for k, _ in cands[:i]]
        ]

    def feel_keep(self, view: View):
        """A hold on feel: a pair kept to chase the Penta, or stopping on a box that scores well now."""
        dice = view.sorted_dice
        n, face = group(dice, view.sheet)
        if n >= 2:
            return (face,) * n
        options = view.sheet.options(dice)
        if options and max(options.values()) >= 25:
            return dice
        return None

    def keep(self, rng, view: View):
        cands = self.keeps(view)
        u = rng.random()
        if u < self.feel:
            felt = self.feel_keep(view)
            if felt is not None:
                return felt
        return self._slip(u, cands)

    def _slip(self, u: float, cands) -> object:
        """The first choice, or on a slip the next one the guide finds nearly as good."""
        close = [c for c, worth in cands[1:] if worth >= cands[0][1] - 4.0]
        return close[0] if u > 1 - self.slip and close else cands[0][0]

    # -- boxes --

    def box_value(self, view: View, box: Box, points: int) -> float:
        par = self.par[box]
        value = points - par
        sheet = view.sheet
        late = view.round >= 10
        if box.is_upper and sheet.upper_bonus == 0:
            # Three of a face keeps the upper bonus on course: its shortfall counts half again.
            value += (points - par) * (0.25 if self.patterns else 0.5)
            if sheet.upper_total + points >= 63 > sheet.upper_total:
                value += 20
        if points == 0:
            sacrifice = {
                Box.ONES: 0,
                Box.TWOS: 2,
                Box.PENTA: 0 if self.patterns else (8 if view.round < 8 else 1),
                Box.FOUR_OF_A_KIND: 4,
                Box.LARGE_STRAIGHT: 10 if not late else 2,
                Box.SMALL_STRAIGHT: 12,
                Box.FULL_HOUSE: 8,
                Box.CHANCE: 25,
            }.get(box, 6)
            value -= sacrifice
        if box is Box.CHANCE and not self.patterns and view.round < 8:
            value -= 6  # the bonus-first guide keeps Chance for later
        if box is Box.PENTA and points == 50:
            value += 100
        return value

    def boxes(self, view: View) -> list[tuple[Box, float]]:
        options = view.sheet.options(view.dice)
        return sorted(((b, self.box_value(view, b, p)) for b, p in options.items()), key=lambda c: -c[1])

    def box(self, rng, view: View):
        return self._slip(rng.random(), self.boxes(view))


# -- strong on one kind of decision, weak on the other -------------------------------------------------


@lru_cache(maxsize=512)
def _calculator_turn(mask: int, upper: int, penta: int) -> TurnValues:
    """The turn's values when every final roll is worth its best box by the guide's values (points over
    the box's par, the upper bonus in sight): the exact odds of the turn on a person's own values."""
    open_boxes = [b for b in Box if not mask >> b.value & 1]
    score = T.SCORE[:, [b.value for b in open_boxes]].astype(float)
    par = np.array([PAR_BONUS_FIRST[b] for b in open_boxes], dtype=float)
    value = score - par
    is_upper = np.array([b.is_upper for b in open_boxes])
    value[:, is_upper] += np.where(
        score[:, is_upper] >= par[is_upper], 4.0, -0.5 * (par - score)[:, is_upper]
    )
    value[score == 0] -= 6.0
    final = value.max(axis=1)
    if penta:
        final[T.PENTA_ROLLS] += 100.0
    return TurnValues.from_final(final)


@dataclass(frozen=True)
class Calculator:
    """Holds by the exact odds of the turn (on its own values of the boxes); boxes by the most points now,
    a zero where it hurts least."""

    @property
    def label(self) -> str:
        return "strong holds, weak boxes"

    def keep(self, rng, view: View):
        sheet = view.sheet
        mask = sum(1 << b.value for b in sheet.boxes)
        upper = min(63, sheet.upper_total)
        tv = _calculator_turn(mask, upper, int(sheet.penta_box_full))
        return T.KEEPS[tv.best_keep(view.sorted_dice, view.rolls_left)]

    def box(self, rng, view: View):
        options = view.sheet.options(view.dice)
        cheap = [Box.ONES, Box.TWOS, Box.PENTA, Box.THREES, Box.FOUR_OF_A_KIND]
        best = max(options.values())
        if best == 0:
            return next((b for b in cheap if b in options), next(iter(options)))
        return max(options, key=lambda b: (options[b], -b.value))


@dataclass(frozen=True)
class Judge:
    """Holds the largest group every time (all different: the fives and sixes); boxes with good judgement
    (Boltzmann at `temperature` on the true values)."""

    temperature: float = 0.5

    @property
    def label(self) -> str:
        return f"weak holds, strong boxes (T={self.temperature:g})"

    def keep(self, rng, view: View):
        dice = view.sorted_dice
        n, face = group(dice, view.sheet)
        if n == 5 or (len(run(dice)) == 5 and view.open & set(STRAIGHTS)):
            return dice
        if n >= 2:
            return (face,) * n
        return tuple(f for f in dice if f >= 5)

    def box(self, rng, view: View):
        c = view.choices
        return c[boltzmann_index(rng, [x.expected_total for x in c], self.temperature)].box


# -- fixed biases --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Biased:
    """`base`'s play with a fixed bias. "penta": always keeps its largest group of equal dice (two or more),
    whatever else the dice offer, and never writes 0 in the Penta box while another box takes the dice.
    "no-zero": never writes 0 while a box scores. On a base that judges by the true values (Boltzmann),
    the bias restricts its choices; on a guide, it overrides the rule."""

    base: object
    bias: str

    @property
    def label(self) -> str:
        name = {"penta": "always chasing the Penta", "no-zero": "never sacrificing"}[self.bias]
        return f"{self.base.label}, {name}"

    def _allowed(self, view: View, choice: Choice) -> bool:
        if choice.box is not None:
            options = view.sheet.options(view.dice)
            if self.bias == "no-zero" or choice.box is Box.PENTA:
                return choice.points > 0 or max(options.values()) == 0
            return True
        if self.bias != "penta":
            return True
        n, face = group(view.dice, view.sheet)
        return n < 2 or choice.keep.count(face) == n

    def keep(self, rng, view: View):
        if isinstance(self.base, Boltzmann):
            return self._restricted(rng, view, self.base.temperature)
        keep = self.base.keep(rng, view)
        n, face = group(view.dice, view.sheet)
        if self.bias == "penta" and n >= 2 and keep.count(face) < n and len(keep) < 5:
            return (face,) * n
        return keep

    def box(self, rng, view: View):
        if isinstance(self.base, Boltzmann):
            return self._restricted(rng, view, self.base.box_temperature or self.base.temperature)
        box = self.base.box(rng, view)
        options = view.sheet.options(view.dice)
        if options[box] == 0 and max(options.values()) > 0 and (self.bias == "no-zero" or box is Box.PENTA):
            return max(options, key=lambda b: (options[b], -b.value))
        return box

    def _restricted(self, rng, view: View, temperature: float):
        c = [x for x in view.choices if self._allowed(view, x)] or view.choices
        return target(c[boltzmann_index(rng, [x.expected_total for x in c], temperature)])


@dataclass(frozen=True)
class Thoughtful:
    """A guide who thinks a decision through on a share of them (Boltzmann at `temperature` on the true
    values), and follows the rules on the rest."""

    guide: Guide
    think: float = 0.3
    temperature: float = 1.0

    @property
    def label(self) -> str:
        return f"{self.guide.label}, thinking {self.think:.0%} at T={self.temperature:g}"

    def keep(self, rng, view: View):
        if rng.random() < self.think:
            return Boltzmann(self.temperature).keep(rng, view)
        return self.guide.keep(rng, view)

    def box(self, rng, view: View):
        if rng.random() < self.think:
            return Boltzmann(self.temperature).box(rng, view)
        return self.guide.box(rng, view)


@dataclass(frozen=True)
class Mixed:
    """Holds by one style, boxes by another."""

    holds: object
    boxes: object

    @property
    def label(self) -> str:
        return f"holds: {self.holds.label}; boxes: {self.boxes.label}"

    def keep(self, rng, view: View):
        return self.holds.keep(rng, view)

    def box(self, rng, view: View):
        return self.boxes.box(rng, view)
