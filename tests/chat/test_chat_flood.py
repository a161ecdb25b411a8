"""A flood of lines on the production set-up (two daphne processes of the project on PostgreSQL or the test
database and Redis, real WebSocket clients): 100 lines a second from one socket cost the server little
and reach nobody past the limit, and the table plays on. Needs REDIS_URL, as the other production
faults do; `pytest -s` prints the figures."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from websockets.exceptions import ConnectionClosed

from chat import services
from chat.models import ChatLine
from tests.support.chat import seasoned
from tests.support.daphne_servers import (
    Screen,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    friends_game,
    game_path,
    no_tracebacks,
)
from tests.support.factories import befriend, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

FLOOD_LINES = 100
ACTION_BOUND = 2.0


def test_a_flood_of_lines_reaches_nobody_past_the_limit_and_the_table_plays_on(daphne_servers):
    one, two = daphne_servers.daphne(2)
    ann, bob = seasoned("ann"), seasoned("bob")
    befriend(ann, bob)
    game = friends_game(ann, bob)
    cookies = {ann.pk: session_cookie(ann), bob.pk: session_cookie(bob)}

    async def scenario():
        a = await Screen.open(one, game_path(game), cookies[ann.pk], name="ann's screen")
        b = await Screen.open(two, game_path(game), cookies[bob.pk], name="bob's screen")
        try:
            await a.until(lambda: a.turn == 1, 10, "ann's first board")
            await b.until(lambda: b.turn == 1, 10, "bob's first board")
            started = time.monotonic()
            for n in range(FLOOD_LINES):
                if a.closed.is_set():
                    break
                with contextlib.suppress(ConnectionClosed):
                    await a.send({"action": "say", "kind": "text", "text": f"flood {n}"})
                await asyncio.sleep(1 / FLOOD_LINES)
            sent_in = time.monotonic() - started
            await asyncio.sleep(1.0)  # whatever was let through has arrived
            seen = sum(frame.count("data-chat-line") for _at, frame in b.frames)
            # The table plays on: ann's roll, from a fresh screen, reaches bob's on the other process.
            again = await Screen.open(one, game_path(game), cookies[ann.pk], name="ann's next screen")
            await again.until(lambda: again.turn == 1, 10, "ann's board again")
            version = b.version
            before = time.monotonic()
            await again.send({"action": "roll", "turn": again.turn, "roll": again.roll})
            await b.version_above(version, ACTION_BOUND)
            action = time.monotonic() - before
            await again.close()
            return seen, sent_in, action, a.errors, a.close_code
        finally:
            await a.close()
            await b.close()

    seen, sent_in, action, told, closed = asyncio.run(scenario())
    stored = ChatLine.objects.filter(game=game).count()
    print(
        f"\n{FLOOD_LINES} lines in {sent_in:.2f} s from one socket: {stored} stored, {seen} reached the "
        f"other screen; the sender was told {len(told)} times, its socket closed with {closed}; the next "
        f"action reached the other screen in {action * 1000:.0f} ms; told: {sorted(set(told))}"
    )
    assert 0 < stored <= services.RATE_LINES
    assert seen <= services.RATE_LINES
    assert action < ACTION_BOUND
    assert told, "the sender was not told to slow down"
    assert len(told) <= 10
    for server in (one, two):
        assert server.alive()
        no_tracebacks(server)
