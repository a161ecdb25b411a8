"""The production set-up as it runs, for tests: real daphne processes (and the game clock as a process
of its own, `manage.py run_timers`) on the test database and a shared Redis, and real WebSocket clients
(the `websockets` package).

    from tests.support.daphne_servers import daphne_servers_fixture  # noqa: F401  (the fixture)

    def test_something(daphne_servers):
        web1, web2 = daphne_servers.daphne(2, clock="web")   # both run the game clock
        ...

`daphne_servers` skips the test when REDIS_URL is unset: the in-memory channel layer serves a single
process, so several processes need the Redis one (CI's PostgreSQL + Redis pass sets it, and there the
test must run; `require_redis` fails it in CI when Redis does not answer). Every process it started is
stopped at the end of the test (SIGTERM, then SIGKILL to its whole process group), before the test's
database is flushed.

The processes run `tests.support.daphne_settings` (the test settings with production's way of keeping database
connections) with PENTA_USE_TEST_DB=1 (the pytest process's test database, which they find by the
inherited PENTA_TEST_RUN) and short presence timings (FAST_PRESENCE), which a test may override through
`daphne(..., PENTA_X="...")`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.db import connection
from websockets.exceptions import ConnectionClosed

from dicegame.models import Game, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box
from live.models import ServerProcess
from tests.support import ROOT
from tests.support.environment import require_redis
from tests.support.factories import actor
from tests.support.servers import free_port, wait_until

HOST = "127.0.0.1"

# Presence and the clock in seconds, not minutes: a process is taken for dead 2 s after its last beat.
FAST_PRESENCE = {
    "PENTA_HEARTBEAT_SECONDS": "0.5",
    "PENTA_PROCESS_STALE_SECONDS": "2",
    "PENTA_ABSENT_GRACE_SECONDS": "2",
    "PENTA_CLOCK_INTERVAL": "0.1",
}
# The production entry point (README): daphne's own command line with compressed sockets; plain daphne
# before the project had it.
SERVER_MODULE = "penta.server"
# What must never appear in a server's output.
TRACEBACK_MARKERS = (
    "Traceback (most recent call last)",
    "Exception inside application",
    "Too many connections",
)


def require_shared_layer() -> None:
    """Skip without REDIS_URL (the in-memory layer serves one process); in CI fail if Redis is down."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: the in-memory channel layer serves a single process")
    require_redis()


class Server:
    """One process of the project (daphne or run_timers), in a process group of its own, with its
    output in a file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path, port: int | None = None):
        self.name = name
        self.port = port
        self.log_path = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, *argv],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: teardown kills whatever it may have started
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def tracebacks(self) -> list[str]:
        """The lines of its output that show an error nobody handled."""
        return [line for line in self.output().splitlines() if any(m in line for m in TRACEBACK_MARKERS)]

    def ws_url(self, path: str) -> str:
        return f"ws://{HOST}:{self.port}{path}"

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    def kill(self) -> None:
        """SIGKILL, as a crash: no handler runs, no socket is closed cleanly."""
        if self.alive():
            self.process.kill()
        self.process.wait(timeout=10)

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM, then SIGKILL to the whole group if it lingers or left anything behind."""
        if self.alive():
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def wait_listening(self, timeout: float = 60) -> None:
        def listening() -> bool:
            if not self.alive():
                pytest.fail(f"{self.name} exited before listening:\n{self.output()}")
            try:
                with socket.create_connection((HOST, self.port), timeout=0.2):
                    return True
            except OSError:
                return False

        wait_until(listening, timeout=timeout, what=lambda: f"{self.name} to listen:\n{self.output()}")


class Servers:
    """What the `daphne_servers` fixture gives a test: start processes; all are stopped at its end."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.started: list[Server] = []

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="tests.support.daphne_settings",
            PENTA_USE_TEST_DB="1",
            SECRET_KEY=os.environ.get("SECRET_KEY") or "penta-tests-daphne-servers-" + "x" * 32,
            PYTHONUNBUFFERED="1",
            **FAST_PRESENCE,
        )
        env.update({key: str(value) for key, value in extra.items()})
        return env

    def daphne(
        self,
        count: int = 1,
        *,
        clock: str = "web",
        app: str = "penta.asgi:application",
        proxy_headers: bool = False,
        **extra: str,
    ) -> list[Server]:
        """`count` daphne processes (SERVER_MODULE) on free ports. `clock`: "web" (each runs the game
        clock in the background), "process" (none does, one `run_timers` is started too: the README's
        production layout) or "none". `app`: the ASGI application (an instrumented one, say).
        `proxy_headers`: behind a reverse proxy (daphne's --proxy-headers: the client's address from
        X-Forwarded-For)."""
        assert clock in {"web", "process", "none"}
        env = self.env(PENTA_CLOCK_IN_WEB="true" if clock == "web" else "false", **extra)
        servers = []
        for _ in range(count):
            port = free_port()
            name = f"daphne-{len(self.started) + 1}"
            argv = ["-m", SERVER_MODULE, *(["--proxy-headers"] if proxy_headers else []), "-b", HOST]
            argv += ["-p", str(port), app]
            server = Server(name, argv, env, self.workdir / f"{name}.log", port=port)
            self.started.append(server)
            servers.append(server)
        if clock == "process":
            self.run_timers(**extra)
        for server in servers:
            server.wait_listening()
        return servers

    def run_timers(self, **extra: str) -> Server:
        env = self.env(PENTA_CLOCK_IN_WEB="false", **extra)
        name = f"run_timers-{len(self.started) + 1}"
        server = Server(name, ["manage.py", "run_timers"], env, self.workdir / f"{name}.log")
        self.started.append(server)
        return server

    def stop_all(self) -> None:
        for server in self.started:
            if server.alive():
                server.process.terminate()
        for server in self.started:
            server.stop()


@pytest.fixture(name="daphne_servers")
def daphne_servers_fixture(transactional_db, strategy, tmp_path):
    """Start project processes on the test database (see `Servers`); all are gone when the test ends,
    before its database is flushed. Needs REDIS_URL (skipped without it). The solved strategy table is
    built first, so that no process has to."""
    require_shared_layer()
    servers = Servers(tmp_path)
    try:
        yield servers
    finally:
        servers.stop_all()


# -- clients ---------------------------------------------------------------------------------------------

VERSION = re.compile(r'id="game-status"[^>]*data-version="(\d+)"')
TURN = re.compile(r'name="turn" value="(\d+)"')
ROLL = re.compile(r'name="roll" value="(\d+)"')
ERROR = re.compile(r'class="msg msg-error"[^>]*>([^<]*)<|class="notice error"[^>]*>([^<]*)<')


async def open_websocket(server: Server, path: str, cookie: str | None = None, **options):
    """A WebSocket to `path` on the server, from its own origin, with the session `cookie`; no
    keepalive pings of the client's own (a test decides when the socket speaks)."""

    headers = {"Cookie": cookie} if cookie else None
    return await websockets.connect(
        server.ws_url(path),
        origin=server.origin,
        additional_headers=headers,
        open_timeout=options.pop("open_timeout", 20),
        ping_interval=None,
        close_timeout=options.pop("close_timeout", 2),
        max_size=None,
        **options,
    )


class Screen:
    """A socket read in the background, as a page reads it: the latest version, turn and roll shown,
    every error message, when each version arrived, and how the socket was closed."""

    def __init__(self, ws, name: str = "", keep_frames: bool = True):
        self.ws = ws
        self.name = name
        self.keep_frames = keep_frames
        self.frames: list[tuple[float, str]] = []
        self.count = 0
        self.version = -1
        self.version_at: dict[int, float] = {}
        self.turn: int | None = None
        self.roll: int | None = None
        self.errors: list[str] = []
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._changed = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, server: Server, path: str, cookie: str | None = None, name: str = "", **options):
        keep = _screen_options(options)
        return cls(await open_websocket(server, path, cookie, **options), name=name or path, **keep)

    async def _read(self) -> None:

        try:
            async for frame in self.ws:
                self._take(frame if isinstance(frame, str) else frame.decode(errors="replace"))
        except ConnectionClosed:
            pass
        except Exception as exc:  # a reset connection (its server killed): closed all the same
            self.errors.append(f"reader: {exc!r}")
        finally:
            self.close_code = self.ws.close_code if self.ws.close_code is not None else 1006
            self.closed.set()
            self._changed.set()

    def _take(self, frame: str) -> None:
        now = time.monotonic()
        self.count += 1
        if self.keep_frames:
            self.frames.append((now, frame))
        match = VERSION.search(frame)
        if match and int(match.group(1)) > self.version:
            self.version = int(match.group(1))
            self.version_at.setdefault(self.version, now)
        if (turn := TURN.search(frame)) and (roll := ROLL.search(frame)):
            self.turn, self.roll = int(turn.group(1)), int(roll.group(1))
        for error in ERROR.finditer(frame):
            self.errors.append((error.group(1) or error.group(2) or "").strip())
        self._changed.set()

    async def until(self, predicate: Callable[[], object], timeout: float, what: str):
        """Wait for `predicate()` to be true (returned), failing after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._changed.clear()
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"{self.name}: timed out after {timeout:g} s waiting for {what} "
                    f"(version {self.version}, closed {self.close_code}, errors {self.errors[-3:]})"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    async def version_above(self, version: int, timeout: float = 10) -> float:
        """Wait for a version newer than `version`; returns when it arrived (time.monotonic())."""
        await self.until(lambda: self.version > version, timeout, f"a version above {version}")
        return min(at for v, at in self.version_at.items() if v > version)

    async def frame_matching(self, pattern: str, timeout: float = 10, since: int = 0) -> str:
        """The first frame (from the `since`-th on) that matches `pattern`."""
        regex = re.compile(pattern, re.S)

        def found():
            return next((f for _at, f in self.frames[since:] if regex.search(f)), None)

        return await self.until(found, timeout, f"a frame matching {pattern!r}")

    async def wait_closed(self, timeout: float = 10) -> int:
        await self.until(self.closed.is_set, timeout, "the socket to close")
        return self.close_code

    async def send(self, message: dict) -> None:

        await self.ws.send(json.dumps(message))

    async def pong(self, timeout: float = 5) -> float:
        """A ping at the WebSocket level; returns the round trip in seconds."""
        started = time.monotonic()
        waiter = await self.ws.ping()
        await asyncio.wait_for(waiter, timeout)
        return time.monotonic() - started

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # already gone
            await self.ws.close()
        try:
            await asyncio.wait_for(self._reader, 5)
        except (TimeoutError, asyncio.CancelledError):
            self._reader.cancel()

    def abort(self) -> None:
        """Drop the TCP connection with no close frame, as a crashed browser or a lost network does."""
        self.ws.transport.abort()


def _screen_options(options: dict) -> dict:
    return {"keep_frames": options.pop("keep_frames")} if "keep_frames" in options else {}


async def in_db(function: Callable, *args, **kwargs):
    """Run database code (a service, a query) from async test code: in a worker thread, whose database
    connection is closed afterwards (an open one would keep the test database from being dropped).
    Through asgiref, so that a push the code sends after commit comes back to the test's event loop
    and its channel layer, as in a server."""

    def run():
        try:
            return function(*args, **kwargs)
        finally:
            connection.close()

    return await sync_to_async(run, thread_sensitive=False)()


GRACE = float(FAST_PRESENCE["PENTA_ABSENT_GRACE_SECONDS"])


STALE = float(FAST_PRESENCE["PENTA_PROCESS_STALE_SECONDS"])


# Longer than the 5-s socket timeout redis-py 8 made the default, which cut every idle socket.
IDLE_SECONDS = 8.5


# The boxes a test player fills, in this order (the first the dice allow).
BOX_ORDER = [
    Box.CHANCE, Box.ONES, Box.TWOS, Box.THREES, Box.FOURS, Box.FIVES, Box.SIXES, Box.THREE_OF_A_KIND,
    Box.FOUR_OF_A_KIND, Box.FULL_HOUSE, Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT, Box.PENTA,
]  # fmt: skip


def friends_game(host, guest, *, turn_seconds: int = 0) -> Game:
    """A started two-player game against friends (the turn timer off by default); `host` plays first."""
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=turn_seconds)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(guest))
    return rooms.room_start(game_id=game.pk, actor=actor(host))


def game_path(game: Game, token: str = "") -> str:
    return f"/ws/games/{game.pk}/" + (f"?t={token}" if token else "")


def box_for(game_id: int, turn_number: int) -> str:
    """A box the dice of the turn may go in."""
    turn = Turn.objects.select_related("player").get(game_id=game_id, number=turn_number)
    options = turn.player.sheet.options(tuple(turn.dice))
    return next(box for box in BOX_ORDER if box in options).name


def process_row(server) -> ServerProcess | None:
    return ServerProcess.objects.filter(pid=server.pid).first()


def no_tracebacks(server) -> None:
    found = server.tracebacks()
    assert not found, f"{server.name} logged errors:\n{server.output()[-6000:]}"
