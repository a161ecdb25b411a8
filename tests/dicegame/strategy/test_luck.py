"""Luck against skill (pure: no database). For every seat with a complete sheet, exactly:

    final total = V(start) + total luck - total loss

on games of the three computer strengths with the server's dice, on random players who hold and write
anything legal (stopping early, writing zeros, Penta bonuses, forced jokers), and on Hypothesis's."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import analysis as A
from dicegame.strategy.simulate import seed_from_number
from dicegame.strategy.turn import State, legal_options
from tests.support.games import bot_game_logs

TOLERANCE = 0.01  # the stored figures are rounded to 4 decimals; a game has at most 52 of them a seat


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return Strategy.shared()


def assert_identity(data: dict) -> None:
    for key, seat in data["seats"].items():
        assert seat["complete"], key
        assert seat["final"] == pytest.approx(
            seat["start"] + seat["luck"] - seat["total_loss"], abs=TOLERANCE
        )
        # The same figures from the parts: the luck of every roll, the loss of every decision.
        turns = [t for t in data["turns"] if str(t["seat"]) == key]
        luck = sum(r["luck"] for t in turns for r in t["rolls"])
        loss = sum(d["cost"] for t in turns for d in t["decisions"])
        assert luck == pytest.approx(seat["luck"], abs=TOLERANCE)
        assert loss == pytest.approx(seat["total_loss"], abs=TOLERANCE)
        assert seat["adjusted"] == pytest.approx(seat["start"] - seat["total_loss"], abs=1e-3)
        assert seat["lines"][-1][1:] == pytest.approx([seat["luck"], seat["total_loss"]], abs=1e-3)


def random_game(rng: random.Random, *, penta_bias: float = 0.35, bad: float = 1.0) -> list[A.TurnLog]:
    """One seat's 13 turns by a player who holds at random, stops at random and writes in a random legal
    box (with probability `bad`; else the box scoring most). Dice lean to Pentas so that bonuses and
    forced jokers come up often."""
    sheet = Scoresheet()
    logs = []
    for number in range(1, 14):
        face = rng.randint(1, 6)

        def die() -> int:
            return face if rng.random() < penta_bias else rng.randint(1, 6)  # noqa: B023

        dice = [die() for _ in range(5)]
        rolls = [{"dice": list(dice), "held": [False] * 5}]
        while len(rolls) < 3 and rng.random() < 0.7:
            held = [(d == face) or rng.random() < 0.3 for d in dice]  # chasing the face, mostly
            if all(held):
                break  # holding all five is stopping
            dice = [d if h else die() for d, h in zip(dice, held, strict=True)]
            rolls.append({"dice": list(dice), "held": held})
        options = legal_options(State.of(sheet), tuple(dice))
        box = rng.choice(options)[0] if rng.random() < bad else max(options, key=lambda o: o[1])[0]
        if len(set(dice)) == 1 and Box.PENTA not in sheet.boxes and rng.random() < 0.8:
            box = Box.PENTA  # 50 there, so that later Pentas bring bonuses
        before = sheet
        sheet = sheet.place(box, dice)
        logs.append(
            A.TurnLog(
                number, number, 0, rolls, box.name, sheet.boxes[box], sheet.penta_bonus - before.penta_bonus
            )
        )
    return logs


@pytest.mark.parametrize("strengths", [["hard", "medium", "easy", "easy"], ["medium", "hard"], ["easy"]])
def test_the_identity_holds_for_the_computer_players_on_the_server_dice(strategy, strengths):
    for game in range(6):
        seed = seed_from_number(300 + game)
        data = A.analyse_game(bot_game_logs(strengths, seed, game), range(len(strengths)), strategy)
        assert_identity(data)


def test_the_identity_holds_for_random_play_with_bonuses_jokers_and_sacrifices(strategy):
    rng = random.Random(2026)
    seen = {"penta_bonus": 0, "forced_joker": 0, "zero": 0, "stopped_early": 0}
    for _ in range(40):
        logs = random_game(rng, penta_bias=rng.choice([0.2, 0.5]), bad=rng.choice([1.0, 0.5, 0.0]))
        sheet = Scoresheet()
        for t in logs:
            final = t.rolls[-1]["dice"]
            if len(set(final)) == 1 and Box.PENTA in sheet.boxes and Box.upper(final[0]) in sheet.boxes:
                seen["forced_joker"] += 1
            seen["penta_bonus"] += t.bonus > 0
            seen["zero"] += t.points == 0
            seen["stopped_early"] += len(t.rolls) < 3
            sheet = sheet.place(Box[t.box], final)
        assert_identity(A.analyse_game(logs, [0], strategy))
    assert all(seen.values()), seen  # every case the identity must survive did come up


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), bias=st.floats(0.0, 0.9), bad=st.floats(0.0, 1.0))
def test_the_identity_holds_for_any_legal_game(strategy, seed, bias, bad):
    assert_identity(A.analyse_game(random_game(random.Random(seed), penta_bias=bias, bad=bad), [0], strategy))


def test_the_luck_of_a_roll_is_the_best_after_it_minus_the_value_before_it(strategy):
    first, second = [1, 1, 2, 3, 5], [1, 1, 1, 6, 6]
    held = [True, True, False, False, False]
    log = A.TurnLog(1, 1, 0, [{"dice": first, "held": [False] * 5}, {"dice": second, "held": held}], "ONES")
    data = A.analyse_game([log], [0], strategy)
    start = strategy.expected_total(Scoresheet())
    after_first = strategy.evaluate(Scoresheet(), first, 2)
    kept = next(c for c in after_first if c.keep == (1, 1))
    after_second = strategy.evaluate(Scoresheet(), second, 1)[0].expected_total
    rolls = data["turns"][0]["rolls"]
    assert rolls[0]["luck"] == pytest.approx(after_first[0].expected_total - start, abs=1e-4)
    assert rolls[1]["luck"] == pytest.approx(after_second - kept.expected_total, abs=1e-4)


def test_stopping_early_costs_what_writing_now_gives_up(strategy):
    """Holding all five after the first roll is stopping: its loss is the best hold minus the best box
    now, not minus the table's value of keeping two rolls in hand."""
    dice = [1, 2, 3, 4, 6]
    log = A.TurnLog(1, 1, 0, [{"dice": dice, "held": [False] * 5}], "CHANCE")
    stop = A.analyse_game([log], [0], strategy)["turns"][0]["decisions"][0]
    best = strategy.evaluate(Scoresheet(), dice, 2)[0].expected_total
    now = strategy.evaluate(Scoresheet(), dice, 0)[0].expected_total
    assert stop["cost"] == pytest.approx(best - now, abs=1e-4) and stop["cost"] > 1


def test_accuracy_is_100_for_optimal_play_and_falls_with_the_loss_per_turn():
    assert A.accuracy(0.0, 13) == 100.0
    assert A.accuracy(13.0, 13) > A.accuracy(26.0, 13) > A.accuracy(130.0, 13) > 0
    assert A.accuracy(13.0, 13) == A.accuracy(26.0, 26)  # per turn: comparable across games
    assert A.accuracy(5.0, 0) is None


def test_the_computer_strengths_rank_by_accuracy(strategy):
    by = {}
    for strength in ("hard", "medium", "easy"):
        accs = []
        for game in range(3):
            data = A.analyse_game(
                bot_game_logs([strength], seed_from_number(500 + game), game), [0], strategy
            )
            accs.append(data["seats"]["0"]["accuracy"])
        by[strength] = sum(accs) / len(accs)
    assert by["hard"] == 100.0 and by["hard"] > by["medium"] > by["easy"]
