"""The game clock's loop (dicegame.play.sweeper.run_clock), in process: it survives every error, backs off,
says when it has recovered, stops when asked, and sends a sweep's pushes on its one event loop.

tests/dicegame/play/test_clock_outages.py does the same with real processes, a real PostgreSQL restart and an
unreachable Redis."""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import channel_layers
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone
from redis.exceptions import ConnectionError as RedisConnectionError

from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Game, Turn
from dicegame.play import sweeper as clock
from tests.support.servers import free_port


@pytest.fixture
def fast_backoff(monkeypatch):
    monkeypatch.setattr(clock, "BACKOFF_FIRST_SECONDS", 0.01)
    monkeypatch.setattr(clock, "BACKOFF_MAX_SECONDS", 0.04)


class ScriptedSweeps:
    """A sweep function that, in turn, raises what it was given, calls it, or returns it; after the
    last one it sets `stop`."""

    def __init__(self, script, stop: asyncio.Event, loop: asyncio.AbstractEventLoop):
        self.script = list(script)
        self.stop, self.loop = stop, loop
        self.threads: set[int] = set()

    def __call__(self) -> int:
        self.threads.add(threading.get_ident())
        step = self.script.pop(0)
        if not self.script:
            self.loop.call_soon_threadsafe(self.stop.set)
        if isinstance(step, BaseException):
            raise step
        return step() if callable(step) else step


async def run_script(script, **kwargs) -> tuple[ScriptedSweeps, list[int]]:
    stop = asyncio.Event()
    sweeps = ScriptedSweeps(script, stop, asyncio.get_running_loop())
    reported: list[int] = []
    await asyncio.wait_for(
        clock.run_clock(0.001, stop=stop, sweep_fn=sweeps, on_sweep=reported.append, **kwargs), timeout=10
    )
    return sweeps, reported


def test_the_pause_doubles_from_half_a_second_to_thirty():
    assert [clock.backoff_seconds(n) for n in range(1, 10)] == [0.5, 1, 2, 4, 8, 16, 30, 30, 30]
    assert clock.backoff_seconds(10_000) == 30


@pytest.mark.asyncio
async def test_lost_connections_are_one_warning_each_then_one_recovery(fast_backoff, caplog, monkeypatch):
    dropped = []
    monkeypatch.setattr(clock, "drop_connection", lambda: dropped.append(True))
    outage = [
        OperationalError(
            'connection failed: connection to server at "127.0.0.1", port 5433 failed:\n\tConnection refused'
        ),
        InterfaceError("connection already closed"),
        RedisConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused."),
    ]
    with caplog.at_level(logging.INFO, logger="dicegame.play.sweeper"):
        sweeps, reported = await run_script([2, *outage, 1, 0], thread_sensitive=True)

    assert reported == [2, 1, 0]  # the loop went on after each failure
    assert len(dropped) == 2  # the broken database connection was closed (Redis has none of ours)
    records = [r for r in caplog.records if r.name == "dicegame.play.sweeper"]
    failures, recovery = records[:3], records[3:]
    assert [r.levelno for r in records] == [logging.WARNING] * 4
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in records)  # no traceback
    assert "OperationalError: connection failed" in failures[0].getMessage()
    assert "retry 1 in 0.0 s" in failures[0].getMessage()
    assert "InterfaceError: connection already closed" in failures[1].getMessage()
    assert "ConnectionError: Error 111" in failures[2].getMessage()
    assert len(recovery) == 1 and "recovered after 3 failed sweep(s)" in recovery[0].getMessage()
    assert len(sweeps.threads) == 1  # thread-sensitive: every sweep in the same thread


@pytest.mark.asyncio
async def test_an_unexpected_error_is_logged_with_its_traceback_and_the_clock_goes_on(fast_backoff, caplog):
    with caplog.at_level(logging.WARNING, logger="dicegame.play.sweeper"):
        _, reported = await run_script([ValueError("a bug"), ValueError("a bug"), 3], thread_sensitive=False)
    assert reported == [3]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all(r.exc_info and r.exc_info[0] is ValueError for r in errors)
    assert "recovered after 2 failed sweep(s)" in caplog.text


@pytest.mark.asyncio
async def test_the_backoff_grows_and_starts_again_after_a_success(monkeypatch):
    pauses: list[float] = []
    real_pause = clock._pause

    async def record(seconds, stop):
        pauses.append(seconds)
        await real_pause(0, stop)

    monkeypatch.setattr(clock, "_pause", record)
    error = OperationalError("gone")
    await run_script([error] * 8 + [0, error, 0], thread_sensitive=True)
    assert pauses == [0.5, 1, 2, 4, 8, 16, 30, 30, 0.001, 0.5, 0.001]


@pytest.mark.asyncio
async def test_stop_ends_the_loop_at_once_even_during_a_long_pause(monkeypatch):
    monkeypatch.setattr(clock, "BACKOFF_FIRST_SECONDS", 30.0)
    stop = asyncio.Event()
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    def failing() -> int:
        loop.call_soon_threadsafe(started.set)
        raise OperationalError("gone")

    task = asyncio.create_task(clock.run_clock(0.001, thread_sensitive=True, stop=stop, sweep_fn=failing))
    await asyncio.wait_for(started.wait(), timeout=5)
    await asyncio.sleep(0.05)  # now in the 30-s pause
    stop.set()
    await asyncio.wait_for(task, timeout=2)


@pytest.mark.django_db
def test_the_connection_of_a_transaction_is_never_closed():
    list(connection.cursor().execute("SELECT 1"))
    assert connection.in_atomic_block  # the test's transaction
    clock.drop_connection()
    assert connection.connection is not None
    assert list(connection.cursor().execute("SELECT 1"))


@pytest.mark.asyncio
async def test_a_sweeps_pushes_use_the_clocks_one_event_loop(monkeypatch):
    """run_timers' sweeps run in a worker thread; what they push after commit (async_to_sync, as
    live.pushes does) runs on the clock's own event loop, so one channel layer connection
    serves every push instead of a new event loop (and a new Redis connection) for each."""
    loops: list[asyncio.AbstractEventLoop] = []

    class Layer:
        async def group_send(self, group, event):
            loops.append(asyncio.get_running_loop())

    def sweep() -> int:
        for game in (7, 8):
            async_to_sync(Layer().group_send)(f"game_{game}", {"type": "game.push"})
        return 2

    _, reported = await run_script([sweep, sweep, sweep], thread_sensitive=True)
    assert reported == [2, 2, 2]
    assert len(loops) == 6 and set(loops) == {asyncio.get_running_loop()}


@pytest.mark.django_db(transaction=True)
def test_a_push_that_cannot_reach_redis_never_fails_a_sweep(settings, caplog):
    """The real sweep settles an overdue auto-commit in a watched game against the computer; every push
    of it fails (Redis unreachable) and is logged, and the sweep still counts the game as changed."""

    actor = Actor(guest_key="clock-push-test", name="Guest")
    game = play.game_create_vs_computer(actor=actor, strengths=["easy"])
    Game.objects.filter(pk=game.pk).update(spectator_languages="en")  # a spectator's screen to push to
    for roll in range(3):
        play.turn_roll(game_id=game.pk, actor=actor, turn=1, roll=roll)
    Turn.objects.filter(game=game, number=1).update(auto_commit_at=timezone.now() - timedelta(seconds=1))

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "live.layer.LocalFirstPubSubLayer",
            "CONFIG": {"hosts": [{"address": f"redis://127.0.0.1:{free_port()}/0"}]},  # nothing there
        }
    }
    channel_layers.backends = {}

    async def one_sweep() -> list[int]:
        stop = asyncio.Event()
        reported: list[int] = []

        def done(changed: int) -> None:
            reported.append(changed)
            stop.set()

        try:
            await clock.run_clock(0.01, thread_sensitive=True, stop=stop, on_sweep=done)
        finally:
            await sync_to_async(clock.drop_connection, thread_sensitive=True)()
        return reported

    with caplog.at_level(logging.WARNING):
        reported = asyncio.run(asyncio.wait_for(one_sweep(), timeout=30))
    assert reported == [1]
    assert Turn.objects.get(game=game, number=1).auto_committed
    assert "could not broadcast" in caplog.text
    assert "sweep failed" not in caplog.text
