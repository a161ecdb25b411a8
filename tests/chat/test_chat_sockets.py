"""A line reaches the screens on the game's socket group: the players' lines the seats, a spectator's line
the spectators only, never a blocked person's; the rate limit and the duplicate rule hold when lines race."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from accounts.models import Block
from chat import services
from chat.models import ChatLine
from dicegame.models import Game
from tests.support.chat import seasoned
from tests.support.factories import UserFactory, befriend
from tests.support.games import race, two_player_game
from tests.support.row_lock import RowLock
from tests.support.sockets import frame_with_version, open_game_socket

pytestmark = pytest.mark.django_db(transaction=True)


def setting():
    game, host, friend = two_player_game()
    seasoned(host)
    seasoned(friend)
    watcher = seasoned(UserFactory(username="wim"))
    befriend(host, watcher)
    return game, host, friend, watcher


async def shows(communicator, text: str) -> bool:
    for _ in range(10):
        if text in await communicator.receive_from(timeout=5):
            return True
    return False


async def frame_with(communicator, text: str) -> str:
    for _ in range(10):
        if text in (frame := await communicator.receive_from(timeout=5)):
            return frame
    raise AssertionError(f"no frame with {text}")


async def never_shows(communicator, text: str) -> bool:
    while not await communicator.receive_nothing(timeout=0.5):
        if text in await communicator.receive_from():
            return False
    return True


async def say_on(communicator, text, kind="text", **extra) -> None:
    """A line said on the socket, as the drawer sends it."""
    await communicator.send_to(text_data=json.dumps({"action": "say", "kind": kind, "text": text, **extra}))


async def opened(game, user):
    communicator, ok, _ = await open_game_socket(game.pk, user)
    assert ok
    await communicator.receive_from(timeout=5)
    return communicator


@pytest.mark.asyncio
async def test_lines_reach_the_right_screens_and_never_from_a_blocked_person():
    game, host, friend, watcher = await database_sync_to_async(setting)()
    a, b, w = await opened(game, host), await opened(game, friend), await opened(game, watcher)
    post = database_sync_to_async(services.line_post)

    await post(game_id=game.pk, user=host, kind="text", text="hello femke")
    assert await shows(b, "hello femke")
    assert await shows(a, "hello femke")
    assert await never_shows(w, "hello femke")

    await post(game_id=game.pk, user=watcher, kind="text", text="go hana")
    assert await shows(w, "go hana")
    # Not rated: the players may read the spectators' room.
    assert await shows(a, "beforeend:#chat-lines-spectators")

    await post(game_id=game.pk, user=friend, kind="reaction", text="fire")
    # A reaction is also a moment, shown on every screen as the game's moments are.
    frame = await frame_with(a, "🔥")
    assert 'hx-swap-oob="beforeend:#moments"' in frame and 'data-kind="reaction"' in frame

    await database_sync_to_async(Block.objects.create)(blocker=host, blocked=friend)
    fresh = await opened(game, host)
    await post(game_id=game.pk, user=friend, kind="text", text="can you hear me")
    assert await never_shows(fresh, "can you hear me")
    for c in (a, b, w, fresh):
        await c.disconnect()


@pytest.mark.asyncio
async def test_the_spectators_room_is_hidden_from_the_players_of_a_rated_game():
    def rated():
        game, host, friend = two_player_game(rated=True, names=("rita", "rob"))
        seasoned(host)
        watcher = seasoned(UserFactory(username="vic"))
        befriend(host, watcher)
        return game, host, watcher

    game, host, watcher = await database_sync_to_async(rated)()
    a, w = await opened(game, host), await opened(game, watcher)
    await database_sync_to_async(services.line_post)(game_id=game.pk, user=watcher, kind="text", text="psst")
    assert await shows(w, "psst")
    assert await never_shows(a, "psst")
    await a.disconnect()
    await w.disconnect()


def test_racing_lines_cannot_pass_the_rate_limit_or_the_duplicate_rule():
    game, host, _friend, _watcher = setting()

    def line(n):
        return lambda: services.line_post(game_id=game.pk, user=host, kind="text", text=f"line {n}")

    counter = iter(range(100))
    results = race(12, lambda: line(next(counter))())
    kept = [r for r in results if isinstance(r, ChatLine)]
    refused = [r for r in results if isinstance(r, services.ChatRefused)]
    assert len(kept) == services.RATE_LINES and len(refused) == 12 - services.RATE_LINES
    assert all(r.status == 429 for r in refused)

    ChatLine.objects.all().delete()
    same = race(6, lambda: services.line_post(game_id=game.pk, user=host, kind="text", text="same"))
    assert sum(isinstance(r, ChatLine) for r in same) == 1
    assert ChatLine.objects.count() == 1


@pytest.mark.asyncio
async def test_a_line_said_on_the_socket_reaches_the_other_and_a_bad_one_is_an_error_frame():
    game, host, friend, _watcher = await database_sync_to_async(setting)()
    a, b = await opened(game, host), await opened(game, friend)
    await say_on(a, "over the socket")
    assert await shows(b, "over the socket")
    for bad in ("   ", "x" * 141, "\u202e"):
        await say_on(a, bad, id=3)
        frame = await frame_with(a, 'data-answer="3"')
        assert "msg-error" in frame
    await say_on(a, 5)
    assert await shows(a, "malformed")
    assert await never_shows(b, "chat-line-") is True
    count = await database_sync_to_async(ChatLine.objects.count)()
    assert count == 1
    await a.disconnect()
    await b.disconnect()


@pytest.mark.asyncio
async def test_a_flood_of_lines_on_one_socket_stops_at_the_limit_before_the_database():
    game, host, friend, _watcher = await database_sync_to_async(setting)()
    a, b = await opened(game, host), await opened(game, friend)
    for n in range(100):
        await say_on(a, f"flood {n}")
    await never_shows(b, "never")  # drain what arrives
    count = await database_sync_to_async(ChatLine.objects.count)()
    assert count <= services.RATE_LINES
    await a.disconnect()
    await b.disconnect()


@pytest.mark.asyncio
async def test_a_time_out_set_while_the_socket_is_open_silences_its_next_line():
    """The socket keeps the game for its player's lines, never the person's standing."""
    game, host, friend, _watcher = await database_sync_to_async(setting)()
    a, b = await opened(game, host), await opened(game, friend)
    await say_on(a, "gl", kind="phrase")
    assert await shows(b, "Good luck")
    await database_sync_to_async(services.timeout_set)(user_id=host.pk, length="15m", reason="rude")
    await say_on(a, "gg", kind="phrase", id=4)
    frame = await frame_with(a, 'data-answer="4"')
    assert "msg-error" in frame and "rude" in frame
    assert await never_shows(b, "Good game")
    assert await database_sync_to_async(ChatLine.objects.count)() == 1
    await a.disconnect()
    await b.disconnect()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite: a held lock stops every write")
@pytest.mark.asyncio
async def test_a_line_waiting_on_the_database_holds_up_no_move_on_its_socket():
    """A line's write waits (here on the sender's row lock, which another transaction holds); the move
    sent after it on the same socket is applied and pushed meanwhile, and the line follows."""
    game, host, friend, _watcher = await database_sync_to_async(setting)()
    a, b = await opened(game, host), await opened(game, friend)
    version = await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).version)()
    held = RowLock(type(host), host.pk)
    lock = await database_sync_to_async(held.__enter__, thread_sensitive=False)()
    try:
        await say_on(a, "wait for it")
        await a.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
        await frame_with_version(b, version + 1)
        assert lock.thread.is_alive()
    finally:
        lock.release.set()
    assert await shows(b, "wait for it")
    await database_sync_to_async(lock.thread.join, thread_sensitive=False)(10)
    await a.disconnect()
    await b.disconnect()
