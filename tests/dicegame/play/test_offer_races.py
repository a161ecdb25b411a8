"""Races on PostgreSQL (real threads, real transactions, its row locks and SKIP LOCKED; skipped on SQLite,
whose one writer at a time races nothing): twenty accepts of one open game make one game, fifty people
pressing "Play someone now" at once are each paired once or told to wait, and a challenge accepted twice
at once, or sent twice at once, is one."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection

from dicegame.errors import GameActionError
from dicegame.models import Game, Player
from dicegame.offers import Challenge, Seek
from dicegame.play import challenges, seeks
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import mark_finished, race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

DAY = 24 * 3600


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")


def test_twenty_accepts_of_one_open_game_make_one_game():
    owner = UserFactory(username="owner")
    offer = seeks.seek_post(actor=actor(owner), rated=True, move_seconds=DAY, rating=None)
    takers = [UserFactory(username=f"taker{i}") for i in range(20)]
    waiting = list(takers)
    results = race(20, lambda: seeks.seek_accept(seek_id=offer.pk, actor=actor(waiting.pop())))
    games = [r for r in results if isinstance(r, Game)]
    refused = [r for r in results if isinstance(r, GameActionError)]
    assert len(games) == 1 and len(refused) == 19, results
    assert all(r.status == 409 and "took this game first" in r.message for r in refused)
    assert Game.objects.count() == 1
    offer.refresh_from_db()
    assert offer.status == Seek.Status.PAIRED and offer.game == games[0]
    assert Player.objects.filter(game=games[0]).count() == 2


def test_fifty_people_seeking_at_once_are_all_paired_or_told_to_wait():
    people = [UserFactory(username=f"seeker{i}") for i in range(50)]
    waiting = list(people)
    results = race(
        50,
        lambda: (
            user := waiting.pop(),
            seeks.seek_live(actor=actor(user), rated=False, turn_seconds=60, rating=1500.0),
        ),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    states = {user.pk: state for user, state in results}
    # Each is paired or told to wait, never both, never twice.
    seats = Counter(Player.objects.values_list("user_id", flat=True))
    assert all(n == 1 for n in seats.values()), seats
    for game in Game.objects.all():
        assert game.players.count() == 2 and len({p.user_id for p in game.players.all()}) == 2
    paired_now = {uid for uid, s in states.items() if s.game_id}
    assert paired_now <= set(seats)
    told_to_wait = [uid for uid, s in states.items() if not s.game_id]
    assert len(paired_now) + len(told_to_wait) == 50
    # Whoever was told to wait is paired by the next asks of their pages (everyone is at 1500).
    for _ in range(3):
        for user in people:
            seek = Seek.objects.get(user=user, status__in=[Seek.Status.OPEN, Seek.Status.PAIRED])
            if seek.is_open:
                seeks.seek_poll(seek_id=seek.pk, actor=actor(user))
    assert not Seek.objects.filter(status=Seek.Status.OPEN).exists()
    assert Game.objects.count() == 25
    seats = Counter(Player.objects.values_list("user_id", flat=True))
    assert set(seats) == {u.pk for u in people} and set(seats.values()) == {1}


def test_a_challenge_accepted_twice_at_once_makes_one_game():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    offer = challenges.challenge_send(actor=actor(hana), username="femke", terms=challenges.Terms())
    results = race(4, lambda: challenges.challenge_accept(challenge_id=offer.pk, actor=actor(femke)))
    games = [r for r in results if isinstance(r, Game)]
    assert len(games) == 1, results
    assert all(isinstance(r, GameActionError) and r.status == 409 for r in results if r not in games)
    assert Game.objects.count() == 1


def test_one_challenge_sent_twice_at_once_waits_once():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    terms = challenges.Terms(move_seconds=DAY)
    results = race(4, lambda: challenges.challenge_send(actor=actor(hana), username="femke", terms=terms))
    sent = [r for r in results if isinstance(r, Challenge)]
    assert len(sent) == 1, results
    assert all(isinstance(r, GameActionError) and r.status == 409 for r in results if r not in sent)
    assert Challenge.objects.count() == 1 and Game.objects.count() == 1


def test_a_rematch_said_yes_to_by_both_at_once_is_one_game():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    offer = challenges.challenge_send(actor=actor(hana), username="femke", terms=challenges.Terms())
    game = challenges.challenge_accept(challenge_id=offer.pk, actor=actor(femke))
    mark_finished(game)
    people = [hana, femke] * 2
    results = race(4, lambda: challenges.rematch_yes(game_id=game.pk, actor=actor(people.pop())))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert Game.objects.filter(rematch_of=game).count() == 1
