"""A player's action on the game socket, as the game page sends it (docs/live-play.md), through the real
ASGI application (its origin check and the session cookie): the POST's fields and services, an answer
that echoes the action's id, the POST's 409 refusal at the board, bad frames, another person's game."""

from __future__ import annotations

import json
import re
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from dicegame.models import Turn
from dicegame.play import rooms
from penta.asgi import application
from tests.support import HX
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import two_player_game
from tests.support.sockets import (
    cookie_header,
    frame_with_version,
    open_game_socket,
    receive_until,
    version_of,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ANSWER = re.compile(r'^<div id="messages"[^>]* data-answer="(\d+)"(?: data-answer-version="(\d+)")?')


@database_sync_to_async
def turn_state(game_id):
    t = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).first()
    return (t.number, t.rolls_used, list(t.held), t.chosen_box) if t else None


@database_sync_to_async
def rig(game_id, dice, rolls=1):
    Turn.objects.filter(game_id=game_id, completed_at__isnull=True).update(
        dice=dice, held=[False] * 5, rolls=[{"dice": dice, "held": [False] * 5}] * rolls
    )


@database_sync_to_async
def post(user, path, fields):
    """The same action as the page's POST (htmx), for the refusal's message to compare with."""
    client = Client()
    client.force_login(user)
    return client.post(path, fields, **HX)


async def answer_to(communicator, answer_id: int) -> str:
    return await receive_until(communicator, lambda h: f'data-answer="{answer_id}"' in h[:300])


async def opened(game, *users):
    sockets = []
    for user in users:
        communicator, ok, _ = await open_game_socket(game.pk, user)
        assert ok
        await communicator.receive_from(timeout=5)  # the board
        sockets.append(communicator)
    return sockets


async def test_an_action_is_applied_answered_with_its_id_and_pushed_to_both_screens():
    game, host, friend = await database_sync_to_async(two_player_game)()
    a, b = await opened(game, host, friend)
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": 7}))
    answer = await answer_to(a, 7)
    found = ANSWER.match(answer)
    assert found and found.group(1) == "7"
    version = int(found.group(2))
    # Only what is this screen's own: no board (the push brings it, rendered once per seat).
    assert 'id="dice-tray"' not in answer and 'role="alert"' not in answer
    mine = await frame_with_version(a, version)
    theirs = await frame_with_version(b, version)
    assert version_of(mine) == version_of(theirs) == version
    assert re.search(r'data-die="1" data-value="[1-6]"', mine)
    assert (await turn_state(game.pk))[:2] == (1, 1)
    await a.disconnect()
    await b.disconnect()


async def test_a_refusal_is_the_posts_409_with_its_message_at_the_board():
    game, host, friend = await database_sync_to_async(two_player_game)()
    (a,) = await opened(game, host)
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": 1}))
    await answer_to(a, 1)
    before = await turn_state(game.pk)
    # A page that did not see that roll yet: the same fields as its POST.
    fields = {"turn": 1, "roll": 0}
    await a.send_to(text_data=json.dumps({"action": "hold", "die": 2, "id": 2, **fields}))
    refusal = await answer_to(a, 2)
    assert await turn_state(game.pk) == before
    assert 'data-answer-status="409"' in refusal[:300]
    # The whole board from the database, as the POST's 409 carries it, with the message in the same place.
    for region in ("game-status", "turn-status", "dice-tray", "scoresheet"):
        assert f'id="{region}"' in refusal
    assert version_of(refusal) >= 2
    response = await post(host, f"/games/{game.pk}/hold/2/", fields)
    assert response.status_code == 409
    message = re.search(r'<p class="msg msg-error" role="alert">([^<]+)</p>', response.content.decode())
    assert message and message.group(1) in refusal
    assert "The game moved on since this page was shown" in message.group(1)
    await a.disconnect()


async def test_not_your_turn_is_refused_with_the_posts_message():
    game, host, friend = await database_sync_to_async(two_player_game)()
    (b,) = await opened(game, friend)
    await b.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": 3}))
    refusal = await answer_to(b, 3)
    response = await post(friend, f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0})
    assert response.status_code == 409
    assert "It is not your turn." in refusal and "It is not your turn." in response.content.decode()
    assert (await turn_state(game.pk))[1] == 0
    await b.disconnect()


async def test_a_zero_is_asked_at_its_box_and_the_yes_writes_it():
    game, host, friend = await database_sync_to_async(two_player_game)()
    (a,) = await opened(game, host)
    await rig(game.pk, [1, 1, 1, 1, 2])  # Sixes score 0, Ones 4
    message = {"action": "choose", "turn": 1, "roll": 1, "box": "SIXES", "id": 1}
    await a.send_to(text_data=json.dumps(message))
    question = await answer_to(a, 1)
    assert 'data-answer-status="409"' in question[:300]
    assert 'data-zero-question="SIXES"' in question
    assert 'role="alert"' not in question[:300]  # asked at the box, not in the message area (as htmx)
    assert (await turn_state(game.pk))[3] == ""
    await a.send_to(text_data=json.dumps({**message, "id": 2, "confirm_zero": 1, "write": 1}))
    assert ANSWER.match(await answer_to(a, 2)).group(2)
    written = await database_sync_to_async(Turn.objects.get)(game=game, number=1)
    assert written.box == "SIXES" and written.completed_at is not None
    await a.disconnect()


async def test_the_answer_to_a_confirm_offers_the_next_game_waiting():
    @database_sync_to_async
    def games():
        femke, hana, ines = (UserFactory(username=name) for name in ("femke", "hana", "ines"))
        made = []
        for other in (hana, ines):
            befriend(femke, other)
            game = rooms.room_create(actor=actor(femke), seats=2, turn_seconds=0)
            rooms.room_join_by_link(token=game.invite_token, actor=actor(other))
            rooms.room_start(game_id=game.pk, actor=actor(femke))
            made.append(game)
        return femke, *made

    femke, game, other = await games()
    (a,) = await opened(game, femke)
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": 1}))
    answer = await answer_to(a, 1)
    assert '<p id="next-game" class="small" hx-swap-oob="morph"></p>' in answer  # her turn: none
    await a.send_to(
        text_data=json.dumps({"action": "choose", "turn": 1, "roll": 1, "box": "CHANCE", "id": 2})
    )
    assert 'id="next-game"' not in await answer_to(a, 2)  # a choice's answer leaves it
    await a.send_to(text_data=json.dumps({"action": "confirm", "turn": 1, "roll": 1, "id": 3}))
    answer = await answer_to(a, 3)
    assert f'data-next-game="{other.pk}"' in answer
    await a.disconnect()


@pytest.mark.parametrize(
    ("frame", "status", "message"),
    [
        ({"action": "hold", "turn": 1, "roll": 1, "die": "x", "id": 4}, "400", "missing a field"),
        ({"action": "teleport", "id": 5}, "400", "Unknown action"),
        (
            {"action": "choose", "turn": 1, "roll": 1, "box": "CHANCE", "write": 2, "id": 6},
            "400",
            "malformed",
        ),
        (
            {"action": "choose", "turn": 1, "roll": 1, "box": "CHANCE", "write": True, "id": 7},
            "400",
            "malformed",
        ),
        ({"action": "hold", "turn": 1, "roll": 1, "die": 9, "id": 8}, "400", "five dice"),
        ({"action": "choose", "turn": 1, "roll": 1, "box": "SEVENS", "id": 9}, "400", "no such box"),
    ],
)
async def test_a_bad_action_is_answered_with_its_id_and_changes_nothing(frame, status, message):
    game, host, friend = await database_sync_to_async(two_player_game)()
    (a,) = await opened(game, host)
    await rig(game.pk, [1, 2, 3, 4, 5])
    before = await turn_state(game.pk)
    await a.send_to(text_data=json.dumps(frame))
    answer = await answer_to(a, frame["id"])
    assert f'data-answer-status="{status}"' in answer[:300]
    assert message in answer
    assert await turn_state(game.pk) == before
    await a.disconnect()


async def test_a_malformed_id_is_refused_and_changes_nothing():
    game, host, friend = await database_sync_to_async(two_player_game)()
    (a,) = await opened(game, host)
    for bad in ("7", 1.5, -1, True, 2**31):
        await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": bad}))
        html = await receive_until(a, lambda h: 'role="alert"' in h)
        assert "data-answer=" not in html
        assert "malformed" in html or "whole numbers" in html
    assert (await turn_state(game.pk))[1] == 0
    await a.disconnect()


async def test_another_persons_game_is_refused_as_the_post_refuses_it():
    """A spectator (a friend of a player) sees the game on its socket and may do nothing on it."""
    game, host, friend = await database_sync_to_async(two_player_game)()

    @database_sync_to_async
    def watcher_of(player):
        watcher = UserFactory(username="wim")
        befriend(watcher, player)
        return watcher

    watcher = await watcher_of(friend)
    (s,) = await opened(game, watcher)
    await s.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0, "id": 1}))
    refusal = await answer_to(s, 1)
    assert 'data-answer-status="404"' in refusal[:300]
    assert "There is no such game." in refusal
    response = await post(watcher, f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0})
    assert response.status_code == 404 and "There is no such game." in response.content.decode()
    assert (await turn_state(game.pk))[1] == 0
    await s.disconnect()


async def test_actions_faster_than_the_rate_are_slowed_not_refused(settings):
    """A page sends one action at a time, as fast as its answers come: over the socket's rate they wait
    for their tokens, and none is dropped (a flood of other frames still is: test_game_socket)."""
    settings.PENTA_SOCKET_RATE, settings.PENTA_SOCKET_BURST = 10, 2
    game, host, friend = await database_sync_to_async(two_player_game)()
    (a,) = await opened(game, host)
    await rig(game.pk, [1, 2, 3, 4, 5])
    started = time.monotonic()
    for n in range(1, 9):
        die = n % 5 + 1
        await a.send_to(text_data=json.dumps({"action": "hold", "turn": 1, "roll": 1, "die": die, "id": n}))
        answer = await answer_to(a, n)
        assert ANSWER.match(answer).group(2), answer[:300]
        await receive_until(a, lambda h: 'id="dice-tray"' in h)  # its push
    # Eight actions with two tokens at hand and ten a second: at least 0.6 s, none refused.
    assert time.monotonic() - started >= 0.55
    assert (await turn_state(game.pk))[2] == [True, False, False, False, True]
    await a.disconnect()


async def test_a_socket_without_the_pages_origin_cannot_act():
    """The Origin check stands in for the POST's CSRF token: a page of another site (or none at all)
    cannot open the game socket with the player's cookie, so it cannot send an action on it."""
    game, host, friend = await database_sync_to_async(two_player_game)()
    cookie = await cookie_header(host)
    for headers in ([cookie], [(b"origin", b"http://evil.example"), cookie]):
        communicator = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
        connected, _code = await communicator.connect(timeout=5)
        assert not connected
    assert (await turn_state(game.pk))[1] == 0
