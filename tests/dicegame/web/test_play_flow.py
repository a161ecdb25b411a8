"""Issue 10's flow defects on the server's side: one press is one roll, rematch players are taken to the
new game, spectators get no controls, no empty hints card, a full room's link offers watching only, and
a player the host removes is told on their screen."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from dicegame.models import Game
from dicegame.play import rooms
from live import pushes
from penta.asgi import application
from tests.support import HX, factories
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import mark_finished, open_turn


def started(host, friend) -> Game:
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game


# -- one press, one roll -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_double_click_on_roll_spends_one_roll(user_client, user):
    """The page's two requests both say "from 0 rolls": the second is refused and changes nothing."""
    user_client.post("/games/solo/")
    game = Game.objects.get(players__user=user)
    turn = open_turn(game)
    data = {"turn": turn.number, "roll": 0}
    first = user_client.post(f"/games/{game.pk}/roll/", data, **HX)
    after_first = open_turn(game)
    version = Game.objects.get(pk=game.pk).version
    second = user_client.post(f"/games/{game.pk}/roll/", data, **HX)
    assert first.status_code == 200
    assert second.status_code == 409
    assert "The game moved on since this page was shown" in second.content.decode()
    turn = open_turn(game)
    assert turn.rolls_used == 1 and turn.dice == after_first.dice and turn.rolls == after_first.rolls
    assert Game.objects.get(pk=game.pk).version == version


# -- rematch -----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_finished_page_keeps_its_socket_while_a_rematch_is_on_offer(host, friend):
    game = started(host, friend)
    mark_finished(game)
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert f'ws-connect="/ws/games/{game.pk}/"' in page
    assert "data-next-game" not in page


@pytest.mark.django_db
def test_no_socket_once_the_rematch_exists_or_for_a_spectator(host, friend):
    game = started(host, friend)
    mark_finished(game)
    rooms.rematch_accept(game_id=game.pk, actor=actor(host))
    rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert f'ws-connect="/ws/games/{game.pk}/"' not in page
    # The marker names the new game: a page that is still open goes there.
    assert f'data-next-game="/games/{rematch.pk}/"' in page
    watcher = UserFactory(username="wim")
    befriend(watcher, host)
    assert "/ws/games/" not in client_for(watcher).get(f"/games/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_the_rematch_push_takes_the_first_to_accept_to_the_new_game(
    host, friend, django_capture_on_commit_callbacks
):
    game = started(host, friend)
    mark_finished(game)
    rooms.rematch_accept(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    with django_capture_on_commit_callbacks() as callbacks:
        rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
    assert callbacks, "the start of the rematch is pushed"
    game.refresh_from_db()
    [(how, where, event)] = pushes.push_messages(game, None)
    assert (how, where) == ("group", pushes.game_group(game.pk))
    assert f'data-next-game="/games/{rematch.pk}/"' in event["html"]
    assert event["version"] == game.version


# -- what spectators and live players see ------------------------------------------------------------


@pytest.mark.django_db
def test_spectators_get_no_roll_or_confirm_buttons(host, friend):
    game = started(host, friend)
    watcher = UserFactory(username="wim")
    befriend(watcher, host)
    page = client_for(watcher).get(f"/games/{game.pk}/").content.decode()
    assert "data-spectator" in page
    assert 'data-action="roll"' not in page and 'data-action="confirm"' not in page
    player_page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert 'data-action="roll"' in player_page


@pytest.mark.django_db
def test_live_games_show_no_empty_hints_card(host, friend, user_client):
    game = started(host, friend)
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'<section id="hints"[^>]* hidden', page)
    user_client.post("/games/solo/")
    solo = user_client.get(f"/games/{Game.objects.filter(kind='solo').get().pk}/").content.decode()
    assert not re.search(r'<section id="hints"[^>]* hidden', solo)
    assert 'data-action="hints"' in solo


# -- the invitation link of a full room --------------------------------------------------------------


@pytest.mark.django_db
def test_a_full_rooms_link_offers_watching_not_a_seat(host, friend):
    room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    room.refresh_from_db()
    assert room.players.count() == room.seats_wanted
    stranger = UserFactory(username="sam")
    page = client_for(stranger).get(f"/games/join/{room.invite_token}/").content.decode()
    assert "data-room-full" in page and "This room is full" in page
    assert "Take a seat" not in page
    assert "data-watch-link" in page
    # Logged out: no log-in-to-take-a-seat offer either.
    anonymous = Client().get(f"/games/join/{room.invite_token}/").content.decode()
    assert "data-room-full" in anonymous and "data-join-login" not in anonymous
    # And pressing it anyway is refused, with nothing changed.
    response = client_for(stranger).post(f"/games/join/{room.invite_token}/")
    assert response.status_code == 409 and "This game is full." in response.content.decode()
    assert room.players.count() == room.seats_wanted


@pytest.mark.django_db
def test_a_room_with_a_free_seat_still_offers_it(room, host):
    stranger = UserFactory(username="sam")
    page = client_for(stranger).get(f"/games/join/{room.invite_token}/").content.decode()
    assert "Take a seat" in page and "data-room-full" not in page


# -- a removed player is told on their screen --------------------------------------------------------


async def _connect(game_id: int, user) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(factories.session_cookie)(user)
    headers = [(b"origin", b"http://localhost"), (b"cookie", cookie.encode())]
    communicator = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    assert 'id="lobby"' in await communicator.receive_from(timeout=5)
    return communicator


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_removed_link_joiner_is_told_on_the_room_screen():
    """Someone who came by the link may no longer see the room: their screen says why, then closes."""
    host, game_id, joiner = await database_sync_to_async(_room_with_link_joiner)()
    communicator = await _connect(game_id, joiner)
    await database_sync_to_async(rooms.room_remove_seat)(game_id=game_id, actor=actor(host), seat=1)
    told = await communicator.receive_from(timeout=5)
    assert 'id="messages"' in told and "The host removed you from this room." in told
    closed = await communicator.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 4404
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_removed_friend_of_the_host_sees_why_in_the_room():
    """A friend of the host may still watch the room: its lobby tells them they were removed."""
    host, game_id, friend = await database_sync_to_async(_room_with_friend)()
    communicator = await _connect(game_id, friend)
    await database_sync_to_async(rooms.room_remove_seat)(game_id=game_id, actor=actor(host), seat=1)
    lobby = await communicator.receive_from(timeout=5)
    assert "data-removed" in lobby and "The host removed you from this room." in lobby
    await communicator.disconnect()


def _room_with_friend():
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    game = rooms.room_create(actor=actor(host), seats=3, turn_seconds=0)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    return host, game.pk, friend


def _room_with_link_joiner():
    host, joiner = UserFactory(username="hana"), UserFactory(username="sam")
    game = rooms.room_create(actor=actor(host), seats=3, turn_seconds=0)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(joiner))
    return host, game.pk, joiner
