"""The invitation link lets whoever holds it watch the game, logged in or not (read-only); taking a
seat needs an account. The game page, its tick, its socket and its review all take the token as `?t=`."""

import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from dicegame.models import Game
from dicegame.play import rooms
from penta.asgi import application
from tests.support import HX, ORIGIN
from tests.support.environment import forget_cached
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import make_game

pytestmark = pytest.mark.django_db


def started_game() -> Game:
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game


@pytest.fixture
def game(db):
    return started_game()


@pytest.fixture
def room(db):
    host = UserFactory(username="hana")
    return rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)


@pytest.fixture
def finished(db):
    """A finished game against friends with an invitation link."""
    forget_cached()
    game = make_game([UserFactory(), UserFactory()], kind=Game.Kind.FRIENDS)
    Game.objects.filter(pk=game.pk).update(invite_token="a-link-token-of-a-finished-game-0123456789")
    game.refresh_from_db()
    return game


# -- the link ----------------------------------------------------------------------------------------


def test_the_link_of_a_started_game_leads_anyone_to_watch_it(game):
    watch = f"/games/{game.pk}/?t={game.invite_token}"
    for visitor in (Client(), client_for(UserFactory())):
        response = visitor.get(f"/games/join/{game.invite_token}/")
        assert response.status_code == 302 and response["Location"] == watch
    player = client_for(game.players.get(seat=1).user)
    assert player.get(f"/games/join/{game.invite_token}/")["Location"] == f"/games/{game.pk}/"


def test_the_link_of_an_open_room_offers_a_logged_out_visitor_to_log_in_or_sign_up(room):
    join = f"/games/join/{room.invite_token}/"
    response = Client().get(join)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="/accounts/login/?next={join}"' in html
    assert f'href="/accounts/signup/?next={join}"' in html
    assert f'href="/games/{room.pk}/?t={room.invite_token}"' in html  # or just watch
    assert '<button type="submit"' not in html.split('class="join"')[1]  # (only the copy-link button)
    # Taking a seat needs an account: a post is sent to log in, and back.
    response = Client().post(join)
    assert response.status_code == 302 and response["Location"] == f"/accounts/login/?next={join}"
    assert room.players.count() == 1
    # A logged-in visitor gets the button.
    html = client_for(UserFactory()).get(join).content.decode()
    assert "Take a seat" in html and "<button" in html


def test_sign_up_and_log_in_from_the_link_come_back_to_it(room):
    join = f"/games/join/{room.invite_token}/"
    visitor = Client()
    html = visitor.get(f"/accounts/login/?next={join}").content.decode()
    assert f'href="/accounts/signup/?next={join}"' in html
    html = visitor.get(f"/accounts/signup/?next={join}").content.decode()
    assert f'name="next" value="{join}"' in html and f'href="/accounts/login/?next={join}"' in html
    form = {"username": "newbie", "password1": "dice-are-nice-42", "password2": "dice-are-nice-42"}
    response = visitor.post("/accounts/signup/", {**form, "next": join})
    assert response.status_code == 302 and response["Location"] == join
    assert "Take a seat" in visitor.get(join).content.decode()
    visitor.post(join)
    assert room.players.filter(user__username="newbie").exists()


def test_sign_up_ignores_a_next_that_leaves_the_site():
    form = {"username": "wary", "password1": "dice-are-nice-42", "password2": "dice-are-nice-42"}
    response = Client().post("/accounts/signup/", {**form, "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/games/"


# -- the page, its tick, its review --------------------------------------------------------------------


def test_a_logged_out_link_holder_watches_the_page_and_its_tick_works(game):
    visitor = Client()
    page = visitor.get(f"/games/{game.pk}/?t={game.invite_token}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "You are watching this game." in html
    assert f'ws-connect="/ws/games/{game.pk}/?t={game.invite_token}"' in html
    assert visitor.get(f"/games/{game.pk}/").status_code == 404
    assert visitor.get(f"/games/{game.pk}/?t=wrong").status_code == 404
    response = visitor.post(f"/games/{game.pk}/tick/?t={game.invite_token}", **HX)
    assert response.status_code == 200 and 'id="game-status"' in response.content.decode()
    response = visitor.post(f"/games/{game.pk}/tick/", **HX)
    assert response.status_code == 404 and "There is no such game." in response.content.decode()
    # A plain post goes back to the page, token and all.
    response = visitor.post(f"/games/{game.pk}/tick/?t={game.invite_token}")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/?t={game.invite_token}"


def test_a_logged_in_stranger_ticks_with_the_token_too(game):
    stranger = client_for(UserFactory())
    assert stranger.post(f"/games/{game.pk}/tick/?t={game.invite_token}", **HX).status_code == 200
    assert stranger.post(f"/games/{game.pk}/tick/", **HX).status_code == 404


def test_the_tick_that_finds_the_game_over_keeps_the_token(finished):
    response = Client().post(f"/games/{finished.pk}/tick/?t={finished.invite_token}", **HX)
    assert response["HX-Redirect"] == f"/games/{finished.pk}/?t={finished.invite_token}"


def test_the_review_takes_the_token_as_t_and_its_links_keep_it(finished):
    token = finished.invite_token
    visitor = Client()
    html = visitor.get(f"/games/{finished.pk}/?t={token}").content.decode()
    assert f'href="/games/{finished.pk}/review/?t={token}" data-review' in html
    response = visitor.get(f"/games/{finished.pk}/review/?t={token}")
    assert response.status_code == 200
    html = response.content.decode()
    steps = re.findall(r'href="\?step=(\d+)([^"]*)"', html)
    assert steps and all(rest == f"&amp;t={token}" for _, rest in steps)
    assert f'href="/games/{finished.pk}/?t={token}"' in html
    assert f'href="/games/{finished.pk}/export.json?t={token}"' in html
    response = visitor.get(f"/games/{finished.pk}/review/?step=3&t={token}", **HX)
    assert response.status_code == 200 and f"&amp;t={token}" in response.content.decode()
    assert visitor.get(f"/games/{finished.pk}/export.json?t={token}").status_code == 200
    # The old name is gone; no token, no review.
    assert visitor.get(f"/games/{finished.pk}/review/?token={token}").status_code == 404
    assert visitor.get(f"/games/{finished.pk}/review/").status_code == 404


def test_a_player_review_link_has_no_token(finished):
    player = client_for(finished.players.get(seat=0).user)
    html = player.get(f"/games/{finished.pk}/").content.decode()
    assert f'href="/games/{finished.pk}/review/" data-review' in html


# -- the socket ----------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_logged_out_link_holder_watches_over_the_socket():
    game = await database_sync_to_async(started_game)()

    async def connect(query=""):
        communicator = WebsocketCommunicator(application, f"/ws/games/{game.pk}/{query}", headers=[ORIGIN])
        connected, code = await communicator.connect(timeout=5)
        return communicator, connected, code

    watcher, ok, _ = await connect(f"?t={game.invite_token}")
    assert ok
    html = await watcher.receive_from(timeout=5)
    assert 'id="dice-tray"' in html and 'id="scoresheet"' in html and "You are watching this game." in html
    await watcher.disconnect()
    # Without the link, or with a wrong one: accepted, then closed with "not yours" (4404), which the
    # page does not retry.
    for query in ("", "?t=wrong"):
        refused, ok, _ = await connect(query)
        assert ok
        assert await refused.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
