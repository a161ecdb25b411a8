"""Management commands: verify_game re-derives a finished game's dice."""

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from dicegame import play
from dicegame.models import Turn
from tests.support.games import play_whole_game

pytestmark = pytest.mark.django_db


def test_verify_game_confirms_an_honest_game(user_actor, capsys):
    game = play.game_create_solo(actor=user_actor)
    play_whole_game(game, user_actor)
    call_command("verify_game", str(game.pk))
    out = capsys.readouterr().out
    assert "all 13 rolls of 13 turns follow from the seed" in out
    assert game.seed_commitment in out


def test_verify_game_names_a_tampered_roll(user_actor):
    game = play.game_create_solo(actor=user_actor)
    play_whole_game(game, user_actor)
    turn = Turn.objects.get(game=game, number=5)
    forged = [1, 1, 1, 1, 1] if turn.rolls[0]["dice"] != [1, 1, 1, 1, 1] else [2, 2, 2, 2, 2]
    turn.rolls = [{"dice": forged, "held": [False] * 5}]
    turn.save()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_game", str(game.pk))


def test_verify_game_refuses_a_game_in_play_and_an_unknown_one(user_actor):
    game = play.game_create_solo(actor=user_actor)
    with pytest.raises(CommandError, match="still in play"):
        call_command("verify_game", str(game.pk))
    with pytest.raises(CommandError, match="no game"):
        call_command("verify_game", "424242")


def test_run_timers_once_settles_overdue_turns_nobody_is_looking_at(user_actor, capsys):

    game = play.game_create_solo(actor=user_actor)
    for roll in range(3):
        play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=roll)
    Turn.objects.filter(game=game).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    call_command("run_timers", "--once")
    assert "1 overdue turn(s) settled" in capsys.readouterr().out
    assert Turn.objects.get(game=game, number=1).auto_committed
