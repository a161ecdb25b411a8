"""The fair-play model (`fairplay.model`): properties of its evidence and its line, what its honest side
explains (habits learned from the person's own choices, a temperature per kind of decision, the
allowance), and the records a game keeps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay import model as M
from fairplay.model import BOX, HOLD_FIRST, HOLD_SECOND, Decision

value_st = st.floats(0.0, 400.0)


@st.composite
def decisions(draw, values=None) -> Decision:
    if values is None:
        values = st.lists(value_st, min_size=1, max_size=3).map(lambda v: tuple(sorted(v, reverse=True)))
    values = draw(values)
    chosen = draw(st.one_of(st.none(), st.integers(0, len(values) - 1)))
    # None: a choice below the stored ones, so worth at most the last of them.
    chosen_value = values[chosen] if chosen is not None else values[-1] - draw(st.floats(0.0, 50.0))
    kind = draw(st.sampled_from(M.KINDS))
    return Decision(
        values,
        chosen,
        chosen_value,
        draw(st.one_of(st.none(), st.floats(0.1, 60.0))),
        kind=kind,
        rules=draw(st.integers(0, 2 ** M.RULES[kind] - 1)),
    )


decision_lists = st.lists(decisions(), max_size=40)


@st.composite
def near_tie_values(draw) -> tuple[float, ...]:
    """The best choice ahead of the second by less than MARGIN (a little less: float rounding)."""
    best = draw(value_st)
    second = best - draw(st.floats(0.0, 0.99 * M.MARGIN))
    rest = draw(st.lists(st.floats(0.0, 50.0), max_size=1))
    return (best, second, *(second - r for r in rest))


def choice(margin: float, taken: int = 0, *, kind: int = BOX, rules: int = 0, seconds=None) -> Decision:
    """One of three choices, the best `margin` ahead of the second and twice that of the third."""
    values = (250.0, 250.0 - margin, 250.0 - 2 * margin)
    return Decision(values, taken, values[taken], seconds, kind=kind, rules=rules)


def evidence(ds) -> float:
    return M.choice_evidence(M.records(ds))


def test_no_decisions_is_no_evidence():
    assert evidence([]) == 0.0
    v = M.verdict([])
    assert (v.evidence, v.flagged) == (0.0, False)


@settings(max_examples=60, deadline=None)
@given(decision_lists)
def test_choice_evidence_is_never_negative(ds):
    assert evidence(ds) >= 0.0


@settings(max_examples=100, deadline=None)
@given(decision_lists)
def test_a_games_records_survive_storing(ds):
    rows = M.records(ds)
    back = M.unpack(M.pack(rows))
    assert len(back) == sum(d.informative for d in ds)
    np.testing.assert_array_equal(back["kind"], rows["kind"])
    np.testing.assert_array_equal(back["rules"], rows["rules"])
    np.testing.assert_allclose(back["behind"], rows["behind"], rtol=1e-6, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(decision_lists, decisions(near_tie_values()))
def test_near_ties_say_nothing(base, near_tie):
    assert not near_tie.informative
    assert len(M.records([*base, near_tie])) == len(M.records(base))


@settings(max_examples=60, deadline=None)
@given(decision_lists, value_st, st.one_of(st.none(), st.just(0)))
def test_single_choices_say_nothing(base, value, chosen):
    only = Decision((value,), chosen, value if chosen == 0 else value - 1.0, 3.0, rules=1)
    assert not only.informative
    assert len(M.records([*base, only])) == len(M.records(base))


@settings(max_examples=25, deadline=None)
@given(decision_lists, st.randoms(use_true_random=False))
def test_the_order_of_the_decisions_does_not_matter(ds, random):
    shuffled = list(ds)
    random.shuffle(shuffled)
    assert evidence(shuffled) == pytest.approx(evidence(ds), abs=0.05)


def test_always_the_best_where_no_rule_of_thumb_agrees_crosses_the_line():
    # Close calls, always decided as the solver decides, and never what a rule of thumb takes.
    ds = [choice(0.5, kind=k) for k in M.KINDS] * 30
    found = M.fits(M.Prepared.of(M.records(ds)))
    assert found.evidence >= M.FLAG_EVIDENCE
    assert found.assisted.share > 0.9 and found.honest.share <= M.ALLOWANCE + 1e-9
    # More of the same only adds evidence.
    assert evidence(ds * 2) > found.evidence


def test_a_person_who_follows_their_own_rule_is_explained_by_it_right_or_wrong():
    # Rule 3 names the choice taken every time: the best one half of the time, a clear mistake the
    # other half. The person's habit is that rule, learned from their own choices: no sign of help.
    right = [choice(0.8, 0, kind=k, rules=1 << 3) for k in M.KINDS] * 20
    wrong = [choice(2.0, 2, kind=k, rules=1 << 3) for k in M.KINDS] * 20
    ds = right + wrong
    found = M.fits(M.Prepared.of(M.records(ds)))
    assert found.evidence < 1.0
    assert found.honest.weights[BOX, 3] > 0.8  # the habit learned


def test_the_same_rule_with_the_solvers_choice_where_the_rule_is_wrong_is_help():
    # The same person, but where the rule is wrong they take the solver's choice: over 120 decisions
    # the rule cannot explain those, nor can judgement (as sharp as the rule's mistakes allow).
    right = [choice(0.8, 0, kind=k, rules=1 << 3) for k in M.KINDS] * 20
    rescued = [choice(0.8, 0, kind=k, rules=1 << 5) for k in M.KINDS] * 20
    wrong = [choice(2.0, 2, kind=k, rules=1 << 3) for k in M.KINDS] * 10
    assert evidence(right + rescued + wrong) >= M.FLAG_EVIDENCE


def test_sharp_boxes_and_loose_holds_are_one_honest_person():
    # Always the best box on clear calls, holds taken loosely (the second choice of close ones): a
    # temperature per kind explains both; one temperature for all would need help for the boxes.
    boxes = [choice(1.5, 0, kind=BOX) for _ in range(60)]
    holds = [choice(0.4, taken, kind=kind) for kind in (HOLD_FIRST, HOLD_SECOND) for taken in (0, 1, 1) * 20]
    found = M.fits(M.Prepared.of(M.records(boxes + holds)))
    assert found.evidence < 1.0
    assert found.honest.temperatures[BOX] < found.honest.temperatures[HOLD_FIRST]


def test_the_allowance_covers_a_share_of_unexplained_best_choices():
    # A share of best choices beyond judgement below the allowance is honest; far above it, it is not.
    rng = np.random.default_rng(3)

    def person(extra: float, n: int = 600) -> list[Decision]:
        out = []
        for _ in range(n):
            kind = int(rng.integers(0, 3))
            taken = 0 if rng.random() < extra else int(rng.choice(3, p=[0.5, 0.3, 0.2]))
            out.append(choice(1.0, taken, kind=kind))
        return out

    assert evidence(person(M.ALLOWANCE / 3)) < 2.0
    assert evidence(person(0.7, 1500)) >= M.FLAG_EVIDENCE


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.01, 600.0), max_size=M.MIN_TIMED - 1))
def test_too_few_times_say_nothing(seconds):
    stats = M.TimeStats()
    for s in seconds:
        stats.add(s)
    assert M.time_evidence(stats) == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.01, 600.0), max_size=200))
def test_time_evidence_is_capped(seconds):
    stats = M.TimeStats()
    for s in seconds:
        stats.add(s)
    assert 0.0 <= M.time_evidence(stats) <= M.TIME_CAP


def test_a_steady_pace_reaches_the_time_cap_and_no_further():
    ds = [choice(1.0, seconds=6.0) for _ in range(M.MIN_TIMED)]
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


@pytest.fixture(scope="module")
def huge_game() -> M.GameSignals:
    return M.game_signals([choice(0.5, kind=k, seconds=6.0) for k in M.KINDS] * 60, hidden=50)


def test_the_line_needs_enough_suspicious_games_whatever_the_evidence(huge_game):
    few = M.verdict([huge_game] * (M.MIN_SUSPICIOUS_GAMES - 1))
    assert few.choice >= 5 * M.FLAG_EVIDENCE
    assert few.suspicious_games == M.MIN_SUSPICIOUS_GAMES - 1
    assert not few.flagged
    assert M.verdict([huge_game] * M.MIN_SUSPICIOUS_GAMES).flagged


def test_the_line_needs_a_share_of_suspicious_games(huge_game):
    quiet = M.game_signals([])
    games = int(M.MIN_SUSPICIOUS_GAMES / M.MIN_SUSPICIOUS_SHARE) + 5
    v = M.verdict([huge_game] * M.MIN_SUSPICIOUS_GAMES + [quiet] * (games - M.MIN_SUSPICIOUS_GAMES))
    assert v.suspicious_games == M.MIN_SUSPICIOUS_GAMES
    assert v.evidence >= M.FLAG_EVIDENCE
    assert not v.flagged


def test_weak_signals_alone_never_flag():
    # A solver's steady pace and a hidden page, on games whose choices look nothing like the solver's
    # (always the second best of a clear call).
    game = M.game_signals([Decision((250.0, 249.0, 248.0), 1, 249.0, 6.0)] * 40, hidden=100)
    v = M.verdict([game] * 20)
    assert v.time == M.TIME_CAP and v.hidden == M.HIDDEN_CAP
    assert v.choice == 0.0
    assert not v.flagged


def test_an_account_is_weighed_on_its_last_games(huge_game, monkeypatch):
    monkeypatch.setattr(M, "GAMES_WEIGHED", 4)
    quiet = M.game_signals([choice(1.0, 1)] * 30)
    v = M.verdict([huge_game] * 5 + [quiet] * 4)
    assert v.games == 4 and v.suspicious_games == 0 and v.choice == 0.0


def test_the_panel_has_the_rules_the_model_counts():
    from fairplay import habits

    assert (len(habits.HOLDS), len(habits.HOLDS), len(habits.BOXES)) == M.RULES
