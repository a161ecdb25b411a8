"""The game socket through the real ASGI application: pushes, actions, takeover and refusals."""

import asyncio
import json
import re
import threading

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from accounts.models import Friendship
from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Game, Turn
from live import pushes
from tests.support.factories import UserFactory
from tests.support.games import two_player_game
from tests.support.sockets import closed_with, open_game_socket, receive_until, version_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def state(game_id):
    t = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).first()
    return (t.number, t.rolls_used, list(t.held)) if t else None


async def test_players_receive_each_others_moves_as_partials():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    a, ok_a, _ = await open_game_socket(game.pk, host)
    b, ok_b, _ = await open_game_socket(game.pk, friend)
    assert ok_a and ok_b
    first = await a.receive_from(timeout=5)
    assert 'id="dice-tray"' in first and 'hx-swap-oob="morph"' in first
    await b.receive_from(timeout=5)
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    html = await receive_until(b, lambda h: 'data-value="' in h and re.search(r'data-value="[1-6]"', h))
    # The friend sees the dice but cannot press anything.
    assert re.search(r'<button[^>]*data-die="1"[^>]*disabled', html, re.S)
    await a.send_to(text_data=json.dumps({"action": "hold", "turn": 1, "roll": 1, "die": 3}))
    html = await receive_until(b, lambda h: 'data-die="3"' in h and 'aria-pressed="true"' in h)
    assert (await state(game.pk))[2] == [False, False, True, False, False]
    # A hold redraws only the dice and the turn status; the sheet did not change.
    assert 'id="scoresheet"' not in html and 'id="turn-status"' in html
    await a.disconnect()
    await b.disconnect()


async def test_out_of_turn_action_gets_an_error_frame_and_changes_nothing():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    b, ok, _ = await open_game_socket(game.pk, friend)
    await b.receive_from(timeout=5)
    before = await state(game.pk)
    await b.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    html = await receive_until(b, lambda h: 'role="alert"' in h)
    assert "It is not your turn." in html
    assert await state(game.pk) == before
    await b.disconnect()


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not valid JSON"),
        ('{"action": "teleport"}', "Unknown action"),
        ('{"action": "roll"}', "missing a field"),
        ('{"action": "hold", "turn": 1, "roll": 0, "die": "x"}', "missing a field"),
        ("x" * 5000, "at most 4 KB"),
    ],
)
async def test_malformed_frames_are_refused_and_the_socket_stays_usable(frame, message):
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    a, ok, _ = await open_game_socket(game.pk, host)
    await a.receive_from(timeout=5)
    before = await state(game.pk)
    await a.send_to(text_data=frame)
    html = await receive_until(a, lambda h: 'role="alert"' in h)
    assert message in html
    assert await state(game.pk) == before
    await a.send_to(text_data=json.dumps({"action": "sync"}))
    assert 'id="dice-tray"' in await a.receive_from(timeout=5)
    await a.disconnect()


async def test_spectator_sees_everything_and_can_do_nothing():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    watcher = await database_sync_to_async(UserFactory)()
    await database_sync_to_async(Friendship.objects.create)(
        user_low=min(watcher, friend, key=lambda u: u.pk), user_high=max(watcher, friend, key=lambda u: u.pk)
    )
    s, ok, _ = await open_game_socket(game.pk, watcher)
    assert ok
    html = await s.receive_from(timeout=5)
    assert "You are watching this game." in html
    before = await state(game.pk)
    await s.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    assert "There is no such game." in await receive_until(s, lambda h: 'role="alert"' in h)
    assert await state(game.pk) == before
    await s.disconnect()


async def test_unauthenticated_foreign_origin_and_strangers_are_refused():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    c, ok, _ = await open_game_socket(game.pk)
    assert ok and await closed_with(c) == 4404
    _, ok, _ = await open_game_socket(game.pk, host, origin=(b"origin", b"http://evil.example"))
    assert not ok
    stranger = await database_sync_to_async(UserFactory)()
    c, ok, _ = await open_game_socket(game.pk, stranger)
    assert ok and await closed_with(c) == 4404
    c, ok, _ = await open_game_socket(987654, host)
    assert ok and await closed_with(c) == 4404
    # The link lets anyone watch, logged in or not.
    s, ok, _ = await open_game_socket(game.pk, stranger, query=f"?t={game.invite_token}")
    assert ok and "You are watching this game." in await s.receive_from(timeout=5)
    await s.disconnect()


async def test_a_second_tab_takes_over_and_the_first_is_told():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    first, ok, _ = await open_game_socket(game.pk, host)
    await first.receive_from(timeout=5)
    second, ok, _ = await open_game_socket(game.pk, host)
    assert ok
    html = await receive_until(first, lambda h: "data-taken-over" in h)
    assert "open in another tab" in html
    assert (await first.receive_output(timeout=5))["type"] == "websocket.close"
    await second.receive_from(timeout=5)
    await second.disconnect()


async def test_reconnect_gets_the_full_current_state():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    a, ok, _ = await open_game_socket(game.pk, host)
    v1 = version_of(await a.receive_from(timeout=5))
    await a.disconnect()
    await database_sync_to_async(play.turn_roll)(
        game_id=game.pk, actor=Actor(user_id=host.pk), turn=1, roll=0
    )
    a, ok, _ = await open_game_socket(game.pk, host)
    html = await a.receive_from(timeout=5)
    assert version_of(html) > v1
    assert re.search(r'data-die="1" data-value="[1-6]"', html)
    await a.disconnect()


async def test_action_on_a_finished_game_is_refused():
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)

    @database_sync_to_async
    def finish():

        Game.objects.filter(pk=game.pk).update(status="finished", finished_at=timezone.now())

    a, ok, _ = await open_game_socket(game.pk, host)
    await a.receive_from(timeout=5)
    await finish()
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    assert "This game is over." in await receive_until(a, lambda h: 'role="alert"' in h)
    await a.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        '{"action": []}',
        '{"action": {"a": 1}}',
        '{"action": null}',
        '{"action": "roll", "turn": 1e400, "roll": 0}',
        '{"action": "roll", "turn": Infinity, "roll": 0}',
        '{"action": "roll", "turn": NaN, "roll": 0}',
        '{"action": "roll", "turn": 1.9, "roll": 0.2}',
        '{"action": "roll", "turn": 1.0, "roll": 0}',
        '{"action": "roll", "turn": true, "roll": false}',
        '{"action": "roll", "turn": "1", "roll": "0"}',
        '{"action": "roll", "turn": -1, "roll": 0}',
        '{"action": "roll", "turn": 1' + "0" * 5000 + ', "roll": 0}',
        '{"action": "hold", "turn": 1, "roll": 0, "die": 99999999999999999999999}',
        '{"action": "choose", "turn": 1, "roll": 0, "box": ["CHANCE"]}',
        '{"action": "choose", "turn": 1, "roll": 0, "box": "\\u0000"}',
    ],
)
async def test_hostile_frames_get_an_error_frame_never_a_crash_and_change_nothing(frame):
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    a, ok, _ = await open_game_socket(game.pk, host)
    await a.receive_from(timeout=5)
    before = await state(game.pk)
    await a.send_to(text_data=frame)
    html = await receive_until(a, lambda h: 'role="alert"' in h)
    assert re.search(r"(4 KB|whole numbers|Unknown action|malformed|not valid JSON|no such box)", html), html
    assert await state(game.pk) == before
    # The socket is still open and still works.
    await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    await receive_until(a, lambda h: re.search(r'data-die="1" data-value="[1-6]"', h))
    assert (await state(game.pk))[1] == 1
    await a.disconnect()


async def test_a_flooding_socket_is_told_then_closed_and_the_game_is_unharmed(settings):
    settings.PENTA_SOCKET_ABUSE_LIMIT = 30
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    flooder, ok, _ = await open_game_socket(game.pk, friend)
    await flooder.receive_from(timeout=5)
    player, ok, _ = await open_game_socket(game.pk, host)
    await player.receive_from(timeout=5)
    before = await state(game.pk)
    for _ in range(200):
        await flooder.send_to(text_data=json.dumps({"action": "sync"}))
    told = closed = False
    for _ in range(400):
        output = await flooder.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            closed = output["code"]
            break
        told = told or "Too many messages" in output.get("text", "")
    assert told and closed == 4429
    assert await state(game.pk) == before
    # The other player plays on.
    await player.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    await receive_until(player, lambda h: re.search(r'data-die="1" data-value="[1-6]"', h), attempts=20)
    await player.disconnect()


async def test_sockets_beyond_the_cap_per_person_are_refused(settings):
    settings.PENTA_MAX_SOCKETS_PER_PERSON = 2
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    first, ok, _ = await open_game_socket(game.pk, host)
    await first.receive_from(timeout=5)
    second, ok, _ = await open_game_socket(game.pk, host)  # takes the seat over from the first
    third, ok, _ = await open_game_socket(game.pk, host)
    frames = []
    while True:
        output = await third.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
        frames.append(output["text"])
    assert output["code"] == 4430
    assert any("Too many open screens" in f for f in frames)
    await second.disconnect()


async def test_a_push_is_not_held_up_by_another_sockets_database_work():
    """The sockets' database work runs in one thread of the process; forwarding a push needs none of it,
    so a push reaches its screen while that thread is busy with someone else's move."""
    game, host, friend = await database_sync_to_async(two_player_game)(turn_seconds=60)
    a, ok, _ = await open_game_socket(game.pk, host)
    assert ok
    version = version_of(await a.receive_from(timeout=5))
    gate = threading.Event()
    busy = asyncio.create_task(database_sync_to_async(gate.wait)(10))
    await asyncio.sleep(0.05)
    try:
        push = {"type": "game.push", "version": version + 1, "html": '<p id="probe"></p>', "partial": False}
        await get_channel_layer().group_send(pushes.game_group(game.pk), push)
        assert 'id="probe"' in await a.receive_from(timeout=2)
        assert not busy.done()
    finally:
        gate.set()
        await busy
    await a.disconnect()
