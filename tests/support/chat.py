"""People and tables for chat's tests: an account old enough for free text, a game with other people."""

from __future__ import annotations

from chat import selectors
from dicegame.models import Game
from tests.support.factories import GameFactory, PlayerFactory, UserFactory


def seasoned(who):
    """A person (a user, or a new one of this name) with the finished games a new account needs before
    free text."""
    user = UserFactory(username=who) if isinstance(who, str) else who
    for _ in range(selectors.MIN_FINISHED_GAMES):
        PlayerFactory(game=GameFactory(status=Game.Status.FINISHED), user=user)
    return user


def table(*users, pace=Game.Pace.LIVE, rated=False, status=Game.Status.ACTIVE) -> Game:
    """A game between these people, seated in this order."""
    game = GameFactory(kind=Game.Kind.FRIENDS, pace=pace, rated=rated, status=status)
    for seat, user in enumerate(users):
        PlayerFactory(game=game, user=user, seat=seat)
    return game
