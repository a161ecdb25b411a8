"""The winning chances bar on the game screen (winprob): who sees it on the page, who may switch it on,
and who gets it pushed after a move (spectators always, a player who switched it on in a casual game,
never a player of a rated game)."""

import asyncio
import re

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import Client

from dicegame import play
from dicegame.models import Game, Turn
from live import pushes
from live.consumers import GameConsumer
from live.presence import Opened
from tests.support.factories import UserFactory, actor, client_for
from tests.support.games import race, two_player_game
from tests.support.sockets import connect
from winprob import chances as wp
from winprob import live as winprob_live
from winprob.models import WinBarChoice


def bar_of(html: str) -> str:
    match = re.search(r'<section id="win-bar".*?</section>', html, re.S)
    return match.group(0) if match else ""


def chances_in(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'data-chance="(\d+)"', bar_of(html))]


def cached_figures(game):
    """The figures of the game's position as it stands, if worked out (the shared cache)."""
    players = list(game.players.order_by("seat"))
    return wp.cached_chances(players, Turn.objects.filter(game=game, completed_at__isnull=True).first())


def watch(game) -> Client:
    client = Client()
    client.get(f"/games/{game.pk}/?t={game.invite_token}")
    return client


# -- the page ----------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_spectator_sees_the_bar_and_it_loads_its_figures():
    game, host, _friend = two_player_game()
    page = Client().get(f"/games/{game.pk}/?t={game.invite_token}").content.decode()
    bar = bar_of(page)
    assert bar and "Chance of winning" in bar and 'data-action="win-bar"' not in bar
    # The page does not wait for the figures: the region asks for them as it loads.
    assert "data-win-pending" in bar
    # A guest makes nothing be worked out: the figures are not there yet, so nothing comes back (they
    # follow by push once worked out for the game's screens).
    url = f"/games/{game.pk}/win-bar/?t={game.invite_token}"
    answer = Client().get(url, headers={"HX-Request": "true"})
    assert answer.status_code == 204 and answer.content == b""
    assert cached_figures(game) is None
    # A logged-in viewer's page asks for them (here, with no server's worker, they are worked out at once).
    viewer = client_for(UserFactory(username="vera"))
    answer = viewer.get(url, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    figures = chances_in(answer.content.decode())
    assert len(figures) == 2 and 99 <= sum(figures) <= 101
    assert 'hx-swap-oob="morph"' in answer.content.decode()
    # Once worked out, the guest gets them, and the next page has them at once, with the seats' names.
    answer = Client().get(url, headers={"HX-Request": "true"})
    assert answer.status_code == 200 and chances_in(answer.content.decode()) == figures
    page = Client().get(f"/games/{game.pk}/?t={game.invite_token}").content.decode()
    assert chances_in(page) == figures and '<span class="win-name">hana:</span> <strong>' in bar_of(page)


@pytest.mark.django_db
def test_a_player_of_a_casual_game_may_switch_the_bar_on_and_off():
    game, host, _friend = two_player_game()
    client = client_for(host)
    bar = bar_of(client.get(f"/games/{game.pk}/").content.decode())
    assert 'data-action="win-bar"' in bar and "data-chance" not in bar and 'aria-pressed="false"' in bar
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert len(chances_in(answer.content.decode())) == 2
    assert WinBarChoice.objects.filter(player__game=game, player__user=host).exists()
    assert len(chances_in(client.get(f"/games/{game.pk}/").content.decode())) == 2
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "0"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200 and chances_in(answer.content.decode()) == []
    assert not WinBarChoice.objects.exists()
    assert not Game.objects.get(pk=game.pk).win_bar_wanted
    # Without JavaScript the form posts and comes back to the game.
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "1"})
    assert answer.status_code == 302 and answer.url == f"/games/{game.pk}/"


@pytest.mark.django_db
def test_nobody_sees_a_rated_games_chances_while_it_is_played_and_a_toggle_is_refused():
    game, host, _friend = two_player_game(rated=True)
    client = client_for(host)
    assert bar_of(client.get(f"/games/{game.pk}/").content.decode()) == ""
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 403
    assert "Players never see the winning chances in a rated game." in answer.content.decode()
    assert not WinBarChoice.objects.exists()
    answer = client.get(f"/games/{game.pk}/win-bar/", headers={"HX-Request": "true"})
    assert answer.status_code == 403
    # Nor a spectator (a player could watch their own chances through the invitation link in another
    # browser): the page has no bar, and the figures are refused with a message, to a guest and to an
    # account alike.
    link = f"?t={game.invite_token}"
    assert bar_of(Client().get(f"/games/{game.pk}/{link}").content.decode()) == ""
    for spectator in (Client(), client_for(UserFactory(username="sam"))):
        answer = spectator.get(f"/games/{game.pk}/win-bar/{link}", headers={"HX-Request": "true"})
        assert answer.status_code == 403
        assert "shown once it is over, in its review" in answer.content.decode()
    assert cached_figures(game) is None


@pytest.mark.django_db(transaction=True)
def test_concurrent_toggles_switch_the_bar_on_once_and_never_fail():
    game, host, _friend = two_player_game()
    url = f"/games/{game.pk}/win-bar/toggle/"
    clients = [client_for(host) for _ in range(8)]
    answers = race(8, lambda: clients.pop().post(url, {"on": "1"}, headers={"HX-Request": "true"}))
    assert [a.status_code for a in answers] == [200] * 8
    assert WinBarChoice.objects.filter(player__user=host).count() == 1
    assert Game.objects.get(pk=game.pk).win_bar_wanted


@pytest.mark.django_db
def test_the_game_notes_that_a_seat_wants_the_bar_until_the_last_switches_it_off():
    """A move reads the note with its locked game (winprob.live.after_push): it must follow the rows."""
    game, host, friend = two_player_game()
    seats = {p.user_id: p for p in game.players.all()}
    assert not Game.objects.get(pk=game.pk).win_bar_wanted
    wp.switch_bar(seats[host.pk], on=True)
    wp.switch_bar(seats[friend.pk], on=True)
    wp.switch_bar(seats[host.pk], on=False)
    assert Game.objects.get(pk=game.pk).win_bar_wanted  # the friend's is still on
    wp.switch_bar(seats[friend.pk], on=False)
    assert not Game.objects.get(pk=game.pk).win_bar_wanted
    wp.switch_bar(seats[friend.pk], on=False)  # idempotent
    assert not WinBarChoice.objects.exists() and not Game.objects.get(pk=game.pk).win_bar_wanted


@pytest.mark.django_db
def test_refused_toggles_answer_4xx_with_a_message_and_change_nothing():
    game, host, _friend = two_player_game()
    client = client_for(host)
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "yes"}, headers={"HX-Request": "true"})
    assert answer.status_code == 400 and "malformed" in answer.content.decode()
    spectator = watch(game)
    answer = spectator.post(
        f"/games/{game.pk}/win-bar/toggle/?t={game.invite_token}", {"on": "1"}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 403 and "Only the players" in answer.content.decode()
    stranger = client_for(UserFactory(username="sam"))
    answer = stranger.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 404
    # A player who has not switched it on gets no figures.
    assert client.get(f"/games/{game.pk}/win-bar/", headers={"HX-Request": "true"}).status_code == 403
    # A solo game has no bar.
    solo = play.game_create_solo(actor=actor(host))
    assert bar_of(client.get(f"/games/{solo.pk}/").content.decode()) == ""
    answer = client.post(f"/games/{solo.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 409 and "no winning chances" in answer.content.decode()
    assert not WinBarChoice.objects.exists()
    # In Dutch.
    dutch = client_for(host, language="nl")
    answer = dutch.post(f"/games/{solo.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert "Dit spel heeft geen winkansen om te tonen." in answer.content.decode()


@pytest.mark.django_db
def test_a_game_against_the_computer_offers_the_bar_to_its_player():
    user = UserFactory(username="ria")
    game = play.game_create_vs_computer(actor=actor(user), strengths=["hard", "easy"])
    client = client_for(user)
    assert 'data-action="win-bar"' in bar_of(client.get(f"/games/{game.pk}/").content.decode())
    answer = client.post(f"/games/{game.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200 and len(chances_in(answer.content.decode())) == 3


# -- pushes -------------------------------------------------------------------------------------------------


async def bar_frame(communicator, wait=20.0) -> str | None:
    """The next frame carrying the bar, or None if none comes within `wait` seconds of quiet."""
    while not await communicator.receive_nothing(timeout=wait):
        html = await communicator.receive_from(timeout=1)
        if 'id="win-bar"' in html:
            return html
    return None


async def roll_from_the_test(game, user):
    turn = await database_sync_to_async(lambda: Turn.objects.get(game=game, completed_at__isnull=True))()
    await database_sync_to_async(play.turn_roll)(
        game_id=game.pk, actor=actor(user), turn=turn.number, roll=turn.rolls_used
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_move_pushes_the_bar_to_spectators_and_opted_in_players_of_a_casual_game():
    game, host, friend = await database_sync_to_async(two_player_game)()
    friend_seat = await database_sync_to_async(lambda: game.players.get(user=friend))()
    await database_sync_to_async(wp.switch_bar)(friend_seat, on=True)
    to_host = await connect(game.pk, host)
    to_friend = await connect(game.pk, friend)
    to_watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")
    for communicator in (to_host, to_friend, to_watcher):
        await communicator.receive_from(timeout=5)
    await roll_from_the_test(game, host)
    watched = await bar_frame(to_watcher)
    assert watched and len(chances_in(watched)) == 2 and 'data-action="win-bar"' not in watched
    theirs = await bar_frame(to_friend)
    assert theirs and len(chances_in(theirs)) == 2 and 'aria-pressed="true"' in theirs
    assert await bar_frame(to_host, wait=1.5) is None  # the host did not switch it on
    # The host switches it on: their open screen gets the next one.
    client = await database_sync_to_async(client_for)(host)
    answer = await database_sync_to_async(client.post)(
        f"/games/{game.pk}/win-bar/toggle/", {"on": "1"}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200
    await roll_from_the_test(game, host)
    assert await bar_frame(to_host)
    for communicator in (to_host, to_friend, to_watcher):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_no_screen_of_a_rated_game_gets_the_bar_pushed():
    game, host, friend = await database_sync_to_async(two_player_game)(rated=True)
    # Even a stored choice (made before, by any means) is not honoured in a rated game.
    seat = await database_sync_to_async(lambda: game.players.get(user=friend))()
    await database_sync_to_async(wp.switch_bar)(seat, on=True)
    to_friend = await connect(game.pk, friend)
    to_watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")
    for communicator in (to_friend, to_watcher):
        await communicator.receive_from(timeout=5)
    await roll_from_the_test(game, host)
    assert await bar_frame(to_watcher, wait=1.5) is None
    assert await bar_frame(to_friend, wait=0.5) is None
    for communicator in (to_friend, to_watcher):
        await communicator.disconnect()


async def received(channel: str, quiet: float = 2.0) -> list[dict]:
    """Every message that reaches a channel of the layer until the process's winning-chance work is
    done and the channel has been quiet for `quiet` s."""
    layer = get_channel_layer()
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(layer.receive(channel), timeout=quiet))
        except TimeoutError:
            if await sync_to_async(winprob_live.queue().join)(0):
                return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_roll_pushes_the_bar_in_every_language_in_use_and_a_hold_pushes_none():
    game, host, _friend = await database_sync_to_async(two_player_game)()
    await database_sync_to_async(Game.objects.filter(pk=game.pk).update)(spectator_languages="en nl")
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(pushes.game_group(game.pk), listener)
    await roll_from_the_test(game, host)
    bars = [m for m in await received(listener) if m["type"] == "win.bar"]
    assert sorted(m["language"] for m in bars) == ["en", "nl"]
    assert "Kans om te winnen" in next(m["html"] for m in bars if m["language"] == "nl")
    assert all(len(chances_in(m["html"])) == 2 and len(chances_in(m["seat_html"])) == 2 for m in bars)
    turn = await database_sync_to_async(lambda: Turn.objects.get(game=game, completed_at__isnull=True))()
    await database_sync_to_async(play.turn_toggle_hold)(
        game_id=game.pk, actor=actor(host), turn=turn.number, roll=turn.rolls_used, die=1
    )
    assert [m for m in await received(listener) if m["type"] == "win.bar"] == []
    await layer.group_discard(pushes.game_group(game.pk), listener)


def test_the_socket_forwards_the_bar_by_viewer():

    event = {"type": "win.bar", "version": 5, "language": "en", "rated": False, "html": "S", "seat_html": "P"}
    for seat_id, wants, rated, expected in [
        (None, False, False, "S"),
        (None, False, True, None),
        (7, True, False, "P"),
        (7, False, False, None),
        (7, True, True, None),
    ]:
        consumer = GameConsumer()
        consumer.language = "en"
        consumer.opened = Opened(seat_id=seat_id, taken_over="")
        consumer.wants_bar = wants
        got = []

        async def send(text_data=None, got=got):
            got.append(text_data)

        consumer.send = send
        asyncio.run(consumer.win_bar({**event, "rated": rated}))
        assert got == ([expected] if expected else []), (seat_id, wants, rated)
        # An older bar than one already shown is dropped.
        if expected:
            asyncio.run(consumer.win_bar({**event, "rated": rated, "version": 4}))
            assert len(got) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_screen_that_opens_asks_for_the_bar_and_the_next_gets_it_with_its_board():
    game, host, _friend = await database_sync_to_async(two_player_game)()
    to_watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")
    # Nothing worked out yet: the board comes alone, and the bar follows once worked out (in the niced
    # child, by the process's worker).
    assert chances_in(await to_watcher.receive_from(timeout=5)) == []
    assert len(chances_in(await bar_frame(to_watcher, wait=20))) == 2
    # The next screen to open gets it with its board; a seat that did not switch it on does not.
    to_other = await connect(game.pk, None, query=f"?t={game.invite_token}")
    to_host = await connect(game.pk, host)
    assert len(chances_in(await to_other.receive_from(timeout=5))) == 2
    assert 'id="win-bar"' not in await to_host.receive_from(timeout=5)
    assert await bar_frame(to_host, wait=1) is None
    for communicator in (to_watcher, to_other, to_host):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_bar_older_than_the_one_a_whole_board_brought_is_dropped():
    """A screen that draws a whole board (opening, a missed version) shows the bar of its position; a bar
    of an older position still on its way (from a busier process) must not replace it."""
    game, host, _friend = await database_sync_to_async(two_player_game)()

    def work_out() -> int:
        players = list(game.players.order_by("seat"))
        turn = Turn.objects.get(game=game, completed_at__isnull=True)
        wp.compute_chances(wp.positions(players, turn), in_child=False)
        return Game.objects.get(pk=game.pk).version

    version = await database_sync_to_async(work_out)()
    watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")
    first = await watcher.receive_from(timeout=5)
    assert len(chances_in(first)) == 2 and f'data-win-version="{version}"' in first
    layer = get_channel_layer()
    stale = {"type": "win.bar", "language": "en", "rated": False, "html": "OLD", "seat_html": "OLD"}
    await layer.group_send(pushes.game_group(game.pk), {**stale, "version": version - 1})
    assert await watcher.receive_nothing(timeout=0.5)
    await layer.group_send(pushes.game_group(game.pk), {**stale, "version": version, "html": "SAME"})
    assert await watcher.receive_from(timeout=5) == "SAME"
    await watcher.disconnect()
