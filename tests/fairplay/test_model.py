"""The fair-play model (`fairplay.model`): properties of its evidence and its line, a short simulation
of an always-optimal and the strongest honest player, and the decisions a stored analysis gives
(`fairplay.positions.from_analysis`) against the simulator's own."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicegame.strategy import analysis as A
from dicegame.strategy.decisions import Strategy
from fairplay import model as M
from fairplay import positions, simulate
from fairplay.model import Decision

value_st = st.floats(0.0, 400.0)


@st.composite
def decisions(draw, values=None) -> Decision:
    if values is None:
        values = st.lists(value_st, min_size=1, max_size=3).map(lambda v: tuple(sorted(v, reverse=True)))
    values = draw(values)
    chosen = draw(st.one_of(st.none(), st.integers(0, len(values) - 1)))
    # None: a choice below the stored ones, so worth at most the last of them.
    chosen_value = values[chosen] if chosen is not None else values[-1] - draw(st.floats(0.0, 50.0))
    return Decision(
        values,
        chosen,
        chosen_value,
        draw(st.one_of(st.none(), st.floats(0.1, 60.0))),
        thumb=draw(st.booleans()),
        greedy=draw(st.booleans()),
    )


decision_lists = st.lists(decisions(), max_size=30)


@st.composite
def near_tie_values(draw) -> tuple[float, ...]:
    """The best choice ahead of the second by less than MARGIN (a little less: float rounding)."""
    best = draw(value_st)
    second = best - draw(st.floats(0.0, 0.99 * M.MARGIN))
    rest = draw(st.lists(st.floats(0.0, 50.0), max_size=1))
    return (best, second, *(second - r for r in rest))


def best_choice(margin: float, **flags) -> Decision:
    """The best of three choices, `margin` ahead of the second and twice that of the third."""
    values = (250.0, 250.0 - margin, 250.0 - 2 * margin)
    return Decision(values, 0, values[0], **flags)


def same_table(a: np.ndarray, b: np.ndarray) -> None:
    # The impossible cells are -inf in both; the others agree to float rounding (sums in another order).
    np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b))
    np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-9, atol=1e-9)


def test_no_decisions_is_no_evidence():
    same_table(M.likelihood_table([]), M.empty_table())
    assert M.choice_evidence(M.empty_table()) == 0.0
    v = M.verdict([])
    assert (v.evidence, v.flagged) == (0.0, False)


@settings(max_examples=200, deadline=None)
@given(decision_lists)
def test_choice_evidence_is_never_negative(ds):
    assert M.choice_evidence(M.likelihood_table(ds)) >= 0.0


@settings(max_examples=150, deadline=None)
@given(decision_lists, decision_lists)
def test_tables_add_up_over_games(a, b):
    # What lets a game's table be stored once and an account's be their sum.
    same_table(M.likelihood_table(a + b), M.likelihood_table(a) + M.likelihood_table(b))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(1.001 * M.MARGIN, 8.0), min_size=1, max_size=40))
def test_always_the_best_on_informative_decisions_only_adds_evidence(margins):
    # Honest and assisted both fit best at T_MIN with no rule of thumb, and every best choice is likelier
    # with the solver's share than without: the evidence can only grow.
    ds = [best_choice(m) for m in margins]
    evidence = [M.choice_evidence(M.likelihood_table(ds[:n])) for n in range(len(ds) + 1)]
    assert all(later >= earlier - 1e-9 for earlier, later in itertools.pairwise(evidence))
    assert evidence[-1] > 0.0


def test_close_calls_taken_best_reach_the_line():
    ds = [best_choice(0.5)] * 60
    assert M.choice_evidence(M.likelihood_table(ds)) >= M.FLAG_EVIDENCE
    assert M.fitted(M.likelihood_table(ds)) == (M.T_MIN, max(M.SHARES))


@settings(max_examples=150, deadline=None)
@given(decision_lists, decisions(near_tie_values()))
def test_near_ties_leave_the_table_unchanged(base, near_tie):
    assert not near_tie.informative
    np.testing.assert_array_equal(M.likelihood_table([*base, near_tie]), M.likelihood_table(base))


@settings(max_examples=100, deadline=None)
@given(decision_lists, value_st, st.one_of(st.none(), st.just(0)))
def test_single_choices_leave_the_table_unchanged(base, value, chosen):
    only = Decision((value,), chosen, value if chosen == 0 else value - 1.0, 3.0, thumb=True, greedy=True)
    assert not only.informative
    np.testing.assert_array_equal(M.likelihood_table([*base, only]), M.likelihood_table(base))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(0.01, 600.0), max_size=M.MIN_TIMED - 1))
def test_too_few_times_say_nothing(seconds):
    stats = M.TimeStats()
    for s in seconds:
        stats.add(s)
    assert M.time_evidence(stats) == 0.0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(0.01, 600.0), max_size=200))
def test_time_evidence_is_capped(seconds):
    stats = M.TimeStats()
    for s in seconds:
        stats.add(s)
    assert 0.0 <= M.time_evidence(stats) <= M.TIME_CAP


def test_a_steady_pace_reaches_the_time_cap_and_no_further():
    ds = [best_choice(1.0, seconds=6.0) for _ in range(M.MIN_TIMED)]
    assert M.time_evidence(M.time_stats(ds)) == M.TIME_CAP
    # Only informative decisions are timed: the same times on near ties count for nothing.
    ties = [Decision((250.0, 250.0), 0, 250.0, 6.0) for _ in range(10 * M.MIN_TIMED)]
    assert M.time_stats(ties).n == 0


@given(st.integers(-10, 10**6))
def test_hidden_evidence_is_capped(hidden):
    h = M.hidden_evidence(hidden)
    assert 0.0 <= h <= M.HIDDEN_CAP
    assert M.hidden_evidence(hidden + 1) >= h
    assert M.hidden_evidence(10**6) == M.HIDDEN_CAP


def huge_game() -> M.GameSignals:
    return M.game_signals([best_choice(0.5, seconds=6.0) for _ in range(200)], hidden=50)


def test_the_line_needs_enough_suspicious_games_whatever_the_evidence():
    few = M.verdict([huge_game()] * (M.MIN_SUSPICIOUS_GAMES - 1))
    assert few.choice >= 10 * M.FLAG_EVIDENCE
    assert few.suspicious_games == M.MIN_SUSPICIOUS_GAMES - 1
    assert not few.flagged
    assert M.verdict([huge_game()] * M.MIN_SUSPICIOUS_GAMES).flagged


def test_the_line_needs_a_share_of_suspicious_games():
    quiet = M.game_signals([])
    games = int(M.MIN_SUSPICIOUS_GAMES / M.MIN_SUSPICIOUS_SHARE) + 5
    v = M.verdict([huge_game()] * M.MIN_SUSPICIOUS_GAMES + [quiet] * (games - M.MIN_SUSPICIOUS_GAMES))
    assert v.suspicious_games == M.MIN_SUSPICIOUS_GAMES
    assert v.evidence >= M.FLAG_EVIDENCE
    assert not v.flagged


def test_weak_signals_alone_never_flag():
    # A solver's steady pace and a hidden page, on games whose choices look nothing like the solver's
    # (always the second best of a clear call).
    seconds = [Decision((250.0, 249.0, 248.0), 1, 249.0, 6.0)] * 40
    game = M.game_signals(seconds, hidden=100)
    v = M.verdict([game] * 50)
    assert v.time == M.TIME_CAP and v.hidden == M.HIDDEN_CAP
    assert v.choice == 0.0
    assert not v.flagged


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return Strategy.shared()


def account(strategy: Strategy, player: simulate.Player, games: int, seed: int) -> list[M.Verdict]:
    """The verdict after each game, as the site checks it."""
    rng = np.random.default_rng(seed)
    signals, verdicts = [], []
    for _ in range(games):
        signals.append(M.game_signals(simulate.play(strategy, player, rng)[0]))
        verdicts.append(M.verdict(signals))
    return verdicts


def test_an_always_optimal_player_is_flagged_within_eight_games(strategy):
    verdicts = account(strategy, simulate.Player("assisted", share=1.0, temperature=2.0), 8, seed=11)
    assert verdicts[-1].flagged
    assert verdicts[-1].share >= 0.9


def test_the_strongest_honest_player_is_not_flagged_in_eight_games(strategy):
    verdicts = account(strategy, simulate.HONEST[0], 8, seed=11)
    assert not any(v.flagged for v in verdicts)
    assert verdicts[-1].evidence < M.FLAG_EVIDENCE / 2


@pytest.mark.parametrize(
    "player",
    [
        simulate.HONEST[0],
        simulate.Player("boltzmann", temperature=4.0),
        simulate.Player("computer", strength="medium", noise=1.0),
        simulate.Player("computer", strength="easy", noise=1.0),
        simulate.Player("assisted", share=0.5, temperature=2.0),
    ],
    ids=lambda p: p.label,
)
def test_a_stored_analysis_gives_the_simulators_decisions(strategy, player):
    game = simulate.play_game(strategy, player, np.random.default_rng(5))
    simulated = game.decisions
    data = A.analyse_game(game.turns, [0], strategy)
    assert data["seats"]["0"]["final"] == game.total
    stored = positions.from_analysis(data, 0, game.seconds)
    assert len(stored) == len(simulated)
    for got, want in zip(stored, simulated, strict=True):
        # The analysis stores values to 4 decimals.
        assert got.values == pytest.approx(want.values, abs=1e-3)
        assert got.chosen_value == pytest.approx(want.chosen_value, abs=1e-3)
        assert (got.chosen, got.thumb, got.greedy, got.seconds) == (
            want.chosen,
            want.thumb,
            want.greedy,
            want.seconds,
        )
        assert got.informative == want.informative
