"""The daily challenge for a test: the day's game played to the end through the services."""

from __future__ import annotations

from daily import services
from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Game
from tests.support.games import current


def play_the_day(who: Actor, turns: int = 13) -> Game:
    """Start (or resume) `who`'s game of the day and play `turns` turns of it (all 13: to the end), each
    one roll written in the first open box."""
    attempt, _created = services.attempt_start(actor=who)
    for _ in range(turns):
        t = current(attempt.game_id)
        play.turn_roll(game_id=attempt.game_id, actor=who, turn=t.number, roll=0)
        box = next(iter(t.player.sheet.open_boxes))
        play.turn_choose_box(game_id=attempt.game_id, actor=who, turn=t.number, roll=1, box=box.name)
        play.turn_confirm(game_id=attempt.game_id, actor=who, turn=t.number, roll=1)
    return Game.objects.get(pk=attempt.game_id)
