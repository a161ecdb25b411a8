"""The tables for playing to win: the final-total distributions under the expected-total play
(`outcomes`, what is built and stored) and the exact best chance of scoring at least t more (`reach`, the
exact search near the end; the full tables of it are too dear to build, docs/analysis.md says why).

The issue's properties, for what is built:
- P*(s, t), the best chance of at least t more points, never rises with t, and is 1 at t = 0;
- at every state and t it is at least the expected-total play's chance of reaching t (from `outcomes`);
- so its sum over t is at least the solver's expected value, which the expected-total play's chances
  sum to exactly (their mean is the solver's value);
- with one or two boxes left, both equal a brute-force enumeration (plain Python on the rules' own
  Scoresheet, independent of the tables) within 1e-12.

Small tables only: the distributions of the last three layers (built in well under a second) and the
exact chances of one state's descendants.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy, outcomes, reach, solver, win_tables
from dicegame.strategy import cache as strategy_cache
from dicegame.strategy import tables as T
from dicegame.strategy.turn import State

WIDTH = 360  # covers every total two boxes can still score (two joker Pentas with the upper bonus: 335)


@pytest.fixture(scope="module")
def table(strategy: Strategy) -> outcomes.Outcomes:
    return outcomes.build(strategy.values, min_layer=11, tail=0.0)


def late_states(boxes_left: tuple[int, ...] = (1, 2)) -> list[State]:
    """Every reachable state with that many boxes left, one per class of equal futures."""
    reach_mask = solver.reachable_mask()
    out = []
    for left in boxes_left:
        m, u, p = solver._layer_states(T.N_BOXES - left, reach_mask)
        out += [State(int(a), int(b), int(c)) for a, b, c in zip(m, u, p, strict=True) if reach_mask[a, b, c]]
    return out


LATE = late_states()


def survival(table: outcomes.Outcomes, state: State, width: int = WIDTH) -> np.ndarray:
    """P(at least t more points) under the expected-total play, t = 0 .. width - 1."""
    lo, chances = table.future(state)
    pmf = np.zeros(max(width, lo + len(chances)) + 1)
    pmf[lo : lo + len(chances)] = chances
    return np.cumsum(pmf[::-1])[::-1][:width]


@cache
def best(state: State) -> np.ndarray:
    return reach.best_chances(state.mask, state.upper, state.penta, WIDTH)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LATE))
def test_the_best_chance_never_rises_with_t_is_one_at_zero_and_beats_the_expected_total_play(table, state):
    chances = best(state)
    assert chances[0] == pytest.approx(1.0, abs=1e-12)
    assert (np.diff(chances) <= 1e-12).all()
    assert ((chances >= 0) & (chances <= 1 + 1e-12)).all()
    assert (chances >= survival(table, state) - 1e-12).all()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LATE))
def test_summed_over_t_the_chances_bound_the_solvers_expected_value(strategy, table, state):
    value = float(strategy.values[state.mask, state.upper, state.penta])
    # The expected-total play's chances sum to its mean, the solver's value, exactly...
    assert survival(table, state)[1:].sum() == pytest.approx(value, abs=1e-9)
    # ...and each t's own best play does at least as well, so their sum is an upper bound.
    assert best(state)[1:].sum() >= value - 1e-9


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LATE))
def test_every_distribution_is_one_whole_and_starts_and_ends_with_mass(table, state):
    lo, chances = table.future(state)
    assert chances.sum() == pytest.approx(1.0, abs=1e-12)
    assert lo >= 0 and chances[0] > 0 and chances[-1] > 0


# -- brute force: plain Python on the rules' Scoresheet, the strategy's decisions asked one by one ----


def sheet_of(state: State) -> Scoresheet:
    """A sheet in this state: filled upper boxes making its upper total, filled lower boxes 0 (the Penta
    box 50 when the state says so)."""
    boxes: dict[Box, int] = {}
    rest = state.upper
    for box in sorted((b for b in Box if b.is_upper and state.mask >> b.value & 1), key=lambda b: -b.face):
        boxes[box] = min(5, rest // box.face) * box.face
        rest -= boxes[box]
    if rest:  # a capped total: the largest faces take it
        return None
    for box in Box:
        if not box.is_upper and state.mask >> box.value & 1:
            boxes[box] = 50 if box is Box.PENTA and state.penta else 0
    return Scoresheet(boxes)


@cache
def rerolls(keep: tuple[int, ...]) -> list[tuple[tuple[int, ...], float]]:
    """Every roll after holding `keep` and rolling the rest once, with its chance."""
    n = 5 - len(keep)
    out = []
    for extra in combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for c in Counter(extra).values():
            ways //= factorial(c)
        out.append((tuple(sorted(keep + extra)), ways / 6**n))
    return out


FIRST = rerolls(())


def subkeeps(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    out = set()
    for mask in range(32):
        out.add(tuple(sorted(roll[i] for i in range(5) if mask >> i & 1)))
    return out


def brute_best(sheet: Scoresheet, width: int) -> np.ndarray:
    """P*(t), t < width, by exhaustive search of the turn: every hold and box chosen per t."""
    memo: dict = {}

    def future(s: Scoresheet) -> np.ndarray:
        if s.is_complete:
            out = np.zeros(width)
            out[0] = 1.0  # at least 0 more: certain
            return out
        key = State.of(s)  # the points to come do not depend on the points so far
        if key not in memo:
            memo[key] = turn(s)
        return memo[key]

    def turn(s: Scoresheet) -> np.ndarray:
        final = {}
        for roll, _p in FIRST:
            vals = []
            for box in s.options(roll):
                after = s.place(box, roll)
                gain = after.total - s.total
                f = future(after)
                shifted = np.ones(width)  # need t - gain <= 0: certain
                shifted[gain:] = f[: width - gain] if gain < width else shifted[gain:]
                vals.append(shifted)
            final[roll] = np.max(vals, axis=0)
        keep1 = {k: sum(p * final[r] for r, p in rerolls(k)) for k in {k for r in final for k in subkeeps(r)}}
        one_left = {r: np.max([keep1[k] for k in subkeeps(r)], axis=0) for r in final}
        keep2 = {k: sum(p * one_left[r] for r, p in rerolls(k)) for k in keep1}
        return sum(p * np.max([keep2[k] for k in subkeeps(r)], axis=0) for r, p in FIRST)

    return future(sheet)


def brute_expected_total_play(
    strategy: Strategy, sheet: Scoresheet, memo: dict | None = None
) -> dict[int, float]:
    """The chance of each number of points still to come, the strategy deciding every hold and box."""
    if sheet.is_complete:
        return {0: 1.0}
    memo = {} if memo is None else memo
    key = State.of(sheet)
    if key in memo:
        return memo[key]
    finals: Counter = Counter()
    seconds: Counter = Counter()
    for roll, p in FIRST:
        keep = strategy.best_keep(sheet, roll, 2)
        if len(keep) == 5:  # holding all five: the turn stops
            finals[roll] += p
            continue
        for second, q in rerolls(keep):
            seconds[second] += p * q
    for second, q in seconds.items():
        for third, w in rerolls(strategy.best_keep(sheet, second, 1)):
            finals[third] += q * w
    out: Counter = Counter()
    for roll, p in finals.items():
        after = sheet.place(strategy.best_box(sheet, roll), roll)
        for more, q in brute_expected_total_play(strategy, after, memo).items():
            out[after.total - sheet.total + more] += p * q
    memo[key] = dict(out)
    return memo[key]


# States with one and two boxes left: Penta bonuses, the joker, the upper bonus in reach and not.
BRUTE = [
    State((T.ALL_FILLED & ~(1 << Box.CHANCE.value)), 63, 0),
    State((T.ALL_FILLED & ~(1 << Box.SIXES.value)), 45, 1),
    State((T.ALL_FILLED & ~(1 << Box.PENTA.value) & ~(1 << Box.FULL_HOUSE.value)), 63, 0),
    State((T.ALL_FILLED & ~(1 << Box.FOURS.value) & ~(1 << Box.LARGE_STRAIGHT.value)), 48, 1),
]


@pytest.mark.parametrize("state", BRUTE, ids=lambda s: f"{s.mask:013b}-{s.upper}-{s.penta}")
def test_the_distributions_equal_a_brute_force_enumeration_of_the_expected_total_play(strategy, table, state):
    sheet = sheet_of(state)
    exact = brute_expected_total_play(strategy, sheet)
    lo, chances = table.future(state)
    mine = {lo + i: float(c) for i, c in enumerate(chances)}
    for points in set(exact) | set(mine):
        assert mine.get(points, 0.0) == pytest.approx(exact.get(points, 0.0), abs=1e-12), points


@pytest.mark.parametrize("state", BRUTE, ids=lambda s: f"{s.mask:013b}-{s.upper}-{s.penta}")
def test_the_best_chances_equal_a_brute_force_enumeration(state):
    sheet = sheet_of(state)
    mine = best(state)
    exact = brute_best(sheet, WIDTH)
    exact[0] = 1.0
    np.testing.assert_allclose(mine, exact, rtol=0, atol=1e-12)


# -- the files ------------------------------------------------------------------------------------


def test_the_tables_are_written_and_read_back_with_their_checksums(table, tmp_path):
    path = tmp_path / "outcomes.npz"
    win_tables.save(path, table)
    back = win_tables.load(path)
    assert back.min_layer == 11 and back.rows == table.rows
    state = BRUTE[0]
    lo, chances = back.future(state)
    assert (lo, len(chances)) == (table.future(state)[0], len(table.future(state)[1]))
    np.testing.assert_allclose(chances, table.future(state)[1], rtol=1e-6)


@pytest.mark.parametrize("damage", ["truncate", "flip", "missing", "other rules"])
def test_a_damaged_or_stale_table_is_refused_and_nothing_plays_from_it(table, tmp_path, damage, monkeypatch):
    path = tmp_path / "outcomes.npz"
    win_tables.save(path, table)
    data = win_tables.data_path(path)
    if damage == "truncate":
        data.write_bytes(data.read_bytes()[:-100])
    elif damage == "flip":
        raw = bytearray(data.read_bytes())
        raw[-5] ^= 0xFF
        data.write_bytes(bytes(raw))
    elif damage == "missing":
        data.unlink()
    else:
        monkeypatch.setattr(strategy_cache, "rules_fingerprint", lambda: "other")
    with pytest.raises(strategy_cache.StaleCache):
        win_tables.load(path)
