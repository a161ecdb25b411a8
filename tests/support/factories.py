"""factory-boy factories for users, games, seats and turns."""

import factory
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Friendship
from dicegame.actors import Actor
from dicegame.models import Game, Player, Turn
from dicegame.rules import dice

PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"player{n}")
    password = factory.django.Password(PASSWORD)


class GameFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Game

    kind = Game.Kind.SOLO
    seed = factory.LazyFunction(dice.new_seed)
    seed_commitment = factory.LazyAttribute(lambda game: dice.commitment(game.seed))


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    game = factory.SubFactory(GameFactory)
    seat = 0
    user = factory.SubFactory(UserFactory)
    name = factory.LazyAttribute(lambda p: p.user.username if p.user else "Guest")


class TurnFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Turn

    game = factory.LazyAttribute(lambda t: t.player.game)
    player = factory.SubFactory(PlayerFactory)
    number = 1
    round = 1
    held = factory.LazyFunction(lambda: [False] * 5)


def befriend(a, b) -> Friendship:
    """Make two users friends (stored once, the smaller id first)."""
    low, high = sorted((a, b), key=lambda u: u.pk)
    return Friendship.objects.create(user_low=low, user_high=high)


def actor(user) -> Actor:
    """A logged-in user as the services see them."""
    return Actor(user_id=user.pk, name=user.username)


def client_for(user, language: str | None = None, **kwargs) -> Client:
    """A test client logged in as the user (in `language`, when given)."""
    client = Client(**kwargs)
    assert client.login(username=user.username, password=PASSWORD)
    if language:
        client.cookies["django_language"] = language
    return client


def session_cookie(user) -> str:
    """`sessionid=...` of a fresh logged-in session of the user, for a socket's Cookie header."""
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return f"sessionid={client.cookies['sessionid'].value}"
