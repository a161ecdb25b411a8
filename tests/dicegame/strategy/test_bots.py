"""Computer players: always legal, and stronger as they should be."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import STRENGTHS, Bot
from dicegame.strategy.simulate import held_flags, play_game, seed_from_number, simulate
from dicegame.strategy.turn import is_subkeep

# The session-wide `strategy` fixture (tests/conftest.py may import it as well).


def _box_points(box: Box) -> st.SearchStrategy[int]:
    if box.is_upper:
        return st.integers(0, 5).map(lambda n: n * box.face)
    fixed = {Box.FULL_HOUSE: 25, Box.SMALL_STRAIGHT: 30, Box.LARGE_STRAIGHT: 40, Box.PENTA: 50}
    if box in fixed:
        return st.sampled_from([0, fixed[box]])
    return st.one_of(st.just(0), st.integers(5, 30))


@st.composite
def open_sheets(draw) -> Scoresheet:
    """A sheet any game could reach, with at least one open box."""
    filled = draw(st.sets(st.sampled_from(list(Box)), max_size=len(Box) - 1))
    boxes = {box: draw(_box_points(box)) for box in filled}
    bonus = draw(st.integers(0, 3)) * 100 if boxes.get(Box.PENTA) == 50 else 0
    return Scoresheet(boxes, bonus)


dice_rolls = st.one_of(
    st.integers(1, 6).map(lambda v: (v,) * 5),  # Pentas often, to exercise the forced joker
    st.tuples(*[st.integers(1, 6)] * 5),
)


@pytest.fixture(scope="module")
def bots(strategy):
    return {name: Bot(name, strategy=strategy if name == "hard" else None) for name in STRENGTHS}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sheet=open_sheets(), dice=dice_rolls, strength=st.sampled_from(STRENGTHS))
def test_bots_only_write_in_legal_boxes(bots, sheet, dice, strength):
    box = bots[strength].choose_box(sheet, dice)
    assert box in sheet.options(dice)
    sheet.place(box, dice)  # the rules engine accepts it


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sheet=open_sheets(),
    dice=dice_rolls,
    strength=st.sampled_from(STRENGTHS),
    rolls_left=st.sampled_from([1, 2]),
)
def test_bots_only_hold_dice_they_have(bots, sheet, dice, strength, rolls_left):
    keep = bots[strength].choose_keep(sheet, dice, rolls_left)
    assert is_subkeep(keep, dice)
    assert sum(held_flags(dice, keep)) == len(keep)


def test_unknown_strength_lists_the_valid_ones():
    with pytest.raises(ValueError, match="easy, medium, hard"):
        Bot("nightmare")


def test_bots_validate_input(bots):
    with pytest.raises(ValueError, match="rolls_left"):
        bots["easy"].choose_keep(Scoresheet(), (1, 2, 3, 4, 5), 0)
    with pytest.raises(ValueError, match="die"):
        bots["medium"].choose_box(Scoresheet(), (1, 2, 3, 4, 9))


def test_greedy_takes_the_most_points_now(bots):
    assert bots["easy"].choose_box(Scoresheet(), (6, 6, 6, 5, 5)) is Box.THREE_OF_A_KIND  # 28 beats 25
    assert bots["easy"].choose_keep(Scoresheet(), (2, 2, 5, 5, 5), 2) == (2, 2, 5, 5, 5)  # a full house
    assert bots["easy"].choose_keep(Scoresheet(), (2, 2, 4, 5, 5), 2) == (5, 5)


def test_a_game_fills_every_box(bots):
    sheet = play_game(bots["hard"], seed_from_number(3), 0)
    assert sheet.is_complete


def test_stronger_bots_score_more(bots):
    seed = seed_from_number(2024)
    results = {name: simulate(name, 300, seed, bot=bots[name]) for name in ("easy", "medium", "hard")}
    assert results["hard"].mean > results["easy"].mean
    assert results["medium"].mean > results["easy"].mean
    assert 230 < results["hard"].mean < 280  # 254.5 +- 3.4 standard errors of 300 games
    for summary in results.values():
        assert summary.games == 300
        assert summary.percentiles[5] <= summary.percentiles[50] <= summary.percentiles[95]
        assert 0 <= summary.upper_bonus_rate <= 1 and 0 <= summary.penta_rate <= 1
