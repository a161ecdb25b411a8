"""Two daphne processes, one database, one Redis: players on different processes see each other's
moves, and a turn timer fires exactly once although both processes run the clock.

Needs a channel layer shared between processes: it runs when REDIS_URL is set (CI's PostgreSQL +
Redis pass) and is skipped on the in-memory configuration, which by design serves one process."""

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import timedelta

import pytest
import websockets
from django.db import connection
from django.utils import timezone

from accounts.models import Friendship
from dicegame.actors import Actor
from dicegame.models import Player, Turn
from dicegame.play import rooms
from tests.support import ROOT
from tests.support.environment import require_redis
from tests.support.factories import UserFactory, session_cookie
from tests.support.servers import free_port

pytestmark = pytest.mark.django_db(transaction=True)


def wait_until_listening(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne on {port} exited: {process.stdout.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"daphne on {port} did not start")


@pytest.fixture
def two_servers():
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: the in-memory channel layer serves a single process")
    require_redis()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "penta.settings_test",
        "PENTA_USE_TEST_DB": "1",
        "PENTA_CLOCK_IN_WEB": "true",
        "PENTA_CLOCK_INTERVAL": "0.1",
    }
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "penta.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for port in ports
    ]
    try:
        for port, process in zip(ports, processes, strict=True):
            wait_until_listening(port, process)
        yield ports
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def test_players_on_two_processes_see_each_other_and_timers_fire_once(two_servers):

    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    Friendship.objects.create(user_low=host, user_high=friend)
    a, b = Actor(user_id=host.pk, name="hana"), Actor(user_id=friend.pk, name="femke")
    game = rooms.room_create(actor=a, seats=2, turn_seconds=30)
    rooms.room_join_by_link(token=game.invite_token, actor=b)
    rooms.room_start(game_id=game.pk, actor=a)
    cookies = {host.pk: session_cookie(host), friend.pk: session_cookie(friend)}

    async def connect(user, port):
        return await websockets.connect(
            f"ws://127.0.0.1:{port}/ws/games/{game.pk}/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": cookies[user.pk]},
            open_timeout=10,
        )

    async def until(ws, pattern, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            if re.search(pattern, frame, re.S):
                return frame

    def expire_first_turn():
        try:
            Turn.objects.filter(game=game, number=1).update(deadline_at=timezone.now() - timedelta(seconds=1))
        finally:
            connection.close()  # this thread's own connection

    async def play():
        port_a, port_b = two_servers
        ws_a = await connect(host, port_a)
        ws_b = await connect(friend, port_b)
        try:
            await until(ws_a, 'id="dice-tray"')
            await until(ws_b, 'id="dice-tray"')
            # A move on process A reaches the friend on process B.
            await ws_a.send(json.dumps({"action": "roll", "turn": 1, "roll": 0}))
            frame = await until(ws_b, r'data-die="1" data-value="[1-6]"')
            dice_seen_by_friend = re.findall(r'data-die="\d" data-value="(\d)"', frame)
            await ws_a.send(json.dumps({"action": "hold", "turn": 1, "roll": 1, "die": 2}))
            await until(ws_b, r'data-die="2" data-value="\d"[^>]*aria-pressed="true"')
            # The host's time runs out; both processes run the clock, the computer plays the turn once.
            await asyncio.to_thread(expire_first_turn)
            await until(ws_b, r"Time left for femke")
            await until(ws_a, r"Time left for femke")
            return dice_seen_by_friend
        finally:
            await ws_a.close()
            await ws_b.close()

    dice_seen_by_friend = asyncio.run(play())
    first = Turn.objects.get(game=game, number=1)
    assert [str(v) for v in first.rolls[0]["dice"]] == dice_seen_by_friend
    time.sleep(1.0)  # give both clocks more passes: still nothing may happen twice
    turns = list(Turn.objects.filter(game=game).order_by("number"))
    assert [t.number for t in turns] == [1, 2]
    assert turns[0].is_complete and turns[0].stand_in and not turns[1].is_complete
    assert turns[1].player.user == friend
    assert Player.objects.get(game=game, user=host).missed_turns == 1
