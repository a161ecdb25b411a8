"""Notices one person makes the site send others are limited (issue 22, item 20): a declined friend
request is not sent again to that person for a week, a finished local game's column is offered to a
friend once, and nobody sends more than PENTA_NOTICES_PER_HOUR friend requests, invitations and offers
an hour, nor more than PENTA_NOTICES_PER_PERSON_HOUR to one person. A refusal is a 4xx with its message
and changes nothing; the check and the count are one step, so requests sent at once cannot pass the
limit (on PostgreSQL, as run there)."""

import datetime as dt

import pytest
from django.db import connection
from django.urls import reverse

from accounts import services
from accounts.models import FriendRequest, Friendship, SentNotice
from accounts.services import FriendError
from dicegame.errors import GameActionError
from dicegame.models import Invitation, SeatLink
from dicegame.play import local, rooms
from dicegame.play.local import SeatSpec
from tests.dicegame.play.test_local_game import play_to_the_end
from tests.support import HX
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import race

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 1, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def ann(db):
    return UserFactory(username="ann")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


def state() -> tuple:
    """Everything a refused notice could have changed."""
    return (
        list(FriendRequest.objects.order_by("pk").values()),
        list(Friendship.objects.values_list("pk", flat=True)),
        list(Invitation.objects.order_by("pk").values()),
        list(SeatLink.objects.order_by("pk").values()),
        SentNotice.objects.count(),
    )


def test_a_declined_friend_request_is_not_sent_again_for_a_week(
    ann, bob, clock, django_capture_on_commit_callbacks
):
    first = services.friend_request_send(from_user=ann, username="bob")
    services.friend_request_decline(user=bob, request_id=first.pk)
    clock.advance(days=6, hours=23)
    before = state()
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(FriendError) as refused:
        services.friend_request_send(from_user=ann, username="bob")
    assert refused.value.status == 429
    assert (
        refused.value.message == "bob did not accept your friend request: you can ask again from 8 Jun 2026."
    )
    assert callbacks == [] and state() == before  # no notice, nothing stored or counted
    # Through the page, with its message, in Dutch too.
    answer = client_for(ann, language="nl").post("/accounts/friends/request/", {"username": "bob"}, **HX)
    assert (
        answer.status_code == 429
        and "bob heeft je vriendschapsverzoek niet aangenomen" in answer.content.decode()
    )
    clock.advance(hours=1)
    again = services.friend_request_send(from_user=ann, username="bob")
    assert again.status == FriendRequest.Status.PENDING and again.answered_at is None


def test_removing_and_asking_again_is_limited_per_person_an_hour(ann, bob, clock, settings):
    settings.PENTA_NOTICES_PER_PERSON_HOUR = 3
    for _ in range(3):
        sent = services.friend_request_send(from_user=ann, username="bob")
        services.friend_request_accept(user=bob, request_id=sent.pk)
        services.friend_remove(user=ann, friend_id=bob.pk)
    before = state()
    with pytest.raises(FriendError) as refused:
        services.friend_request_send(from_user=ann, username="bob")
    assert refused.value.status == 429
    assert (
        "You have sent bob 3 friend requests, invitations or offers in the last hour" in refused.value.message
    )
    assert state() == before
    clock.advance(hours=1, seconds=1)
    assert services.friend_request_send(from_user=ann, username="bob").status == FriendRequest.Status.PENDING


def test_nobody_sends_more_than_so_many_notices_an_hour(ann, clock, settings):
    settings.PENTA_NOTICES_PER_HOUR = 4
    others = [UserFactory(username=f"p{i}") for i in range(6)]
    for other in others[:2]:
        services.friend_request_send(from_user=ann, username=other.username)
    # Invitations count with them.
    for other in others[2:4]:
        befriend(ann, other)
    room = rooms.room_create(actor=actor(ann), seats=4, turn_seconds=60)
    for other in others[2:4]:
        rooms.room_invite(game_id=room.pk, actor=actor(ann), username=other.username)
    before = state()
    with pytest.raises(FriendError, match="You have sent 4 friend requests, invitations and offers"):
        services.friend_request_send(from_user=ann, username=others[4].username)
    befriend(ann, others[5])
    before = state()
    with pytest.raises(GameActionError) as refused:
        rooms.room_invite(game_id=room.pk, actor=actor(ann), username=others[5].username)
    assert refused.value.status == 429 and state() == before
    clock.advance(minutes=61)
    rooms.room_invite(game_id=room.pk, actor=actor(ann), username=others[5].username)
    assert SentNotice.objects.count() == 1  # those that no longer count are gone


def test_inviting_declining_and_inviting_again_is_limited(ann, bob, settings):
    settings.PENTA_NOTICES_PER_PERSON_HOUR = 2
    befriend(ann, bob)
    room = rooms.room_create(actor=actor(ann), seats=2, turn_seconds=60)
    for _ in range(2):
        rooms.room_invite(game_id=room.pk, actor=actor(ann), username="bob")
        rooms.room_decline_invitation(game_id=room.pk, actor=actor(bob))
    before = state()
    answer = client_for(ann).post(f"/games/{room.pk}/invite/", {"username": "bob"}, **HX)
    assert answer.status_code == 429
    assert (
        "You have sent bob 2 friend requests, invitations or offers in the last hour"
        in answer.content.decode()
    )
    assert state() == before


def test_a_column_is_offered_to_a_friend_once_per_game(ann, bob, django_capture_on_commit_callbacks):
    befriend(ann, bob)
    game = local.local_game_create(
        actor=actor(ann), seats=[SeatSpec(name="Anna"), SeatSpec(name="Bo"), SeatSpec(name="Cas")]
    )
    game = play_to_the_end(game, actor(ann))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        local.seat_link_request(user=ann, game_id=game.pk, seat=1, username="bob")
    assert len(callbacks) == 1  # the notice
    before = state()
    url = reverse("dicegame:local_link", args=[game.pk])
    client = client_for(ann)
    for seat in (1, 1, 2, 1, 2, 1, 2, 1, 2, 1):  # offered again and again: it used to send ten notices
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            answer = client.post(url, {"seat": seat, "username": "bob"})
        assert answer.status_code == 409 and callbacks == []
        assert "You have already offered bob a column of this game" in answer.content.decode()
    assert state() == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_requests_sent_at_once_cannot_pass_the_hourly_limit(settings):
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")
    settings.PENTA_NOTICES_PER_HOUR = 3
    ann = UserFactory(username="ann")
    others = [UserFactory(username=f"p{i}") for i in range(10)]
    clients = [client_for(ann) for _ in others]
    names = [o.username for o in others]
    answers = race(
        10, lambda: clients.pop().post("/accounts/friends/request/", {"username": names.pop()}, **HX)
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 3 + [429] * 7, statuses
    assert FriendRequest.objects.count() == 3 and SentNotice.objects.count() == 3
