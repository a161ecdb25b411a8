"""The analysis of a game against optimal play (pure: no database)."""

from __future__ import annotations

import time

import pytest

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import analysis as A
from dicegame.strategy.simulate import seed_from_number
from tests.support.games import bot_game_logs

ALL_HELD = [True] * 5
NONE_HELD = [False] * 5


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return Strategy.shared()


def one_turn(rolls: list[tuple[list[int], list[bool]]], box: Box, **flags) -> A.TurnLog:
    return A.TurnLog(
        number=1,
        round=1,
        seat=0,
        rolls=[{"dice": d, "held": h} for d, h in rolls],
        box=box.name,
        **flags,
    )


@pytest.mark.parametrize(
    ("cost", "label"),
    [
        (0, "best"),
        (0.009, "best"),
        (0.01, "inaccuracy"),
        (1.99, "inaccuracy"),
        (2, "mistake"),
        (5.99, "mistake"),
        (6, "blunder"),
        (40, "blunder"),
    ],
)
def test_labels_follow_the_thresholds(cost, label):
    assert A.label_for(cost) == label


def test_a_game_played_by_the_hard_bot_loses_nothing(strategy):
    logs = bot_game_logs(["hard"], seed_from_number(7))
    data = A.analyse_game(logs, [0], strategy)
    summary = data["seats"]["0"]["summary"]
    assert summary["loss"] == 0
    assert summary["counts"]["best"] == summary["decisions"] >= 13
    assert all(d["cost"] == 0 and d["label"] == "best" for t in data["turns"] for d in t["decisions"])


def test_the_weaker_bots_lose_expected_points(strategy):
    logs = bot_game_logs(["hard", "easy"], seed_from_number(8))
    data = A.analyse_game(logs, [0, 1], strategy)
    assert data["seats"]["0"]["summary"]["loss"] == 0
    easy = data["seats"]["1"]["summary"]
    assert easy["loss"] > 5 and easy["avg_loss"] == pytest.approx(easy["loss"] / easy["decisions"], abs=1e-3)
    assert sum(easy["counts"].values()) == easy["decisions"]


def test_a_bad_box_costs_exactly_what_evaluate_says(strategy):
    dice = [6, 6, 6, 6, 6]
    turn = one_turn([(dice, NONE_HELD)], Box.CHANCE)  # five sixes, stopped after one roll, into Chance
    data = A.analyse_game([turn], [0], strategy)
    stop, box = data["turns"][0]["decisions"]

    keeps = strategy.evaluate(Scoresheet(), dice, 2)
    stop_choice = next(c for c in keeps if c.keep == (6, 6, 6, 6, 6))
    assert stop["kind"] == "keep" and stop["chosen"]["keep"] == [6, 6, 6, 6, 6]
    assert stop["cost"] == pytest.approx(keeps[0].expected_total - stop_choice.expected_total, abs=1e-4)

    boxes = strategy.evaluate(Scoresheet(), dice, 0)
    chance = next(c for c in boxes if c.box is Box.CHANCE)
    expected_cost = boxes[0].expected_total - chance.expected_total
    assert boxes[0].box is Box.PENTA
    assert box["kind"] == "box" and box["chosen"] == {
        "box": "CHANCE",
        "points": 30,
        "value": box["chosen"]["value"],
    }
    assert box["best"]["box"] == "PENTA"
    assert box["cost"] == pytest.approx(expected_cost, abs=1e-4)
    assert box["label"] == A.label_for(expected_cost) == "blunder"
    assert data["seats"]["0"]["summary"]["loss"] == pytest.approx(stop["cost"] + box["cost"], abs=1e-3)


def test_a_bad_hold_costs_exactly_what_evaluate_says(strategy):
    # 1 2 3 4 6: the player holds the 6 alone (dice 5) and rerolls four, then stops after roll 2.
    first = [1, 2, 3, 4, 6]
    second = [5, 5, 2, 1, 6]
    held = [False, False, False, False, True]
    turn = one_turn([(first, NONE_HELD), (second, held)], Box.FIVES)
    data = A.analyse_game([turn], [0], strategy)
    hold, stop, box = data["turns"][0]["decisions"]

    choices = strategy.evaluate(Scoresheet(), first, 2)
    mine = next(c for c in choices if c.keep == (6,))
    assert hold["chosen"]["keep"] == [6] and hold["best"]["keep"] == list(choices[0].keep)
    assert hold["cost"] == pytest.approx(choices[0].expected_total - mine.expected_total, abs=1e-4)
    assert hold["label"] == A.label_for(hold["cost"])
    assert hold["held_next"] == held and hold["roll"] == 1
    # Stopping after the second roll is a hold of all five with one roll left.
    after = strategy.evaluate(Scoresheet(), second, 1)
    stopped = next(c for c in after if c.keep == tuple(sorted(second)))
    assert stop["chosen"]["keep"] == sorted(second) and stop["roll"] == 2
    assert stop["cost"] == pytest.approx(after[0].expected_total - stopped.expected_total, abs=1e-4)
    assert box["roll"] == 2 and box["chosen"]["points"] == 10


def test_values_run_from_the_optimal_start_to_the_final_total(strategy):
    logs = bot_game_logs(["medium"], seed_from_number(9))
    data = A.analyse_game(logs, [0], strategy)
    seat = data["seats"]["0"]
    values = seat["values"]
    assert values[0] == [0, pytest.approx(strategy.expected_total(Scoresheet()), abs=1e-3)]
    assert values[-1] == [13, pytest.approx(seat["final"], abs=1e-6)]
    assert [x for x, _v in values] == sorted(x for x, _v in values)
    decisions = sum(len(t["decisions"]) for t in data["turns"])
    assert len(values) == decisions + 1


def test_the_auto_commits_box_and_stand_in_turns_are_shown_but_not_counted(strategy):
    logs = bot_game_logs(["easy"], seed_from_number(10))
    # Turn 2 rolled three times, so its box could be the auto-commit's.
    auto = next(t.number for t in logs if len(t.rolls) == 3 and t.number > 1)
    stand_in = next(t.number for t in logs if t.number not in (1, auto))
    flagged = [
        A.TurnLog(**{**t.__dict__, "auto_committed": t.number == auto, "stand_in": t.number == stand_in})
        for t in logs
    ]
    plain = A.analyse_game(logs, [0], strategy)["seats"]["0"]["summary"]
    data = A.analyse_game(flagged, [0], strategy)
    summary = data["seats"]["0"]["summary"]
    by_number = {t["number"]: t["decisions"] for t in data["turns"]}
    skipped = [*by_number[stand_in], by_number[auto][-1]]
    assert by_number[auto][-1]["kind"] == "box"
    assert not any(d["counted"] for d in skipped)
    assert summary["uncounted"] == len(skipped)
    assert summary["decisions"] == plain["decisions"] - len(skipped)
    assert summary["loss"] == pytest.approx(plain["loss"] - sum(d["cost"] for d in skipped), abs=1e-3)
    assert summary["turns"] == plain["turns"] - 1  # only the stand-in turn leaves the accuracy


def test_the_holds_of_an_auto_committed_turn_are_the_persons_and_count(strategy):
    # The person held twice and let the auto-commit write the box: the holds were theirs (issue 44: a
    # solver's user who leaves every box to the auto-commit must not hide their holds with it).
    logs = bot_game_logs(["hard"], seed_from_number(12))
    auto = [t.number for t in logs if len(t.rolls) == 3]
    flagged = [A.TurnLog(**{**t.__dict__, "auto_committed": t.number in auto}) for t in logs]
    data = A.analyse_game(flagged, [0], strategy)
    for turn in data["turns"]:
        if turn["number"] in auto:
            assert [d["counted"] for d in turn["decisions"]] == [True, True, False]
    summary = data["seats"]["0"]["summary"]
    assert summary["uncounted"] == len(auto)
    assert summary["turns"] == 13


def bad(rolls: list[list[int]], box: str) -> A.TurnLog:
    return A.TurnLog(1, 1, 0, [{"dice": d, "held": NONE_HELD} for d in rolls], box)


@pytest.mark.parametrize(
    "turn",
    [
        bad([], "CHANCE"),  # no roll
        bad([[1, 2, 3, 4, 5]] * 4, "CHANCE"),  # four rolls
        bad([[1, 1, 1, 1, 1]], "NOPE"),  # no such box
        bad([[1, 2, 3, 4, 9]], "CHANCE"),  # not a die
        bad([[1, 2, 3]], "CHANCE"),  # three dice
    ],
    ids=["no-roll", "four-rolls", "no-box", "bad-die", "three-dice"],
)
def test_a_log_that_cannot_be_replayed_is_an_analysis_error(strategy, turn):
    with pytest.raises(A.AnalysisError):
        A.analyse_game([turn], [0], strategy)


def test_a_box_filled_twice_is_an_analysis_error(strategy):
    a = one_turn([([1, 1, 1, 1, 1], NONE_HELD)], Box.ONES)
    b = A.TurnLog(2, 2, 0, [{"dice": [1, 1, 2, 2, 2], "held": NONE_HELD}], "ONES")
    with pytest.raises(A.AnalysisError, match="turn 2"):
        A.analyse_game([a, b], [0], strategy)


def test_a_four_player_game_is_analysed_well_under_a_second(strategy):
    logs = bot_game_logs(["hard", "medium", "easy", "medium"], seed_from_number(11))
    strategy._turn.cache_clear()  # no within-turn search left over from the bots' own play
    started = time.perf_counter()
    data = A.analyse_game(logs, [0, 1, 2, 3], strategy)
    elapsed = time.perf_counter() - started
    print(f"4-player analysis: {elapsed * 1000:.0f} ms")
    assert len(data["turns"]) == 52
    assert elapsed < 1.0
