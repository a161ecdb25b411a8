"""Win probability (dicegame.strategy.winprob): the method against a plain Monte Carlo of whole games,
the simulator of optimal play against the solved table, and the combination's arithmetic."""

import json

import numpy as np
import pytest

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy, winprob
from dicegame.strategy import tables as T
from dicegame.strategy.turn import State
from tests.support import DATA

REFERENCE = DATA / "winprob_mc.json"


@pytest.fixture(scope="module")
def strategy():
    return Strategy.shared()


def seats_of(position: dict) -> list[winprob.SeatPosition]:
    return [
        winprob.SeatPosition(
            Scoresheet.from_dict(s["sheet"]), tuple(s["dice"]) if s["dice"] else None, s["rolls_left"]
        )
        for s in position["seats"]
    ]


STORED = json.loads(REFERENCE.read_text())["positions"]


def test_the_stored_reference_covers_early_middle_late_two_and_four_seats_and_ties():
    names = [p["name"] for p in STORED]
    for stage in ("early", "middle", "late", "last"):
        for seats in (2, 4):
            assert any(n.startswith(f"{stage}-{seats}-") for n in names), (stage, seats)
    assert sum("tie" in n for n in names) >= 2
    for p in STORED:
        assert p["reference"]["games"] >= 100_000
        assert sum(p["reference"]["chances"]) == pytest.approx(1)


@pytest.mark.parametrize("position", STORED, ids=[p["name"] for p in STORED])
def test_the_method_is_within_two_points_of_a_plain_monte_carlo_of_100000_games(strategy, position):
    """The reference: bench/winprob.py --reference 100000 (every seat optimal on its own dice, whole
    games played jointly from the position, a tie for first split evenly), stored in tests/data."""
    chances = winprob.win_chances(strategy.values, seats_of(position), seed=0)
    for mine, reference in zip(chances, position["reference"]["chances"], strict=True):
        assert abs(mine - reference) <= 0.02, (position["name"], chances, position["reference"]["chances"])


@pytest.mark.parametrize(
    "name", ["late-2-r12-seat2-after-roll1", "late-4-two-boxes", "late-4-tie-penta-left"]
)
def test_the_method_agrees_with_a_fresh_smaller_monte_carlo(strategy, name):
    """Re-run here, on a fresh seed: 20,000 games (a standard error under 0.4 points), bound 3 points."""
    position = next(p for p in STORED if p["name"] == name)
    seats = seats_of(position)
    reference = winprob.joint_monte_carlo(strategy.values, seats, 20_000, np.random.default_rng(7))
    chances = winprob.win_chances(strategy.values, seats, seed=3)
    assert max(abs(a - b) for a, b in zip(chances, reference, strict=True)) <= 0.03, (chances, reference)


# -- the simulator plays optimally ---------------------------------------------------------------------

SHEETS = [
    Scoresheet(),
    Scoresheet({Box.PENTA: 50, Box.SIXES: 18, Box.FOURS: 12}),
    Scoresheet({Box.ONES: 3, Box.TWOS: 6, Box.THREES: 9, Box.FOURS: 16, Box.CHANCE: 20}),
    Scoresheet({b: 0 for b in Box if b not in (Box.PENTA, Box.CHANCE)}),
]


@pytest.mark.parametrize(
    "sheet,dice,rolls_left",
    [
        (SHEETS[0], None, 0),
        (SHEETS[1], (4, 4, 4, 4, 4), 0),  # a forced joker: Fours is full, a lower box takes it
        (SHEETS[1], (6, 6, 6, 2, 1), 2),
        (SHEETS[2], (5, 5, 2, 3, 4), 1),
        (SHEETS[3], (1, 1, 1, 1, 2), 2),
    ],
)
def test_the_simulated_mean_is_the_solved_expected_total(strategy, sheet, dice, rolls_left):
    totals = winprob.sample_totals(
        strategy.values, winprob.SeatPosition(sheet, dice, rolls_left), 20_000, np.random.default_rng(1)
    )
    if dice is None:
        expected = strategy.expected_total(sheet)
    else:
        expected = strategy.evaluate(sheet, dice, rolls_left)[0].expected_total
    se = totals.std() / np.sqrt(len(totals))
    assert abs(totals.mean() - expected) < 4 * se + 0.05, (totals.mean(), expected, se)


def test_each_keep_and_box_the_simulator_takes_is_worth_the_strategys_best(strategy):
    rng = np.random.default_rng(5)
    for sheet in SHEETS:
        state = State.of(sheet)
        m, u, p = (np.full(252, x, dtype=np.int64) for x in (state.mask, state.upper, state.penta))
        turns = winprob._Turns(strategy.values, m[:1], u[:1], p[:1])
        rolls = np.arange(252)
        cols = np.zeros(252, dtype=np.int64)
        for rolls_left in (1, 2):
            keeps = turns.keep(rolls, cols, rolls_left)
            for r in rng.choice(252, 25, replace=False):
                dice = T.ROLLS[r]
                best = strategy.evaluate(sheet, dice, rolls_left)[0].expected_total
                mine = [c for c in strategy.evaluate(sheet, dice, rolls_left) if c.keep == T.KEEPS[keeps[r]]]
                assert mine and mine[0].expected_total == pytest.approx(best, abs=1e-6), (sheet, dice)
        gained, new_m, new_u, new_p = winprob._write(strategy.values, m, u, p, rolls)
        for r in rng.choice(252, 40, replace=False):
            dice = T.ROLLS[r]
            best = strategy.evaluate(sheet, dice, 0)[0].expected_total
            after = float(strategy.values[new_m[r], new_u[r], new_p[r]])
            assert sheet.total + gained[r] + after == pytest.approx(best, abs=1e-6), (sheet, dice)


# -- the combination -------------------------------------------------------------------------------------


def test_probabilities_sum_to_one_and_symmetric_seats_split_evenly(strategy):
    sheet = Scoresheet({Box.CHANCE: 22, Box.SIXES: 24})
    for k in (2, 3, 4):
        chances = winprob.win_chances(strategy.values, [winprob.SeatPosition(sheet)] * k, n=500)
        assert sum(chances) == pytest.approx(1)
        assert chances == pytest.approx([1 / k] * k)


def test_a_decided_game_gives_one_and_zero_and_a_tie_is_split(strategy):
    full = {b: 0 for b in Box}
    low, high = Scoresheet({**full, Box.CHANCE: 10}), Scoresheet({**full, Box.CHANCE: 20})
    seats = [winprob.SeatPosition(low), winprob.SeatPosition(high)]
    assert winprob.win_chances(strategy.values, seats) == [0.0, 1.0]
    seats = [winprob.SeatPosition(high), winprob.SeatPosition(low), winprob.SeatPosition(high)]
    assert winprob.win_chances(strategy.values, seats) == pytest.approx([0.5, 0.0, 0.5])
    # Far behind with one box left: out of reach even with a Penta.
    behind = Scoresheet({b: 0 for b in Box if b is not Box.PENTA})
    ahead = winprob.SeatPosition(Scoresheet({**full, Box.CHANCE: 30, Box.SIXES: 30}))
    assert winprob.win_chances(strategy.values, [winprob.SeatPosition(behind), ahead]) == [0.0, 1.0]


def test_a_seat_out_of_the_running_takes_no_share(strategy):
    sheet = Scoresheet({Box.CHANCE: 22})
    seats = [winprob.SeatPosition(sheet, out=True), winprob.SeatPosition(sheet), winprob.SeatPosition(sheet)]
    assert winprob.win_chances(strategy.values, seats, n=500) == pytest.approx([0.0, 0.5, 0.5])


def test_first_place_splits_ties_among_every_seat_tied():
    # Three seats, each 10 or 20 with even odds: P(first) = 1/3 each by symmetry, ties included.
    d = np.zeros(21)
    d[10] = d[20] = 0.5
    assert winprob.first_place([d, d, d]) == pytest.approx([1 / 3] * 3)
    # A sure 15 against 10-or-20: 15 wins half the time.
    sure = np.zeros(16)
    sure[15] = 1
    assert winprob.first_place([sure, d]) == pytest.approx([0.5, 0.5])


def test_the_same_position_gives_the_same_figures_and_a_cache_is_reused(strategy):
    seats = [winprob.SeatPosition(Scoresheet({Box.CHANCE: 22})), winprob.SeatPosition(Scoresheet())]
    cache = {}
    first = winprob.win_chances(strategy.values, seats, n=300, seed=4, cache=cache)
    assert len(cache) == 2
    again = winprob.win_chances(strategy.values, seats, n=300, seed=4, cache=cache)
    assert first == again == winprob.win_chances(strategy.values, seats, n=300, seed=4)
