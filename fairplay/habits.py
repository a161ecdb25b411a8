"""The rules of thumb the fair-play model grants every honest player. Pure.

People play by rules of thumb as much as by judgement, and each person has their own. No model can know a
person's rules, but most rules are built from the same few ideas: keep the largest group, keep a
straight, keep what scores now, aim for the upper bonus, write where it scores most, never waste a
good box. So the model does not bet on one rule (our medium computer's, as it did): it asks a panel of
simple rules, each built from one of those ideas, and a choice that many of them name is a choice that
a person with rules of thumb makes often (`share`). A rule-of-thumb player is then explained by the
panel where their rules agree with it, whatever the solver thinks of that choice; a solver's user is
not, where the solver disagrees with every rule.

The panel is written from the rules of the game alone, apart from the simulated people it is checked on
(`fairplay.players`), and apart from the computer players but for the two the model always had (the
medium computer's choice, the points-now choice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy.bots import greedy_policy, heuristic_strategy

STRAIGHTS = frozenset({Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT})
KINDS = frozenset({Box.THREE_OF_A_KIND, Box.FOUR_OF_A_KIND, Box.PENTA})
# What a box usually scores, as a rule of thumb ("par").
PAR = {
    Box.ONES: 3,
    Box.TWOS: 6,
    Box.THREES: 9,
    Box.FOURS: 12,
    Box.FIVES: 15,
    Box.SIXES: 18,
    Box.THREE_OF_A_KIND: 22,
    Box.FOUR_OF_A_KIND: 15,
    Box.FULL_HOUSE: 25,
    Box.SMALL_STRAIGHT: 30,
    Box.LARGE_STRAIGHT: 40,
    Box.CHANCE: 22,
    Box.PENTA: 20,
}
# Where a zero hurts least, in that order.
CHEAP = (Box.ONES, Box.PENTA, Box.TWOS, Box.FOUR_OF_A_KIND, Box.LARGE_STRAIGHT, Box.THREES)


# -- the dice -----------------------------------------------------------------------------------------


def largest(dice: tuple[int, ...], faces=None) -> tuple[int, ...]:
    """All the dice of the most common face (among `faces`; ties: the higher face)."""
    counts = Counter(d for d in dice if faces is None or d in faces)
    if not counts:
        return ()
    n, face = max((n, f) for f, n in counts.items())
    return (face,) * n


def longest_run(dice: tuple[int, ...]) -> tuple[int, ...]:
    faces = sorted(set(dice))
    best: list[int] = []
    current: list[int] = []
    for f in faces:
        current = [*current, f] if current and f == current[-1] + 1 else [f]
        if len(current) >= len(best):
            best = current
    return tuple(best)


def made(dice: tuple[int, ...], sheet: Scoresheet) -> bool:
    """The dice already make a pattern whose box is open (a straight, a full house, a Penta)."""
    options = sheet.options(dice)
    patterns = (Box.FULL_HOUSE, Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT, Box.PENTA)
    return any(options.get(b, 0) > 0 for b in patterns)


# -- holds ----------------------------------------------------------------------------------------------


def hold_largest(sheet, dice, rolls_left):
    return largest(dice)


def hold_for_the_bonus(sheet, dice, rolls_left):
    faces = {f for f in range(1, 7) if Box.upper(f) in sheet.open_boxes}
    return largest(dice, faces) or largest(dice)


def hold_what_is_made(sheet, dice, rolls_left):
    return dice if made(dice, sheet) else largest(dice)


def hold_straights(sheet, dice, rolls_left):
    run = longest_run(dice)
    if len(run) >= 3 and set(sheet.open_boxes) & STRAIGHTS:
        return run
    return largest(dice)


def hold_straight_draw(sheet, dice, rolls_left):
    """Four of a large straight, a gap inside or not (1-2-4-5 waits for the 3), while it is open."""
    faces = set(dice)
    if Box.LARGE_STRAIGHT in sheet.open_boxes:
        for low in (2, 1):
            want = set(range(low, low + 5)) & faces
            if len(want) >= 4:
                return tuple(sorted(want))
    return hold_straights(sheet, dice, rolls_left)


def hold_high(sheet, dice, rolls_left):
    group = largest(dice)
    return group if len(group) >= 3 else tuple(d for d in dice if d >= 4)


def hold_pairs(sheet, dice, rolls_left):
    counts = Counter(dice)
    pairs = sorted(f for f, n in counts.items() if n >= 2)
    if Box.FULL_HOUSE in sheet.open_boxes and len(pairs) == 2:
        return tuple(sorted(d for d in dice if d in pairs))
    return largest(dice)


def hold_lower_first(sheet, dice, rolls_left):
    open_ = set(sheet.open_boxes)
    run = longest_run(dice)
    if len(run) >= 4 and open_ & STRAIGHTS:
        return run
    group = largest(dice)
    if len(group) >= 2 and open_ & KINDS:
        return group
    return largest(dice, {f for f in range(1, 7) if Box.upper(f) in open_}) or group


def hold_when_good(sheet, dice, rolls_left):
    options = sheet.options(dice)
    return dice if options and max(options.values()) >= 25 else largest(dice)


def hold_like_the_medium_computer(sheet, dice, rolls_left):
    return heuristic_strategy().best_keep(sheet, dice, rolls_left)


def hold_for_points_now(sheet, dice, rolls_left):
    return greedy_policy().best_keep(sheet, dice, rolls_left)


HOLDS: tuple[Callable, ...] = (
    hold_largest,
    hold_for_the_bonus,
    hold_what_is_made,
    hold_straights,
    hold_straight_draw,
    hold_high,
    hold_pairs,
    hold_lower_first,
    hold_when_good,
    hold_like_the_medium_computer,
    hold_for_points_now,
)


# -- boxes ----------------------------------------------------------------------------------------------


def _most(options: dict[Box, int], key=None) -> Box:
    return max(options, key=key or (lambda b: (options[b], -b.value)))


def _zero_where_cheap(options: dict[Box, int]) -> Box | None:
    if max(options.values()) > 0:
        return None
    return next((b for b in CHEAP if b in options), None)


def box_most_points(sheet, dice, options):
    return _most(options)


def box_over_par(sheet, dice, options):
    return _zero_where_cheap(options) or _most(options, lambda b: (options[b] - PAR[b], -b.value))


def box_upper_when_three(sheet, dice, options):
    upper = [b for b in options if b.is_upper and options[b] >= 3 * b.face]
    if upper:
        return max(upper, key=lambda b: b.face)
    return _zero_where_cheap(options) or _most(options)


def box_patterns_first(sheet, dice, options):
    for b in (Box.PENTA, Box.LARGE_STRAIGHT, Box.SMALL_STRAIGHT, Box.FULL_HOUSE):
        if options.get(b, 0) > 0:
            return b
    return _zero_where_cheap(options) or _most(options)


def box_no_waste(sheet, dice, options):
    """The most points, but a zero only in the cheapest box, and Chance only when little else scores."""
    scoring = {b: p for b, p in options.items() if p > 0 and (b is not Box.CHANCE or len(options) <= 3)}
    if not scoring:
        return next((b for b in CHEAP if b in options), _most(options))
    return _most(scoring)


def box_bonus_first(sheet, dice, options):
    upper = [b for b in options if b.is_upper and options[b] >= 3 * b.face]
    if upper and sheet.upper_bonus == 0:
        return max(upper, key=lambda b: options[b])
    lower = {b: p for b, p in options.items() if not b.is_upper and p > 0}
    return _most(lower) if lower else box_over_par(sheet, dice, options)


def box_like_the_medium_computer(sheet, dice, options):
    return heuristic_strategy().best_box(sheet, dice)


BOXES: tuple[Callable, ...] = (
    box_most_points,
    box_over_par,
    box_upper_when_three,
    box_patterns_first,
    box_no_waste,
    box_bonus_first,
    box_like_the_medium_computer,
)


def rules(kind_is_box: bool) -> int:
    return len(BOXES) if kind_is_box else len(HOLDS)


def panel(sheet: Scoresheet, dice: tuple[int, ...], rolls_left: int) -> Counter:
    """How many of the panel's rules name each choice here (a hold as sorted values, or a Box)."""
    dice = tuple(sorted(dice))
    if rolls_left:
        return Counter(tuple(sorted(rule(sheet, dice, rolls_left))) for rule in HOLDS)
    options = sheet.options(dice)
    return Counter(rule(sheet, dice, options) for rule in BOXES)


def agreeing(sheet: Scoresheet, dice: tuple[int, ...], rolls_left: int, taken) -> int:
    """Which of the panel's rules (HOLDS before the last roll, else BOXES) take `taken` here: bit i is
    rule i."""
    dice = tuple(sorted(dice))
    if rolls_left:
        picks = [tuple(sorted(rule(sheet, dice, rolls_left))) for rule in HOLDS]
    else:
        options = sheet.options(dice)
        picks = [rule(sheet, dice, options) for rule in BOXES]
    return sum(1 << i for i, pick in enumerate(picks) if pick == taken)
