"""Ratings apply exactly once when two processes finish or settle the same game at the same moment, and
two rated games sharing a person that finish together neither deadlock nor lose an update (real threads,
real transactions, PostgreSQL's row locks; skipped on SQLite, whose one writer at a time races nothing)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from dicegame import play
from dicegame.models import Turn
from ratings import glicko2
from ratings.models import PlayerRating, RatingChange
from tests.support.factories import UserFactory, actor
from tests.support.games import open_turn, race
from tests.support.ratings import play_out, rated_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_only(settings):
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")
    settings.PENTA_BOT_STEP_SECONDS = 0


def at_the_last_turn(users, bots=()):
    """A rated game whose last turn (the last person's) waits for its overdue auto-commit."""
    game = rated_room(users[0], users[1:], bots=bots)
    game = play_out(game, users, until_last=True)
    last = open_turn(game)
    assert last.round == 13 and not last.player.is_bot
    play.turn_roll(game_id=game.pk, actor=actor(last.player.user), turn=last.number, roll=0)
    Turn.objects.filter(pk=last.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    return game


def test_two_settlements_of_the_same_finish_rate_once(strategy):
    users = [UserFactory(username=f"race{i}") for i in range(3)]
    game = at_the_last_turn(users)
    results = race(2, lambda: play.game_settle(game_id=game.pk))
    assert sorted(results) == [False, True], results
    game.refresh_from_db()
    assert game.is_finished
    assert RatingChange.objects.filter(game=game).count() == 3
    for row in PlayerRating.objects.all():
        assert row.games == 1
        change = RatingChange.objects.get(game=game, user_id=row.user_id)
        assert (change.rating_before, row.rating) == (1500.0, change.rating_after)


def test_two_rated_games_sharing_a_person_finish_at_once_without_losing_an_update(strategy):
    shared, x, y = (UserFactory(username=n) for n in ("shared", "xavier", "yara"))
    first = at_the_last_turn([shared, x])
    second = at_the_last_turn([y, shared])
    pending = iter([first.pk, second.pk])
    lock = threading.Lock()

    def settle_one():
        with lock:
            game_id = next(pending)
        return play.game_settle(game_id=game_id)

    results = race(2, settle_one)
    assert results == [True, True], results
    changes = list(RatingChange.objects.filter(user=shared).order_by("id"))
    assert len(changes) == 2
    # The later game rated against the earlier one's result: one chain, nothing lost.
    assert changes[1].rating_before == changes[0].rating_after
    assert changes[1].rd_before == changes[0].rd_after
    row = PlayerRating.objects.get(user=shared)
    assert row.games == 2 and row.rating == changes[1].rating_after
    assert changes[0].rating_before == glicko2.Rating().rating
