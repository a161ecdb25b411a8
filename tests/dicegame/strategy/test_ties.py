"""Optimal play is one line: where two choices are worth the same expected total (within `turn.TIE`), a
fixed rule picks one (docs/fair-dice.md), so the par of the daily challenge and of a tournament round is
unique, whatever float rounding another solver's table has."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import tables as T
from dicegame.strategy.analysis import keep_choices, optimal_line
from dicegame.strategy.simulate import seed_from_number
from dicegame.strategy.turn import TIE, TurnValues, ranked


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return Strategy.shared()


def only_open(*boxes: Box) -> Scoresheet:
    """A sheet with every box but `boxes` filled (with their usual points), the upper bonus made."""
    filled = {
        Box.ONES: 3,
        Box.TWOS: 6,
        Box.THREES: 9,
        Box.FOURS: 16,
        Box.FIVES: 15,
        Box.SIXES: 18,
        Box.THREE_OF_A_KIND: 24,
        Box.FOUR_OF_A_KIND: 20,
        Box.FULL_HOUSE: 25,
        Box.SMALL_STRAIGHT: 30,
        Box.LARGE_STRAIGHT: 40,
        Box.CHANCE: 22,
        Box.PENTA: 0,
    }
    return Scoresheet({b: p for b, p in filled.items() if b not in boxes})


def test_equal_holds_go_to_the_smaller_values(strategy):
    # Only the Large straight is open: 1-2-3-4 and 2-3-4-6 both need a five, and are worth exactly the same.
    sheet, dice = only_open(Box.LARGE_STRAIGHT), (6, 2, 4, 1, 3)
    for rolls_left in (1, 2):
        choices = strategy.evaluate(sheet, dice, rolls_left)
        tied = {c.keep: c.expected_total for c in choices[:2]}
        assert set(tied) == {(1, 2, 3, 4), (2, 3, 4, 6)}
        assert abs(tied[(1, 2, 3, 4)] - tied[(2, 3, 4, 6)]) < TIE
        assert strategy.best_keep(sheet, dice, rolls_left) == (1, 2, 3, 4)
        assert choices[0].keep == (1, 2, 3, 4)


def test_equal_holds_of_different_sizes_go_to_more_dice(strategy):
    # Only the Small straight is open and the dice make one: holding all five (stopping) and holding the
    # straight's four (the fifth die cannot spoil it) tie; the rule holds more dice.
    sheet, dice = only_open(Box.SMALL_STRAIGHT), (2, 3, 5, 5, 4)
    for rolls_left in (1, 2):
        choices = strategy.evaluate(sheet, dice, rolls_left)
        assert {c.keep for c in choices[:2]} == {(2, 3, 4, 5, 5), (2, 3, 4, 5)}
        assert choices[0].expected_total - choices[1].expected_total < TIE
        assert strategy.best_keep(sheet, dice, rolls_left) == (2, 3, 4, 5, 5)
    assert keep_choices(strategy, sheet, dice, 2)[0].keep == (2, 3, 4, 5, 5)


def last_roll_worth(value_of_a_straight: float, nudge: float) -> TurnValues:
    """A turn where only straights of five score, `value_of_a_straight`, the high one nudged by `nudge`."""
    final = np.zeros(T.N_ROLLS)
    final[T.ROLL_INDEX[(1, 2, 3, 4, 5)]] = value_of_a_straight
    final[T.ROLL_INDEX[(2, 3, 4, 5, 6)]] = value_of_a_straight + nudge
    return TurnValues.from_final(final)


def test_holds_that_differ_by_float_rounding_are_a_tie():
    # 1-2-3-4 needs the five of the low straight, 2-3-4-6 that of the high one. Worth 6.66666666649... and
    # 6.66666666651...: on either side of a rounding to 9 decimals, and equal to a millionth of a point.
    turn = last_roll_worth(39.9999999990, 0.0000000012)
    keeps, values = turn.keep_options((1, 2, 3, 4, 6), 1)
    assert {T.KEEPS[k] for k in keeps[:2]} == {(1, 2, 3, 4), (2, 3, 4, 6)}
    assert round(values[0], 9) != round(values[1], 9)
    assert T.KEEPS[keeps[0]] == (1, 2, 3, 4)
    assert T.KEEPS[turn.best_keep((1, 2, 3, 4, 6), 1)] == (1, 2, 3, 4)
    # A real difference is no tie.
    turn = last_roll_worth(40.0, 10 * TIE)
    assert T.KEEPS[turn.best_keep((1, 2, 3, 4, 6), 1)] == (2, 3, 4, 6)


def test_equal_boxes_go_to_the_first_in_sheet_order():
    # With nothing to come (a table of zeros) Ones and Twos are worth the same 2 points for 1-1-2-5-6.
    flat = Strategy(np.zeros((*T.POPCOUNT.shape, T.N_UPPER, 2)))
    sheet = only_open(Box.ONES, Box.TWOS)
    assert [c.box for c in flat.evaluate(sheet, (1, 1, 2, 5, 6), 0)] == [Box.ONES, Box.TWOS]
    nudged = Strategy(np.full((*T.POPCOUNT.shape, T.N_UPPER, 2), 1e-9))
    assert nudged.best_box(sheet, (6, 5, 2, 1, 1)) is Box.ONES


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_par_is_the_same_on_a_table_that_differs_by_float_rounding(strategy, noise_seed):
    # Another solver sums in another order: its table differs from ours by float rounding. The optimal
    # line, and so the par, on the same dice is the same.
    rng = np.random.default_rng(noise_seed)
    values = strategy.values + rng.uniform(-1e-8, 1e-8, strategy.values.shape)
    other = Strategy(values)
    seed = seed_from_number(noise_seed)
    for day in ("2026-11-30", "2026-12-01"):
        ours = optimal_line(strategy, seed, day, seat=0, seat_count=1)
        theirs = optimal_line(other, seed, day, seat=0, seat_count=1)
        assert theirs == ours


def test_ranked_treats_values_within_tie_of_the_best_as_the_best():
    key = ranked([10.0, 10.0 - TIE / 2, 9.0, 10.0 - 2 * TIE])
    assert key[0] == key[1] == 10.0
    assert key[3] < key[0] and key[2] == 9.0
