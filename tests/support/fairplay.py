"""Fair play for a test: rated games whose people's seats were played by the computer players (the hard
one is the solver itself), assessed as the clock would."""

from __future__ import annotations

import datetime as dt

from dicegame.models import Game, Turn
from fairplay import services
from tests.support.factories import UserFactory
from tests.support.games import make_game


def rated_games(user, n: int, *, strength="hard", opponent=None, opponent_strength="easy", pace=6.0) -> list:
    """n finished rated games of `user` (played as the `strength` computer) against `opponent` (a fresh
    account each game when None), not yet assessed; every decision in them took `pace` seconds."""
    games = []
    for _ in range(n):
        other = opponent or UserFactory()
        game = make_game([user, other], kind=Game.Kind.FRIENDS, strengths=[strength, opponent_strength])
        Game.objects.filter(pk=game.pk).update(rated=True)
        game.refresh_from_db()
        for turn in Turn.objects.filter(game=game):
            start = turn.completed_at - dt.timedelta(seconds=pace * (len(turn.rolls) + 1))
            turn.roll_times = [start.timestamp() + pace * k for k in range(len(turn.rolls))]
            turn.chosen_at = start + dt.timedelta(seconds=pace * len(turn.rolls))
            turn.save(update_fields=["roll_times", "chosen_at"])
        games.append(game)
    return games


def assess() -> None:
    """The clock's fair-play sweep, as many times as it takes to assess every pending game."""
    while services.pending_games():
        services.assess_pending()
