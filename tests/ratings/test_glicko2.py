"""Glicko-2 as Glickman published it: his worked example, and properties any rating period must hold."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.glicko2 import SCALE, Rating, idle, rate

PAPER_PLAYER = Rating(1500.0, 200.0, 0.06)
PAPER_RESULTS = [(Rating(1400.0, 30.0), 1.0), (Rating(1550.0, 100.0), 0.0), (Rating(1700.0, 300.0), 0.0)]


def test_glickmans_worked_example():
    after = rate(PAPER_PLAYER, PAPER_RESULTS)
    # The paper prints r' = 1464.06 from its rounded mu' (-0.2069); unrounded it is 1464.0507, so the
    # rating is compared to within 0.02 and the others to the paper's printed digits.
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert round(after.rd, 2) == 151.52
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)
    # The paper's intermediate figures on the Glicko-2 scale.
    assert (after.rating - 1500) / SCALE == pytest.approx(-0.2069, abs=1e-4)
    assert after.rd / SCALE == pytest.approx(0.8722, abs=1e-4)


def test_an_empty_period_only_grows_the_deviation():
    after = rate(PAPER_PLAYER, [])
    assert after.rating == PAPER_PLAYER.rating
    assert after.volatility == PAPER_PLAYER.volatility
    assert after.rd == pytest.approx(math.sqrt(200.0**2 + (0.06 * SCALE) ** 2))


def test_the_order_of_a_periods_games_does_not_matter():
    forward = rate(PAPER_PLAYER, PAPER_RESULTS)
    backward = rate(PAPER_PLAYER, list(reversed(PAPER_RESULTS)))
    assert forward.rating == pytest.approx(backward.rating, abs=1e-9)
    assert forward.rd == pytest.approx(backward.rd, abs=1e-9)


ratings = st.builds(
    Rating,
    rating=st.floats(700, 2800),
    rd=st.floats(30, 350),
    volatility=st.floats(0.03, 0.1),
)
scores = st.sampled_from([0.0, 0.5, 1.0])


@settings(max_examples=300, deadline=None)
@given(player=ratings, opponent=ratings, others=st.lists(st.tuples(ratings, scores), max_size=5))
def test_a_win_never_lowers_and_a_loss_never_raises(player, opponent, others):
    # Adding a win to a period can only help against the same period without it; likewise a loss hurts.
    base = rate(player, others) if others else None
    won = rate(player, [*others, (opponent, 1.0)])
    lost = rate(player, [*others, (opponent, 0.0)])
    assert won.rating > lost.rating
    if base is None:
        assert won.rating > player.rating
        assert lost.rating < player.rating


@settings(max_examples=300, deadline=None)
@given(player=ratings, results=st.lists(st.tuples(ratings, scores), min_size=1, max_size=6))
def test_games_shrink_the_deviation(player, results):
    after = rate(player, results)
    # Against the deviation the period starts from (step 6, with the new volatility), games always
    # narrow it.
    assert after.rd < math.hypot(player.rd, after.volatility * SCALE)


@settings(max_examples=300, deadline=None)
@given(
    results=st.lists(
        st.tuples(st.builds(Rating, rating=st.floats(1000, 2000), rd=st.floats(30, 350)), scores),
        min_size=1,
        max_size=6,
    )
)
def test_a_newcomers_deviation_shrinks(results):
    # Within 500 points of the start (a wild upset against someone 1300 points away can leave 350 as
    # it was, the volatility absorbing the surprise).
    assert rate(Rating(), results).rd < 350.0


@settings(max_examples=300, deadline=None)
@given(
    a=st.floats(700, 2800),
    b=st.floats(700, 2800),
    rd=st.floats(30, 350),
    vol=st.floats(0.03, 0.1),
)
def test_symmetry_between_two_equally_certain_players(a, b, rd, vol):
    first, second = Rating(a, rd, vol), Rating(b, rd, vol)
    first_after = rate(first, [(second, 1.0)])
    second_after = rate(second, [(first, 0.0)])
    # What the winner gains the loser gives up, and both become equally certain.
    assert first_after.rating - a == pytest.approx(b - second_after.rating, abs=1e-6)
    assert first_after.rd == pytest.approx(second_after.rd, abs=1e-9)
    # A draw between equal ratings moves neither.
    drawn = rate(first, [(Rating(a, rd, vol), 0.5)])
    assert drawn.rating == pytest.approx(a, abs=1e-9)


def test_idle_periods_widen_the_deviation_step_6_at_a_time_up_to_a_newcomers():

    settled = Rating(1700.0, 60.0, 0.06)
    assert idle(settled, 0) == settled
    one = idle(settled, 1)
    assert one == Rating(1700.0, rate(settled, []).rd, 0.06)  # one idle period is an empty period
    assert idle(settled, 3).rd == pytest.approx(rate(rate(rate(settled, []), []), []).rd)
    assert idle(settled, 10**6).rd == 350.0  # never more uncertain than a newcomer
