"""Weighted results in Glicko-2: a weight scales a result's share of the period; 1 is Glickman's system,
0 is no result at all, and in between a result moves the rating less the less it weighs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.glicko2 import Rating, rate

PAPER_PLAYER = Rating(1500.0, 200.0, 0.06)
PAPER_RESULTS = [(Rating(1400.0, 30.0), 1.0), (Rating(1550.0, 100.0), 0.0), (Rating(1700.0, 300.0), 0.0)]

ratings = st.builds(
    Rating,
    rating=st.floats(700, 2800),
    rd=st.floats(30, 350),
    volatility=st.floats(0.03, 0.1),
)
scores = st.sampled_from([0.0, 0.5, 1.0])
weights = st.floats(0.0, 1.0)


def test_glickmans_worked_example_with_every_weight_one():
    weighted = rate(PAPER_PLAYER, [(o, s, 1.0) for o, s in PAPER_RESULTS])
    assert weighted == rate(PAPER_PLAYER, PAPER_RESULTS)
    assert weighted.rating == pytest.approx(1464.06, abs=0.02)
    assert round(weighted.rd, 2) == 151.52


def test_every_weight_zero_is_an_empty_period():
    assert rate(PAPER_PLAYER, [(o, s, 0.0) for o, s in PAPER_RESULTS]) == rate(PAPER_PLAYER, [])
    after = rate(PAPER_PLAYER, [(o, s, 0.0) for o, s in PAPER_RESULTS])
    assert after.rating == 1500.0 and after.rd > 200.0


def test_two_halves_of_a_game_are_the_game():
    # The weighted form adds weight x (the game's terms): two copies at 0.5 are one game at 1.
    opponent = Rating(1600.0, 80.0)
    whole = rate(PAPER_PLAYER, [(opponent, 1.0)])
    halves = rate(PAPER_PLAYER, [(opponent, 1.0, 0.5), (opponent, 1.0, 0.5)])
    assert halves.rating == pytest.approx(whole.rating, abs=1e-9)
    assert halves.rd == pytest.approx(whole.rd, abs=1e-9)
    assert halves.volatility == pytest.approx(whole.volatility, abs=1e-12)


@pytest.mark.parametrize("weight", [-0.1, 1.5, math.nan])
def test_a_weight_outside_0_to_1_is_refused(weight):
    with pytest.raises(ValueError):
        rate(PAPER_PLAYER, [(Rating(), 1.0, weight)])


@settings(max_examples=300, deadline=None)
@given(player=ratings, results=st.lists(st.tuples(ratings, scores), max_size=6))
def test_weight_one_is_the_unweighted_result(player, results):
    assert rate(player, [(o, s, 1.0) for o, s in results]) == rate(player, results)


@settings(max_examples=300, deadline=None)
@given(
    player=ratings, opponent=ratings, score=scores, others=st.lists(st.tuples(ratings, scores), max_size=5)
)
def test_weight_zero_is_the_result_absent(player, opponent, score, others):
    assert rate(player, [*others, (opponent, score, 0.0)]) == rate(player, others)


@settings(max_examples=500, deadline=None)
@given(player=ratings, opponent=ratings, score=scores, a=weights, b=weights)
def test_a_smaller_weight_moves_the_rating_no_more(player, opponent, score, a, b):
    low, high = sorted((a, b))
    moved_low = abs(rate(player, [(opponent, score, low)]).rating - player.rating)
    moved_high = abs(rate(player, [(opponent, score, high)]).rating - player.rating)
    assert moved_low <= moved_high + 1e-9
    # And no weight moves it more than the whole result does.
    assert moved_high <= abs(rate(player, [(opponent, score)]).rating - player.rating) + 1e-9


@settings(max_examples=300, deadline=None)
@given(player=ratings, opponent=ratings, weight=st.floats(0.01, 1.0))
def test_a_weighted_win_still_raises_and_a_weighted_loss_still_lowers(player, opponent, weight):
    assert rate(player, [(opponent, 1.0, weight)]).rating > player.rating
    assert rate(player, [(opponent, 0.0, weight)]).rating < player.rating
