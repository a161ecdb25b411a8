"""The rules engine against RULES.md: its worked examples and every placement in examples.json."""

import json

import pytest

from dicegame.rules.scoring import Box, IllegalPlacement, InvalidDice, Scoresheet
from tests.support import DATA

# A copy of the rules' examples.json, kept in the repository so a clone runs its tests on its own.
EXAMPLES = json.loads((DATA / "examples.json").read_text())


def sheet_from(boxes: dict[str, int], penta_bonus: int = 0) -> Scoresheet:
    return Scoresheet({Box[name]: points for name, points in boxes.items()}, penta_bonus)


def by_name(mapping) -> dict[str, int]:
    return {box.name: points for box, points in mapping.items()}


def test_examples_file_is_there():
    assert len(EXAMPLES) >= 50


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e['dice']}->{e['place']}")
def test_examples_json_options_placement_and_refusals(example):
    sheet = sheet_from(example["boxes"], example["penta_bonus"])
    assert by_name(sheet.options(example["dice"])) == example["options"]

    after = sheet.place(Box[example["place"]], example["dice"])
    expected = example["after"]
    assert by_name(after.boxes) == expected["boxes"]
    assert after.penta_bonus == expected["penta_bonus"]
    assert after.upper_total == expected["upper_total"]
    assert after.upper_bonus == expected["upper_bonus"]
    assert after.total == expected["total"]

    for name in example["illegal"]:
        with pytest.raises(IllegalPlacement):
            sheet.place(Box[name], example["dice"])
    # Refusals and placements leave the original sheet as it was.
    assert sheet == sheet_from(example["boxes"], example["penta_bonus"])


def test_box_order_and_names():
    assert [b.name for b in Box] == [
        "ONES",
        "TWOS",
        "THREES",
        "FOURS",
        "FIVES",
        "SIXES",
        "THREE_OF_A_KIND",
        "FOUR_OF_A_KIND",
        "FULL_HOUSE",
        "SMALL_STRAIGHT",
        "LARGE_STRAIGHT",
        "CHANCE",
        "PENTA",
    ]


def test_worked_example_ordinary_roll_on_empty_sheet():
    options = Scoresheet().options([1, 1, 3, 4, 6])
    scoring = {b: p for b, p in options.items() if p}
    assert scoring == {Box.ONES: 2, Box.THREES: 3, Box.FOURS: 4, Box.SIXES: 6, Box.CHANCE: 15}
    assert set(options) == set(Box)


def test_penta_with_its_upper_box_open_goes_there_only():
    sheet = Scoresheet({Box.PENTA: 50})
    assert sheet.options([4] * 5) == {Box.FOURS: 20}
    after = sheet.place(Box.FOURS, [4] * 5)
    assert after.penta_bonus == 100
    assert after.total == 50 + 20 + 100


def test_penta_joker_full_house_scores_25_with_bonus():
    sheet = Scoresheet({Box.PENTA: 50, Box.FOURS: 8})
    options = sheet.options([4] * 5)
    assert options[Box.FULL_HOUSE] == 25
    assert options[Box.SMALL_STRAIGHT] == 30
    assert options[Box.LARGE_STRAIGHT] == 40
    assert options[Box.THREE_OF_A_KIND] == options[Box.FOUR_OF_A_KIND] == options[Box.CHANCE] == 20
    assert not any(b.is_upper for b in options)
    assert sheet.place(Box.FULL_HOUSE, [4] * 5).penta_bonus == 100


def test_penta_joker_with_lower_section_full_takes_an_upper_box_for_zero():
    lower = {Box.THREE_OF_A_KIND: 20, Box.FOUR_OF_A_KIND: 20, Box.FULL_HOUSE: 25, Box.SMALL_STRAIGHT: 30}
    sheet = Scoresheet({**lower, Box.LARGE_STRAIGHT: 40, Box.CHANCE: 22, Box.PENTA: 50, Box.FOURS: 12})
    assert sheet.options([4] * 5) == {b: 0 for b in (Box.ONES, Box.TWOS, Box.THREES, Box.FIVES, Box.SIXES)}
    after = sheet.place(Box.ONES, [4] * 5)
    assert after.boxes[Box.ONES] == 0
    assert after.penta_bonus == 100


def test_penta_after_sacrificed_penta_box_is_an_ordinary_roll():
    sheet = Scoresheet({Box.PENTA: 0})
    options = sheet.options([4] * 5)
    assert options[Box.LARGE_STRAIGHT] == 0
    assert options[Box.FULL_HOUSE] == 0
    assert options[Box.FOUR_OF_A_KIND] == 20
    assert options[Box.FOURS] == 20
    assert sheet.place(Box.FOUR_OF_A_KIND, [4] * 5).penta_bonus == 0


def test_upper_bonus_at_63():
    sheet = Scoresheet({Box.ONES: 3, Box.TWOS: 6, Box.THREES: 9, Box.FOURS: 16, Box.FIVES: 20})
    assert sheet.upper_total == 54
    assert sheet.upper_bonus == 0
    after = sheet.place(Box.SIXES, [6, 6, 1, 2, 3])
    assert after.upper_total == 66
    assert after.upper_bonus == 35


def test_upper_bonus_example_from_the_rules():
    sheet = Scoresheet({Box.ONES: 2, Box.TWOS: 8, Box.THREES: 12, Box.FOURS: 20, Box.FIVES: 20})
    assert sheet.upper_total == 62
    after = sheet.place(Box.SIXES, [6, 6, 2, 3, 4])
    assert after.upper_total == 74
    assert after.upper_bonus == 35


def test_five_equal_dice_are_not_a_full_house():
    assert Scoresheet().options([3] * 5)[Box.FULL_HOUSE] == 0
    assert Scoresheet().options([3, 3, 3, 5, 5])[Box.FULL_HOUSE] == 25


@pytest.mark.parametrize(
    ("dice", "small", "large"),
    [
        ([1, 2, 3, 4, 6], 30, 0),
        ([2, 3, 4, 5, 5], 30, 0),
        ([3, 4, 5, 6, 1], 30, 0),
        ([1, 2, 3, 4, 5], 30, 40),
        ([6, 5, 4, 3, 2], 30, 40),
        ([1, 2, 3, 5, 6], 0, 0),
    ],
)
def test_straights(dice, small, large):
    options = Scoresheet().options(dice)
    assert options[Box.SMALL_STRAIGHT] == small
    assert options[Box.LARGE_STRAIGHT] == large


def test_filled_box_is_refused():
    sheet = Scoresheet({Box.CHANCE: 20})
    with pytest.raises(IllegalPlacement, match="already filled"):
        sheet.place(Box.CHANCE, [1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    "dice",
    [
        [1, 2, 3, 4],
        [1, 2, 3, 4, 5, 6],
        [0, 1, 2, 3, 4],
        [1, 2, 3, 4, 7],
        [1, 2, 3, 4, "5"],
        [1, 2, 3, 4, True],
        None,
    ],
)
def test_bad_dice_are_refused(dice):
    with pytest.raises(InvalidDice):
        Scoresheet().place(Box.CHANCE, dice)
    with pytest.raises(IllegalPlacement):
        Scoresheet().options(dice)


def test_sacrifice_is_detected():
    sheet = Scoresheet({b: 0 for b in Box if b not in (Box.SIXES, Box.LARGE_STRAIGHT)})
    assert sheet.must_sacrifice([1, 1, 3, 4, 5])
    assert not sheet.must_sacrifice([6, 1, 3, 4, 5])


@pytest.mark.parametrize(
    ("boxes", "bonus"),
    [
        ({Box.ONES: 6}, 0),
        ({Box.TWOS: 3}, 0),
        ({Box.FULL_HOUSE: 20}, 0),
        ({Box.PENTA: 40}, 0),
        ({Box.CHANCE: 50}, 0),
        ({}, 100),
        ({Box.PENTA: 50}, 150),
    ],
)
def test_impossible_sheets_are_refused(boxes, bonus):
    with pytest.raises(ValueError):
        Scoresheet(boxes, bonus)


def test_sheet_is_immutable():
    sheet = Scoresheet({Box.ONES: 3})
    with pytest.raises(AttributeError):
        sheet.penta_bonus = 100
    with pytest.raises(TypeError):
        sheet.boxes[Box.TWOS] = 4


def test_round_trip_through_dict():
    sheet = Scoresheet({Box.PENTA: 50, Box.FOURS: 20}, 100)
    assert Scoresheet.from_dict(sheet.to_dict()) == sheet
    assert sheet.to_dict() == {"boxes": {"FOURS": 20, "PENTA": 50}, "penta_bonus": 100}
    with pytest.raises(ValueError, match="unknown box"):
        Scoresheet.from_dict({"boxes": {"SEVENS": 7}})
