"""Optimal play on the player's own dice: the optimal player replays each seat's slots of the game's seed."""

from __future__ import annotations

import json

import pytest

from analysis import store as analysis_store
from dicegame.models import GameAnalysis
from dicegame.rules.dice import check_turn, roll_dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import analysis as A
from dicegame.strategy.simulate import held_flags
from tests.support.games import make_game

pytestmark = pytest.mark.django_db


def strategy_on_the_seed(seed: str, game: int, seat: int, seats: int) -> tuple[int, list[str]]:
    """An independent loop: Strategy plays 13 turns on the seat's slots (turn (round-1)*seats+seat+1)
    with the server's dice function, holding the leftmost dice of each keep."""
    strategy = Strategy.shared()
    sheet = Scoresheet()
    boxes = []
    for rnd in range(1, 14):
        turn = (rnd - 1) * seats + seat + 1
        dice = roll_dice(seed, game, turn, 1, None, (False,) * 5)
        for roll in (2, 3):
            keep = strategy.best_keep(sheet, dice, 4 - roll)
            if len(keep) == 5:
                break
            dice = roll_dice(seed, game, turn, roll, dice, held_flags(dice, keep))
        box = strategy.best_box(sheet, dice)
        boxes.append(box.name)
        sheet = sheet.place(box, dice)
    return sheet.total, boxes


def test_the_optimal_line_is_strategy_playing_the_seed_directly(user):
    game = make_game([user, "easy", "medium", "hard"], strengths=["medium", "easy", "medium", "hard"])
    data = analysis_store.analysis_for(game).data
    for seat in range(4):
        line = data["seats"][str(seat)]["optimal"]
        total, boxes = strategy_on_the_seed(game.seed, game.pk, seat, 4)
        assert line["total"] == total
        assert [t["box"] for t in line["turns"]] == boxes
        assert [t["number"] for t in line["turns"]] == [(r - 1) * 4 + seat + 1 for r in range(1, 14)]
        assert line["turns"][-1]["total"] == total
    # The hard computer is the optimal player: on its own dice it plays its own line.
    hard = game.players.get(seat=3)
    assert data["seats"]["3"]["optimal"]["total"] == hard.total


def test_the_optimal_line_s_rolls_are_the_seed_s_dice_at_those_slots(user):
    game = make_game([user, "easy"])
    line = analysis_store.analysis_for(game).data["seats"]["1"]["optimal"]

    for turn in line["turns"]:
        assert check_turn(game.seed, game.pk, turn["number"], turn["rolls"]) == []
        assert 1 <= len(turn["rolls"]) <= 3
    assert sorted(t["box"] for t in line["turns"]) == sorted(b.name for b in Box)


def test_the_export_carries_luck_loss_accuracy_and_the_optimal_line(user, user_client):
    game = make_game([user, "hard"])
    data = json.loads(user_client.get(f"/games/{game.pk}/export.json").content)
    analysis = data["analysis"]
    for number in ("1", "2"):
        seat = analysis["seats"][number]
        for key in ("start", "luck", "total_loss", "accuracy", "adjusted", "final"):
            assert key in seat
        assert seat["final"] == pytest.approx(seat["start"] + seat["luck"] - seat["total_loss"], abs=0.01)
        assert len(seat["optimal"]["turns"]) == 13
    hard = game.players.get(seat=1)
    assert analysis["seats"]["2"]["optimal"]["total"] == hard.total
    assert analysis["seats"]["2"]["accuracy"] == 100.0
    rolls = analysis["rolls"]
    assert rolls and all(isinstance(r["luck"], float) for r in rolls)
    assert sum(len(t["rolls"]) for t in data["turns"]) == len(rolls)
    assert all("cost" in d for d in analysis["decisions"])


def test_an_analysis_of_the_old_version_is_recomputed_with_luck_and_the_optimal_line(user):
    game = make_game([user, "hard"])
    stored = analysis_store.analysis_for(game)
    GameAnalysis.objects.filter(pk=stored.pk).update(version=A.ANALYSIS_VERSION - 1, data={"old": True})
    again = analysis_store.analysis_for(game)
    assert again.version == A.ANALYSIS_VERSION and "optimal" in again.data["seats"]["0"]
    assert "accuracy" in again.summary["0"] and "luck" in again.summary["0"]
