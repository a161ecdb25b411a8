"""Duplicate scoring (tournaments.scoring, pure): matchpoints worked out by hand, with ties, entrants who
did not start, fields of one; the tie-breaks; and Hypothesis properties of any round."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.scoring import round_matchpoints, round_shares, standings


def test_matchpoints_of_a_round_with_a_tie_worked_by_hand():
    # Totals 250, 210, 210, 180. Ann beats all three: 3. Ben and Cas tie with each other (1/2) and beat
    # Dirk: 1.5 each. Dirk beats nobody: 0. Most possible: 3.
    field = {"ann": 250, "ben": 210, "cas": 210, "dirk": 180}
    assert round_matchpoints(field) == {
        "ann": Fraction(3),
        "ben": Fraction(3, 2),
        "cas": Fraction(3, 2),
        "dirk": Fraction(0),
    }
    shares = round_shares(field)
    assert shares == {"ann": 1, "ben": Fraction(1, 2), "cas": Fraction(1, 2), "dirk": 0}


def test_an_entrant_who_did_not_start_is_beaten_by_everyone_who_did():
    # Eva never started (None): 0. Even Dirk's 0 total (a game started and closed empty) beats her, and
    # two entrants who did not start score nothing against each other either.
    field = {"ann": 120, "dirk": 0, "eva": None, "fay": None}
    assert round_matchpoints(field) == {"ann": 3, "dirk": 2, "eva": 0, "fay": 0}
    assert round_shares(field)["dirk"] == Fraction(2, 3)


def test_a_field_of_one_is_an_average_round():
    assert round_shares({"ann": 200}) == {"ann": Fraction(1, 2)}
    assert round_shares({"ann": None}) == {"ann": 0}


def test_standings_sum_the_rounds_and_break_ties_by_points_then_the_last_round():
    # Round 1: a 200, b 200, c 150, d did not start -> a 2.5/3, b 2.5/3, c 1/3, d 0.
    # Round 2: a 100, b 250, c 150, d 150          -> a 0,     b 3/3,   c 1.5/3, d 1.5/3.
    # Scores: b 5.5/3 (183.3 %), a 2.5/3, c 2.5/3 (83.3 % each), d 1.5/3 (50 %).
    # a and c: equal score, equal points (300 each); c's last round (50 %) beats a's (0 %): c second.
    rounds = [{"a": 200, "b": 200, "c": 150, "d": None}, {"a": 100, "b": 250, "c": 150, "d": 150}]
    table = standings(rounds, "abcd", "abcd")
    assert [(s.entrant, s.place) for s in table] == [("b", 1), ("c", 2), ("a", 3), ("d", 4)]
    by = {s.entrant: s for s in table}
    assert by["b"].score == Fraction(11, 6) and round(by["b"].percent, 2) == 183.33
    assert by["a"].score == by["c"].score == Fraction(5, 6) and by["a"].points == by["c"].points == 300
    assert by["c"].last == Fraction(1, 2) and by["a"].last == 0
    assert by["d"].points == 150 and by["d"].rounds[0].total is None


def test_entrants_equal_in_score_points_and_last_round_share_the_place():
    rounds = [{"a": 200, "b": 180, "c": 180, "d": 100}]
    table = standings(rounds, "abcd", "abcd")
    assert [(s.entrant, s.place) for s in table] == [("a", 1), ("b", 2), ("c", 2), ("d", 4)]


def test_the_unranked_follow_unplaced_and_a_round_without_them_leaves_a_gap():
    # "w" played round 1 (counted in its field: the others scored against them), withdrew, and is not in
    # round 2's field; not ranked.
    rounds = [{"a": 200, "b": 150, "w": 300}, {"a": 100, "b": 200}]
    table = standings(rounds, ["a", "b", "w"], ["a", "b"])
    assert [(s.entrant, s.place) for s in table] == [("b", 1), ("a", 2), ("w", None)]
    by = {s.entrant: s for s in table}
    assert by["a"].rounds[0].share == Fraction(1, 2)  # beat b, lost to w
    assert by["w"].rounds[1] is None


totals = st.one_of(st.none(), st.integers(min_value=0, max_value=400))


@settings(deadline=None)  # a busy machine must not fail it by the clock
@given(st.dictionaries(st.integers(0, 50), totals, min_size=2, max_size=40))
def test_a_rounds_matchpoints_add_up_to_every_pair_decided_once(field):
    played = sum(1 for t in field.values() if t is not None)
    absent = len(field) - played
    # Every pair of players shares one point; every player takes the whole point from every absentee.
    assert sum(round_matchpoints(field).values()) == Fraction(played * (played - 1), 2) + played * absent
    assert all(0 <= s <= 1 for s in round_shares(field).values())


@settings(deadline=None)  # a busy machine must not fail it by the clock
@given(st.dictionaries(st.integers(0, 30), st.integers(0, 400), min_size=2, max_size=30))
def test_a_higher_total_never_scores_fewer_matchpoints(field):
    points = round_matchpoints(field)
    for a, ta in field.items():
        for b, tb in field.items():
            if ta > tb:
                assert points[a] > points[b]
            elif ta == tb:
                assert points[a] == points[b]


@settings(deadline=None)  # a busy machine must not fail it by the clock
@given(
    st.lists(
        st.dictionaries(st.integers(0, 12), st.integers(0, 400), min_size=12, max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_places_follow_the_score_and_equal_lines_share_one(rounds):
    everyone = sorted(rounds[0])
    table = standings(rounds, everyone, everyone)
    for x in table:
        better = [y for y in table if (y.score, y.points, y.last) > (x.score, x.points, x.last)]
        assert x.place == 1 + len(better)
    assert [s.place for s in table] == sorted(s.place for s in table)
