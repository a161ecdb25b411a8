"""The optimal strategy: the published figures, decisions against a plain-Python brute force, the cache."""

from __future__ import annotations

import os
import zipfile
from collections import Counter
from functools import cache
from itertools import combinations_with_replacement, pairwise
from math import factorial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, InvalidDice, Scoresheet
from dicegame.strategy import Choice, Strategy, solver
from dicegame.strategy import cache as strategy_cache
from dicegame.strategy import tables as T
from dicegame.strategy.turn import State, TurnValues, is_subkeep, legal_options

# The session-wide `strategy` fixture (tests/conftest.py may import it as well).

EMPTY = Scoresheet()


def sheet_with_open(open_boxes: set[Box], upper_total: int = 0, penta: int = 0) -> Scoresheet:
    """A sheet where only `open_boxes` are open: the filled upper boxes make `upper_total` (greedily,
    largest face first), every filled lower box holds 0, the Penta box (if filled) holds `penta`."""
    boxes: dict[Box, int] = {}
    rest = upper_total
    for box in sorted((b for b in Box if b.is_upper and b not in open_boxes), key=lambda b: -b.face):
        boxes[box] = min(5, rest // box.face) * box.face
        rest -= boxes[box]
    assert rest == 0, f"cannot make an upper total of {upper_total} with these boxes"
    for box in Box:
        if not box.is_upper and box not in open_boxes:
            boxes[box] = penta if box is Box.PENTA else 0
    return Scoresheet(boxes)


# -- the published figures ---------------------------------------------------------------------------


def test_empty_sheet_expected_total(strategy):
    assert strategy.expected_total(EMPTY) == pytest.approx(254.4848458816832, rel=1e-9)


def test_table_covers_exactly_the_reachable_states(strategy):
    assert int(np.isfinite(strategy.values).sum()) == 536_448


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        (Box.CHANCE, 70 / 3),
        (Box.ONES, 2.106481),
        (Box.SIXES, 12.638889),
        (Box.LARGE_STRAIGHT, 10.612742),
        (Box.PENTA, 2.301432),
    ],
)
def test_one_box_left_expected_score_of_that_box_alone(box, expected):
    # The published figures count the box's own points only, with the joker on (Penta box 50) so that
    # they hold under every joker rule: the within-turn search on the box's points reproduces them.
    sheet = sheet_with_open({box}, penta=0 if box is Box.PENTA else 50)
    final = np.array([sheet.options(roll)[box] for roll in T.ROLLS], dtype=float)
    assert TurnValues.from_final(final).start_value() == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("box", "expected"),
    [(Box.CHANCE, 70 / 3), (Box.ONES, 2.106481), (Box.SIXES, 12.638889), (Box.PENTA, 2.301432)],
)
def test_one_box_left_in_the_table(strategy, box, expected):
    sheet = sheet_with_open({box})
    assert strategy.expected_total(sheet) - sheet.total == pytest.approx(expected, abs=1e-6)


def test_last_large_straight_depends_on_the_penta_box(strategy):
    # This project's rule: a Penta box sacrificed with 0 means no joker, so a Penta is not a straight;
    # with 50 in it a Penta is a joker straight (40) and earns the 100 bonus besides.
    sacrificed = sheet_with_open({Box.LARGE_STRAIGHT}, penta=0)
    full = sheet_with_open({Box.LARGE_STRAIGHT}, penta=50)
    assert strategy.expected_total(sacrificed) - sacrificed.total == pytest.approx(
        brute_expected_total(sacrificed) - sacrificed.total, abs=1e-9
    )
    assert strategy.expected_total(sacrificed) - sacrificed.total == pytest.approx(10.443801, abs=1e-6)
    assert strategy.expected_total(full) - full.total == pytest.approx(12.480611, abs=1e-6)


def test_first_turn_large_straight(strategy):
    choices = strategy.evaluate(EMPTY, (1, 2, 3, 4, 5), 0)
    assert choices[0].box is Box.LARGE_STRAIGHT
    assert choices[0].points == 40
    assert choices[0].expected_total == pytest.approx(261.514915, abs=1e-6)
    assert strategy.best_box(EMPTY, (3, 1, 5, 2, 4)) is Box.LARGE_STRAIGHT


# -- a plain-Python brute force, with nothing but the rules engine -------------------------------------


def _probability(extra: tuple[int, ...]) -> float:
    ways = factorial(len(extra))
    for c in Counter(extra).values():
        ways //= factorial(c)
    return ways / 6 ** len(extra)


ALL_ROLLS = list(combinations_with_replacement(range(1, 7), 5))


def _subkeeps(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    keeps = {()}
    for die in roll:
        keeps |= {tuple(sorted((*k, die))) for k in keeps}
    return keeps


def _outcomes(keep: tuple[int, ...]):
    for extra in combinations_with_replacement(range(1, 7), 5 - len(keep)):
        yield tuple(sorted(keep + extra)), _probability(extra)


@cache
def brute_box_values(sheet: Scoresheet, roll: tuple[int, ...]) -> dict[Box, float]:
    """Expected final total for each legal box for these final dice."""
    return {box: brute_expected_total(sheet.place(box, roll)) for box in sheet.options(roll)}


@cache
def brute_keep_values(sheet: Scoresheet, rolls_left: int) -> dict[tuple[int, ...], float]:
    """Expected final total of holding each keep with rolls_left rolls left."""
    values = {}
    for keep in {k for roll in ALL_ROLLS for k in _subkeeps(roll)}:
        values[keep] = sum(p * brute_roll_value(sheet, roll, rolls_left - 1) for roll, p in _outcomes(keep))
    return values


@cache
def brute_roll_value(sheet: Scoresheet, roll: tuple[int, ...], rolls_left: int) -> float:
    if rolls_left == 0:
        return max(brute_box_values(sheet, roll).values())
    keeps = brute_keep_values(sheet, rolls_left)
    return max(keeps[k] for k in _subkeeps(roll))


@cache
def brute_expected_total(sheet: Scoresheet) -> float:
    if sheet.is_complete:
        return float(sheet.total)
    return sum(_probability(roll) * brute_roll_value(sheet, roll, 2) for roll in ALL_ROLLS)


SMALL_POSITIONS = [
    # bonus at stake: three sixes make 63; the Penta box still open
    sheet_with_open({Box.SIXES, Box.PENTA}, upper_total=45),
    # the joker is on: a Penta goes to Fours if it is of fours, else is a joker full house / straight
    sheet_with_open({Box.FOURS, Box.FULL_HOUSE}, upper_total=51, penta=50),
    sheet_with_open({Box.FULL_HOUSE, Box.LARGE_STRAIGHT}, upper_total=63, penta=50),
    # the Penta box was sacrificed: a Penta is an ordinary roll
    sheet_with_open({Box.FULL_HOUSE, Box.SMALL_STRAIGHT}, upper_total=40, penta=0),
    # all lower boxes filled and the joker on: a Penta of another face writes 0 in an upper box
    sheet_with_open({Box.ONES, Box.TWOS}, upper_total=58, penta=50),
    sheet_with_open({Box.CHANCE}, upper_total=12, penta=50),
]
SAMPLE_ROLLS = [
    (1, 2, 3, 4, 5),
    (6, 6, 6, 6, 6),
    (4, 4, 4, 4, 4),
    (1, 1, 1, 1, 1),
    (2, 2, 3, 3, 3),
    (1, 3, 4, 6, 6),
]


@pytest.mark.parametrize("sheet", SMALL_POSITIONS, ids=range(len(SMALL_POSITIONS)))
def test_values_and_decisions_match_brute_force(strategy, sheet):
    assert strategy.expected_total(sheet) == pytest.approx(brute_expected_total(sheet), rel=1e-12)
    for roll in SAMPLE_ROLLS:
        boxes = brute_box_values(sheet, roll)
        best_box = strategy.best_box(sheet, roll)
        assert best_box in boxes
        assert boxes[best_box] == pytest.approx(max(boxes.values()), abs=1e-9)
        for choice in strategy.evaluate(sheet, roll, 0):
            assert choice.expected_total == pytest.approx(boxes[choice.box], abs=1e-9)
        for rolls_left in (1, 2):
            keeps = brute_keep_values(sheet, rolls_left)
            allowed = {k: keeps[k] for k in _subkeeps(roll)}
            keep = strategy.best_keep(sheet, roll, rolls_left)
            assert allowed[keep] == pytest.approx(max(allowed.values()), abs=1e-9)
            choices = strategy.evaluate(sheet, roll, rolls_left)
            assert {c.keep for c in choices} == set(allowed)
            for choice in choices:
                assert choice.expected_total == pytest.approx(allowed[choice.keep], abs=1e-9)


def test_turn_search_agrees_with_the_table(strategy):
    rng = np.random.default_rng(5)
    masks, uppers, pentas = np.nonzero(np.isfinite(strategy.values))
    for i in rng.choice(len(masks), 200):
        state = State(int(masks[i]), int(uppers[i]), int(pentas[i]))
        if state.mask == T.ALL_FILLED:
            continue
        turn = TurnValues.from_table(strategy.values, state)
        assert turn.start_value() == pytest.approx(strategy.values[masks[i], uppers[i], pentas[i]], abs=1e-9)


def test_chunked_and_single_state_final_values_agree(strategy):
    rng = np.random.default_rng(11)
    masks, uppers, pentas = np.nonzero(np.isfinite(strategy.values))
    pick = [i for i in rng.choice(len(masks), 300) if masks[i] != T.ALL_FILLED]
    m, u, p = masks[pick], uppers[pick], pentas[pick]
    ws = solver._Workspace(len(pick))
    chunk = solver.final_roll_values(strategy.values, m, u, p, ws.keeps[T.ROLL_OFFSET :], ws)
    for j in range(len(pick)):
        one = solver.final_roll_values_one(strategy.values, int(m[j]), int(u[j]), int(p[j]))
        np.testing.assert_array_equal(one, chunk[:, j])


# -- decisions: shape and order ----------------------------------------------------------------------


def assert_best_first(choices: list[Choice]) -> None:
    # Values equal to 1e-9 count as ties (broken by a stated rule), so allow rounding noise between them.
    for better, worse in pairwise(choices):
        assert better.expected_total >= worse.expected_total - 1e-9


@pytest.mark.parametrize("roll", SAMPLE_ROLLS)
@pytest.mark.parametrize("rolls_left", [1, 2])
def test_evaluate_is_sorted_and_led_by_best_keep(strategy, roll, rolls_left):
    choices = strategy.evaluate(EMPTY, roll, rolls_left)
    assert_best_first(choices)
    assert choices[0].keep == strategy.best_keep(EMPTY, roll, rolls_left)
    assert all(isinstance(c, Choice) and c.box is None and c.points is None for c in choices)
    assert len({c.keep for c in choices}) == len(choices) == len(_subkeeps(roll))


def test_evaluate_boxes_sorted_and_led_by_best_box(strategy):
    sheet = sheet_with_open({Box.FOURS, Box.FULL_HOUSE, Box.CHANCE, Box.PENTA}, upper_total=40)
    for roll in SAMPLE_ROLLS:
        choices = strategy.evaluate(sheet, roll, 0)
        assert_best_first(choices)
        assert choices[0].box is strategy.best_box(sheet, roll)
        assert {c.box: c.points for c in choices} == sheet.options(roll)


def test_holding_everything_is_worth_scoring_now(strategy):
    roll = (2, 2, 3, 3, 3)
    held_all = next(c for c in strategy.evaluate(EMPTY, roll, 1) if c.keep == roll)
    assert held_all.expected_total == pytest.approx(strategy.evaluate(EMPTY, roll, 0)[0].expected_total)


def test_keeps_a_promising_hand(strategy):
    assert strategy.best_keep(EMPTY, (6, 6, 6, 1, 2), 2) == (6, 6, 6)
    assert strategy.best_keep(EMPTY, (1, 2, 3, 4, 5), 2) == (1, 2, 3, 4, 5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dice=st.lists(st.integers(1, 6), min_size=5, max_size=5), rolls_left=st.sampled_from([1, 2]))
def test_best_keep_is_a_sub_multiset_of_the_dice(strategy, dice, rolls_left):
    keep = strategy.best_keep(EMPTY, dice, rolls_left)
    assert is_subkeep(keep, dice)
    assert list(keep) == sorted(keep)


@settings(max_examples=300, deadline=None)
@given(
    open_boxes=st.sets(st.sampled_from(list(Box)), min_size=1),
    upper_seed=st.integers(0, 10**6),
    penta=st.sampled_from([0, 50]),
    dice=st.one_of(
        st.integers(1, 6).map(lambda v: [v] * 5), st.lists(st.integers(1, 6), min_size=5, max_size=5)
    ),
)
def test_table_options_are_the_rules_engine_options(open_boxes, upper_seed, penta, dice):
    rng = np.random.default_rng(upper_seed)
    boxes = {b: int(rng.integers(0, 6)) * b.face for b in Box if b.is_upper and b not in open_boxes}
    boxes |= {b: penta if b is Box.PENTA else 0 for b in Box if not b.is_upper and b not in open_boxes}
    sheet = Scoresheet(boxes)
    assert dict(legal_options(State.of(sheet), tuple(dice))) == sheet.options(dice)


# -- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dice", [(1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (0, 1, 2, 3, 4), (1, 2, 3, 4, 7), "12345", None]
)
def test_best_keep_rejects_bad_dice(strategy, dice):
    with pytest.raises(ValueError, match=r"dice|die"):
        strategy.best_keep(EMPTY, dice, 2)


@pytest.mark.parametrize("rolls_left", [0, 3, -1, True, "2", None])
def test_best_keep_rejects_bad_rolls_left(strategy, rolls_left):
    with pytest.raises(ValueError, match="rolls_left"):
        strategy.best_keep(EMPTY, (1, 2, 3, 4, 5), rolls_left)


def test_no_decision_on_a_complete_sheet(strategy):
    full = Scoresheet({b: 0 for b in Box})
    assert strategy.expected_total(full) == 0
    with pytest.raises(ValueError, match="complete"):
        strategy.best_box(full, (1, 2, 3, 4, 5))
    with pytest.raises(ValueError, match="complete"):
        strategy.best_keep(full, (1, 2, 3, 4, 5), 1)


def test_best_box_rejects_bad_dice(strategy):
    with pytest.raises(InvalidDice):
        strategy.best_box(EMPTY, (1, 2, 3))


# -- the cache file ----------------------------------------------------------------------------------


def test_cache_round_trip(tmp_path, strategy):
    path = tmp_path / "s.npz"
    strategy_cache.save(path, strategy.values)
    assert os.listdir(tmp_path) == ["s.npz"]  # the temporary file was moved into place
    loaded = strategy_cache.load(path)
    np.testing.assert_array_equal(loaded, strategy.values)
    assert not loaded.flags.writeable


def _rewrite(path, **changes):
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(changes)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda p: p.write_bytes(b"not a zip at all"), "unreadable"),
        (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "unreadable"),
        (lambda p: _rewrite(p, format_version=np.array(strategy_cache.FORMAT_VERSION - 1)), "format version"),
        (lambda p: _rewrite(p, rules_fingerprint=np.array("0" * 64)), "other rules"),
        (lambda p: _rewrite(p, checksum=np.array("0" * 64)), "checksum"),
        (lambda p: _rewrite(p, values=np.zeros(strategy_cache.SHAPE)), "checksum"),
        (lambda p: _rewrite(p, values=np.zeros(3)), "shape"),
        (lambda p: p.unlink(), "no such file"),
    ],
    ids=[
        "garbage",
        "truncated",
        "old-version",
        "other-rules",
        "bad-checksum",
        "tampered",
        "bad-shape",
        "missing",
    ],
)
def test_damaged_cache_is_detected(tmp_path, strategy, damage, reason):
    path = tmp_path / "s.npz"
    strategy_cache.save(path, strategy.values)
    damage(path)
    with pytest.raises(strategy_cache.StaleCache, match=reason):
        strategy_cache.load(path)


def test_damaged_cache_is_rebuilt_and_rewritten(tmp_path, strategy, monkeypatch):
    builds = []

    def fake_solve(progress=None):
        builds.append(1)
        return strategy.values.copy()

    monkeypatch.setattr(solver, "solve", fake_solve)
    path = tmp_path / "s.npz"
    path.write_bytes(b"PK\x03\x04 truncated")
    loaded = Strategy.load(path)
    assert builds == [1]
    assert loaded.expected_total(EMPTY) == pytest.approx(254.4848458816832, rel=1e-9)
    assert zipfile.is_zipfile(path)
    Strategy.load(path)  # now valid: loaded, not rebuilt
    assert builds == [1]


def test_default_path_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(strategy_cache.ENV_VAR, str(tmp_path / "x.npz"))
    assert strategy_cache.default_path() == tmp_path / "x.npz"
    monkeypatch.delenv(strategy_cache.ENV_VAR)
    path = strategy_cache.default_path()
    assert path.parent.parts[-2:] == ("var", "strategy")
    assert path.name == f"penta-strategy-v{strategy_cache.FORMAT_VERSION}.npz"
