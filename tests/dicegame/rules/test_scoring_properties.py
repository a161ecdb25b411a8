"""Hypothesis properties of the rules engine, and a state machine that plays whole games."""

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from dicegame.rules.scoring import (
    JOKER_LOWER_BOXES,
    LOWER_BOXES,
    UPPER_BOXES,
    Box,
    IllegalPlacement,
    Scoresheet,
    ordinary_score,
)

dice_st = st.lists(st.integers(1, 6), min_size=5, max_size=5)
penta_st = st.integers(1, 6).map(lambda v: [v] * 5)


ANY_PENTA_BOX = st.sampled_from([None, 0, 50])


@st.composite
def sheets(draw, penta_box=ANY_PENTA_BOX):
    """A sheet reachable in play: filled by placing random dice in random legal boxes."""
    sheet = Scoresheet()
    forced = draw(penta_box)
    if forced is not None:
        sheet = sheet.place(Box.PENTA, [6] * 5 if forced == 50 else [1, 2, 3, 4, 6])
    for _ in range(draw(st.integers(0, 12 - len(sheet.boxes)))):
        d = draw(dice_st)
        box = draw(st.sampled_from(sorted(sheet.options(d), key=lambda b: b.value)))
        sheet = sheet.place(box, d)
    return sheet


def parts(sheet: Scoresheet) -> int:
    upper = sum(sheet.boxes.get(b, 0) for b in UPPER_BOXES)
    lower = sum(sheet.boxes.get(b, 0) for b in LOWER_BOXES)
    return upper + (35 if upper >= 63 else 0) + lower + sheet.penta_bonus


@given(sheets(), dice_st)
def test_total_is_the_sum_of_its_parts(sheet, dice):
    assert sheet.total == parts(sheet)
    for box in sheet.options(dice):
        after = sheet.place(box, dice)
        assert after.total == parts(after)


@given(sheets(), dice_st)
def test_placement_fills_one_box_and_changes_no_other(sheet, dice):
    for box, points in sheet.options(dice).items():
        after = sheet.place(box, dice)
        assert after.boxes[box] == points
        assert {b: p for b, p in after.boxes.items() if b is not box} == dict(sheet.boxes)
        assert after.total >= sheet.total


@given(sheets(), dice_st)
def test_options_are_exactly_the_open_boxes_unless_joker(sheet, dice):
    options = sheet.options(dice)
    assert set(options) <= set(sheet.open_boxes)
    if not sheet.is_joker(dice):
        assert set(options) == set(sheet.open_boxes)
        assert all(options[b] == ordinary_score(b, dice) for b in options)
    if sheet.open_boxes:
        assert options, "some box must always take the roll"


@given(sheets(), dice_st)
def test_filled_boxes_are_always_refused(sheet, dice):
    for box in sheet.boxes:
        try:
            sheet.place(box, dice)
        except IllegalPlacement:
            continue
        raise AssertionError(f"{box} accepted twice")


@given(sheets(penta_box=st.just(50)), penta_st)
def test_penta_with_50_in_the_box_earns_exactly_100_and_obeys_the_forced_order(sheet, dice):
    assume(sheet.open_boxes)
    face = dice[0]
    own = Box.upper(face)
    options = sheet.options(dice)
    open_lower = [b for b in JOKER_LOWER_BOXES if b in sheet.open_boxes]
    if own in sheet.open_boxes:
        assert options == {own: 5 * face}
    elif open_lower:
        assert set(options) == set(open_lower)
    else:
        assert set(options) == set(sheet.open_boxes)
        assert set(options.values()) == {0}
    for box in options:
        after = sheet.place(box, dice)
        assert after.penta_bonus - sheet.penta_bonus == 100


@given(sheets(penta_box=st.sampled_from([None, 0])), penta_st)
def test_penta_without_50_in_the_box_is_ordinary(sheet, dice):
    # An open Penta box may still be filled with 50 by the random rest of the sheet: not this case.
    assume(sheet.boxes.get(Box.PENTA) != 50)
    options = sheet.options(dice)
    assert set(options) == set(sheet.open_boxes)
    for box in options:
        assert sheet.place(box, dice).penta_bonus == sheet.penta_bonus
    if Box.FULL_HOUSE in options:
        assert options[Box.FULL_HOUSE] == 0


@given(sheets(), dice_st, st.permutations(range(5)))
def test_dice_order_does_not_matter(sheet, dice, order):
    assert sheet.options(dice) == sheet.options([dice[i] for i in order])


@given(sheets())
def test_serialisation_round_trip(sheet):
    assert Scoresheet.from_dict(sheet.to_dict()) == sheet
    assert hash(Scoresheet.from_dict(sheet.to_dict())) == hash(sheet)


class WholeGame(RuleBasedStateMachine):
    """Plays 13 turns with random dice and random legal boxes, checking the sheet after every step."""

    def __init__(self):
        super().__init__()
        self.sheet = Scoresheet()
        self.pentas_scored_with_bonus = 0

    @precondition(lambda self: not self.sheet.is_complete)
    @rule(dice=dice_st, data=st.data())
    def place(self, dice, data):
        options = self.sheet.options(dice)
        box = data.draw(st.sampled_from(sorted(options, key=lambda b: b.value)))
        joker = self.sheet.is_joker(dice)
        before = self.sheet
        self.sheet = self.sheet.place(box, dice)
        assert len(self.sheet.boxes) == len(before.boxes) + 1
        if joker:
            self.pentas_scored_with_bonus += 1

    @precondition(lambda self: not self.sheet.is_complete)
    @rule(face=st.integers(1, 6), data=st.data())
    def place_a_penta(self, face, data):
        self.place(dice=[face] * 5, data=data)

    @invariant()
    def totals_add_up(self):
        assert self.sheet.total == parts(self.sheet)
        assert self.sheet.penta_bonus == 100 * self.pentas_scored_with_bonus

    @invariant()
    def complete_after_thirteen(self):
        assert self.sheet.is_complete == (len(self.sheet.boxes) == 13)


WholeGame.TestCase.settings = settings(max_examples=60, stateful_step_count=13, deadline=None)
TestWholeGame = WholeGame.TestCase
