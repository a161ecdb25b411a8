"""Issue 38, finding 10: one person accepting two "crossed" correspondence rematches at once (the same
two people in opposite seat orders). `rooms.rematch_accept` locked the people's rows in seat order, so
each of the two took one person's row and waited for the other's: PostgreSQL ended one of them (a 500,
a "yes" lost) in 6 of 15 tries. The rows are locked in user-id order now, as every lock of several
people's rows is (`accounts.services.lock_people`): both rematches start, or, when only one fits under
the 50-game limit, the other is a clear 409.

Real threads and transactions, through the site's view; meaningful on PostgreSQL (SQLite serialises
every write transaction, so no two ever hold a row each)."""

import pytest
from django.test import Client

from dicegame.models import Game
from dicegame.play import limits, rooms
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX
from tests.support.factories import PASSWORD, UserFactory, actor, befriend
from tests.support.games import mark_finished, race, started_two_player_game

pytestmark = pytest.mark.django_db(transaction=True)

DAY = 24 * 3600
TRIES = 15  # the attack's count: 6 of them deadlocked on the old code


def crossed_pair(ann, bob) -> tuple[Game, Game]:
    """Two finished correspondence games of ann and bob, ann first in one and bob first in the other,
    with bob's yes to a rematch of each already given."""
    first = started_two_player_game(ann, bob, turn_seconds=0, move_seconds=DAY)
    second = started_two_player_game(bob, ann, turn_seconds=0, move_seconds=DAY)
    for game in (first, second):
        mark_finished(game)
        assert rooms.rematch_accept(game_id=game.pk, actor=actor(bob)) is None
    return first, second


def logged_in(user) -> Client:
    client = Client(raise_request_exception=False)  # a server error is a 500, as in production
    assert client.login(username=user.username, password=PASSWORD)
    return client


def accept_both_at_once(ann, games: tuple[Game, Game]) -> list:
    """ann's two browsers say yes to the two rematches in the same instant: the responses."""
    posts = [(logged_in(ann), f"/games/{game.pk}/rematch/") for game in games]
    return race(2, lambda: (lambda client, url: client.post(url))(*posts.pop()))


@pytest.fixture
def people(settings):
    # Each pair of games is two invitations: more than the notice limits allow in an hour.
    settings.PENTA_NOTICES_PER_HOUR = settings.PENTA_NOTICES_PER_PERSON_HOUR = 4 * TRIES
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    befriend(ann, bob)
    return ann, bob


def test_crossed_rematches_accepted_at_once_both_start(people):
    ann, bob = people
    for attempt in range(TRIES):
        games = crossed_pair(ann, bob)
        responses = accept_both_at_once(ann, games)
        statuses = [getattr(r, "status_code", r) for r in responses]
        assert statuses == [302, 302], f"try {attempt + 1}: {statuses}"
        for game in games:
            rematch = Game.objects.get(rematch_of=game)  # no yes lost
            assert rematch.is_correspondence and rematch.is_active
            assert {p.user_id for p in rematch.players.all()} == {ann.pk, bob.pk}
            assert all(p.rematch_accepted for p in game.players.all())


def test_when_only_one_fits_under_the_limit_the_other_is_a_clear_refusal(people):
    ann, bob = people
    games = crossed_pair(ann, bob)
    for _ in range(CORRESPONDENCE_GAMES_MAX - 1):
        rooms.room_create(actor=actor(ann), seats=2, turn_seconds=0, move_seconds=DAY)

    responses = accept_both_at_once(ann, games)

    assert sorted(r.status_code for r in responses) == [302, 409], responses
    [refused] = [r for r in responses if r.status_code == 409]
    assert "ann already plays 50 correspondence games" in refused.content.decode()
    assert Game.objects.filter(rematch_of__in=games).count() == 1
    assert limits.correspondence_games_of(ann.pk) == CORRESPONDENCE_GAMES_MAX
