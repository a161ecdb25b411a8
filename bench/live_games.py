"""Benchmark: live two-player games over WebSockets on the production set-up, against a bare Channels echo.

The production set-up: PostgreSQL, Redis, N daphne processes (default 2) with the game clock off
(PENTA_CLOCK_IN_WEB=false) and ONE `manage.py run_timers` process as the clock. The bench creates a
temporary PostgreSQL database itself (--pg-server; dropped at the end) or uses an empty one
(--database-url), creates the users, their logged-in sessions and the started two-seat games with
the ORM, starts the processes, and measures, once per channel layer (--layer pubsub,core):

1. Paced games (the main mode): K games at once (default K = 50, 100, 200), each player acting after a
   think time of 0.8-1.2 s (seeded) and playing each turn as a person does: roll, hold one or two
   dice, roll again, choose an enabled box, confirm. Player A of every game is on one daphne process
   and player B on the other, so every push crosses processes through Redis. One sample is the time
   from a player sending an action to the OTHER player's socket receiving a frame with a higher
   data-version. (--mode closed: the same games with no think time, every game with one action in
   flight all the time.)
2. Throughput: K games (default 100) on ONE daphne process, closed loop with no think time: the
   actions per second that one process serves, and its CPU time per action.
3. With chat (--chat-every N): each paced K phase is played again right after it, on fresh games, with
   chat at the table: each player says a reaction or a quick phrase on the game's socket (as the
   drawer does) after every N of their actions. The actions' figures are printed beside the phase's
   without chat, run by run: chat must not make the actions slower (issue 45).

A bare echo consumer (ws/echo/, one socket per process) is pinged all through each phase, so machine
noise and server load hit the baseline too. CPU time per action: the daphne processes and the
run_timers process (from /proc/<pid>/stat), PostgreSQL (the backends of the bench's database, polled
from pg_stat_activity) and Redis (INFO cpu: the whole server), and the bench client itself.

    .venv/bin/python bench/live_games.py --pg-server postgres://u:p@127.0.0.1:5432/postgres \\
        --redis-url redis://127.0.0.1:6379/0 [--layer pubsub,core] [--k 50,100,200] [--json PATH]

The exit status is 1 if any action failed (an error frame, no answer within 5 s, a socket that closed)
or a server process did not start or died; the aims (p99 under 50 ms at the largest K with no errors,
at least 300 actions/s on one process) are printed, not enforced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import math
import os
import random
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from daphne_server import (
    HOST,
    ROOT,
    SETTINGS_MODULE,
    ClockProcess,
    DaphneServer,
    default_server_module,
    free_port,
    process_cpu,
)
from live_relay import RelayFigures, merged, run_relay, write_board

AIM_CPU_OVER_RELAY = 2.0  # web CPU per action, against the relay's per message
AIM_P99_MS = 50.0  # paced p99 from an action to the other screen, at each K of AIM_KS, no failures
AIM_KS = (100, 200)
AIM_ACTIONS_PER_S = 300.0
ACTION_TIMEOUT = 5.0  # seconds: a later answer counts as an error
IDLE_SECONDS = 3.0  # the servers' CPU with nothing to do, measured before the phases
DRAIN_LIMIT = 120.0  # seconds to wait for the servers to go idle after a phase
MAX_TURNS = 26  # a two-player game: 13 rounds of two turns
LAYERS = ("pubsub", "core")
ACTION_KINDS = ("roll", "hold", "choose", "confirm")

# The servers' own figures of where a push's time went (core.metrics, penta_push_stage_seconds).
STAGES = ("waited", "applied", "queued", "transit")
STAGE_BUCKET_RE = re.compile(
    r'^penta_push_stage_seconds_bucket\{(?=[^}]*le="([^"]+)")(?=[^}]*stage="(\w+)")[^}]*\} (\S+)$', re.M
)
VERSION_RE = re.compile(r'<div id="game-status"[^>]*\bdata-version="(\d+)"')
TURN_RE = re.compile(r'<input type="hidden" name="turn" value="(\d+)">')
ROLL_RE = re.compile(r'<input type="hidden" name="roll" value="(\d+)">')
BOX_BUTTON_RE = re.compile(r'<button\b[^>]*\bdata-box="([A-Z_]+)"[^>]*>')
ROLL_BUTTON_RE = re.compile(r'<button\b[^>]*\bdata-action="roll"[^>]*>')
DISABLED_RE = re.compile(r"\sdisabled\b")
TURN_STATUS_RE = re.compile(r'<section id="turn-status".*?</section>', re.DOTALL)
# The socket's answer to an action (live.answers): the message area marked with the action's id, and the
# version it made or the status of its refusal; a zero's question at its box.
ANSWER_RE = re.compile(
    r'^<div id="messages"[^>]* data-answer="(\d+)"'
    r'(?: data-answer-version="(\d+)")?(?: data-answer-status="(\d+)")?'
)
QUESTION_RE = re.compile(r'data-zero-question="([A-Z_]+)"')


# -- the database --------------------------------------------------------------------------------------


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


class Database:
    """Where the bench's data lives: a temporary PostgreSQL database that the bench creates on the
    server of --pg-server and drops at the end, the existing empty database of --database-url (left in
    place), or a SQLite file in the work directory (not the production set-up)."""

    def __init__(self, args, workdir: Path):
        self.server_url = args.pg_server
        self.url: str | None = args.database_url
        self.sqlite_path = workdir / "bench.sqlite3"
        self.created: str | None = None  # the temporary database's name
        # What the servers and the clock connect to, when it is not `url`: the latency proxy (--db-delay-ms).
        self.servers_url: str | None = None

    def create(self) -> None:
        if not self.server_url:
            return
        import psycopg
        from psycopg import sql

        name = f"penta_bench_{secrets.token_hex(4)}"
        admin = (
            self.server_url
            if urlsplit(self.server_url).path.strip("/")
            else with_database(self.server_url, "postgres")
        )
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self.created = name
        self.url = with_database(self.server_url, name)

    def drop(self) -> str:
        if not self.created:
            return ""
        import psycopg
        from psycopg import sql

        admin = (
            self.server_url
            if urlsplit(self.server_url).path.strip("/")
            else with_database(self.server_url, "postgres")
        )
        try:
            with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.created))
                )
        except Exception as exc:
            return f"could not drop the temporary database {self.created}: {exc!r}; drop it by hand"
        return f"dropped the temporary database {self.created}"

    @property
    def kind(self) -> str:
        return "postgresql" if self.url else "sqlite"

    @property
    def name(self) -> str:
        return urlsplit(self.url).path.strip("/") if self.url else str(self.sqlite_path)


# -- the servers' settings -----------------------------------------------------------------------------


def start_db_proxy(url: str, delay_ms: float) -> tuple[subprocess.Popen, str]:
    """The latency proxy (bench/db_latency.py) in front of the database of `url`: (process, the URL
    through it)."""
    parts = urlsplit(url)
    port = free_port()
    proxy = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "bench" / "db_latency.py"),
            "--listen",
            str(port),
            "--to",
            f"{parts.hostname}:{parts.port or 5432}",
            "--delay-ms",
            str(delay_ms),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    if proxy.stdout.readline().strip() != "ready":
        proxy.kill()
        raise RuntimeError("the database latency proxy did not start")
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@{HOST}:{port}" if credentials else f"{HOST}:{port}"
    return proxy, urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def round_trip_ms(url: str, n: int = 200) -> float:
    """The median time of `SELECT 1` on a connection to `url`."""
    import psycopg

    times = []
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        for _ in range(n):
            start = time.perf_counter()
            conn.execute("SELECT 1")
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def relay_board_path(db: Database) -> Path:
    return db.sqlite_path.parent / "relay-board.html"


def server_env(db: Database, redis_url: str, layer: str, secret_key: str, tag: str) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL", "SQLITE_PATH", "PENTA_CHANNEL_LAYER"):
        env.pop(name, None)
    if db.url:
        env["DATABASE_URL"] = db.servers_url or db.url
    else:
        env["SQLITE_PATH"] = str(db.sqlite_path)
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(
        DJANGO_SETTINGS_MODULE=SETTINGS_MODULE,
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        ALLOWED_HOSTS=HOST,
        WHITENOISE_USE_FINDERS="true",  # no collectstatic for a bench
        # The relay's board (bench/live_relay.py), written once the servers run.
        PENTA_BENCH_RELAY_BOARD=str(relay_board_path(db)),
        PENTA_CHANNEL_LAYER=layer,
        # Production: the web processes do not run the clock; the one run_timers process does.
        PENTA_CLOCK_IN_WEB="false",
        # The games exist before anybody connects: no absent player's grace period may end a turn.
        PENTA_ABSENT_GRACE_SECONDS="86400",
        # The players roll twice and choose at once, so no turn reaches the 3-s auto-commit; made
        # long anyway so that an overloaded server cannot turn a late choice into an auto-commit.
        PENTA_AUTO_COMMIT_SECONDS="86400",
        # A closed loop with few games sends faster than any person (a socket's limit is 8 messages a
        # second): the limiter still runs, with limits no bench player reaches.
        PENTA_SOCKET_RATE="1000",
        PENTA_SOCKET_BURST="1000",
        PENTA_PERSON_RATE="1000",
        PENTA_PERSON_BURST="1000",
        # Every bench player comes from 127.0.0.1, and hundreds of sockets open at once: the limits on
        # opening sockets per address and per person (meant for many addresses) still run, out of reach.
        PENTA_HANDSHAKE_RATE="100000",
        PENTA_HANDSHAKE_BURST="100000",
        PENTA_CONNECT_RATE="100000",
        PENTA_CONNECT_BURST="100000",
        PENTA_MAX_SOCKETS_PER_GAME="1000",
        # Shared Redis: keys of this run's cache apart from anybody else's.
        PENTA_CACHE_PREFIX=f"penta-bench-{tag}",
        # The bench process signs the sessions the servers read: both use the same key.
        SECRET_KEY=secret_key,
    )
    return env


# -- the data, made with the ORM in this process -------------------------------------------------------


def django_setup(env: dict[str, str]) -> None:
    """The ORM in this process, on the bench's database, with the in-memory channel layer (pushes of the
    set-up go nowhere) and the local-memory cache."""
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL", "SQLITE_PATH"):
        os.environ.pop(name, None)
    os.environ.update({k: v for k, v in env.items() if k not in ("REDIS_URL", "CACHE_URL")})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def check_empty_database() -> None:
    from django.db import connection

    tables = connection.introspection.table_names()
    connection.close()
    if tables:
        sys.exit(
            f"the database named by --database-url is not empty ({len(tables)} tables): give an empty one"
        )


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "--skip-checks", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def spread_ids() -> int:
    """Start the game and user ids at a random high number: the channel layer's group names (game_<id>,
    user_<id>) then stay apart from those of anybody else using the same Redis (tests, another bench)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from dicegame.models import Game

    base = random.SystemRandom().randrange(10**8, 10**9)
    with connection.cursor() as cursor:
        for model in (Game, get_user_model()):
            table = model._meta.db_table
            if connection.vendor == "postgresql":
                cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)", [table, base])
            elif connection.vendor == "sqlite":
                cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
                cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, base])
    return base


def make_players(count: int) -> list[tuple[int, str, str]]:
    """`count` users, each with one logged-in database session: (user id, username, session key)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore

    user_model = get_user_model()
    tag = secrets.token_hex(3)
    user_model.objects.bulk_create(
        [user_model(username=f"bench{tag}_{i}", password=make_password(None)) for i in range(count)]
    )
    backends = settings.AUTHENTICATION_BACKENDS
    model_backend = "django.contrib.auth.backends.ModelBackend"
    backend = model_backend if model_backend in backends else backends[0]
    players = []
    for user in user_model.objects.filter(username__startswith=f"bench{tag}_").order_by("pk"):
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        players.append((user.pk, user.username, session.session_key))
    return players


def make_games(players: list[tuple[int, str, str]], k: int) -> list[tuple[int, tuple, tuple]]:
    """K started two-player games (no turn timer) between players 2i and 2i+1: (game id, A, B)."""
    from dicegame.actors import Actor
    from dicegame.play.rooms import room_create, room_join_by_link, room_start

    games = []
    for i in range(k):
        a, b = players[2 * i], players[2 * i + 1]
        actor_a = Actor(user_id=a[0], name=a[1])
        game = room_create(actor=actor_a, seats=2, turn_seconds=0)
        room_join_by_link(token=game.invite_token, actor=Actor(user_id=b[0], name=b[1]))
        room_start(game_id=game.pk, actor=actor_a)
        games.append((game.pk, a, b))
    return games


def make_relay_board(players, server: DaphneServer, path: Path, rounds: int = 7) -> int:
    """A real board for the relay: a two-player game played `rounds` rounds in (with the ORM here, the
    computer's choices), its page fetched from a server as its first player sees it; returns its bytes."""
    import http.client

    from dicegame import play
    from dicegame.actors import Actor
    from dicegame.models import Turn
    from dicegame.strategy.computer import auto_commit_box

    ((game_id, a, b),) = make_games(players[:2], 1)
    actors = {a[0]: Actor(user_id=a[0], name=a[1]), b[0]: Actor(user_id=b[0], name=b[1])}
    for _ in range(2 * rounds):
        turn = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).order_by("number").first()
        actor = actors[turn.player.user_id]
        for roll in range(3):
            play.turn_roll(game_id=game_id, actor=actor, turn=turn.number, roll=roll)
        turn.refresh_from_db()
        box = auto_commit_box(turn.player.sheet, tuple(turn.dice)).name
        play.turn_choose_box(game_id=game_id, actor=actor, turn=turn.number, roll=3, box=box)
        play.turn_confirm(game_id=game_id, actor=actor, turn=turn.number, roll=3)
    play.turn_roll(game_id=game_id, actor=actors[a[0]], turn=2 * rounds + 1, roll=0)
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    conn.request("GET", f"/games/{game_id}/", headers={"Cookie": f"sessionid={a[2]}", "Host": HOST})
    answer = conn.getresponse()
    page = answer.read().decode()
    conn.close()
    if answer.status != 200:
        raise RuntimeError(f"the relay's board: GET /games/{game_id}/ answered {answer.status}")
    return write_board(path, page)


# -- CPU meters ----------------------------------------------------------------------------------------


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy so far, all cores (/proc/stat), NaN elsewhere."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    except (OSError, ValueError, IndexError):
        return float("nan")
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def redis_cpu(url: str) -> float:
    """Redis's own CPU seconds so far (INFO cpu): the whole server, whoever else uses it."""
    if not url:
        return float("nan")
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            info = client.info("cpu")
        finally:
            client.close()
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    except Exception:
        return float("nan")


def is_local_postgres(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip().startswith("postgres")
    except OSError:
        return False


class PostgresCpu:
    """The CPU time of the PostgreSQL backends serving the bench's database during a phase: their pids
    from pg_stat_activity, polled every `interval` s by a thread, their CPU from /proc (a backend that
    ends between two polls loses at most one interval). NaN when the server is not on this machine."""

    def __init__(self, url: str | None, interval: float = 0.5):
        self.url = url
        self.interval = interval
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.local = True
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn = None

    def _poll(self) -> None:
        pids = [
            row[0]
            for row in self._conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
        ]
        for pid in pids:
            cpu = process_cpu(pid)
            if math.isnan(cpu):  # ended since the query
                continue
            # A backend first seen now started during the phase: all its CPU belongs to it.
            self.first.setdefault(pid, 0.0 if self._started else cpu)
            self.last[pid] = cpu

    def start(self) -> None:
        if not self.url:
            return
        import psycopg

        self.first, self.last = {}, {}
        self._stop.clear()
        try:
            self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            # The server is on this machine if this connection's own backend is a local postgres process.
            self.local = is_local_postgres(self._conn.execute("SELECT pg_backend_pid()").fetchone()[0])
            if not self.local:
                self._conn.close()
                return
            self._started = False
            self._poll()
            self._started = True
        except Exception:  # the figure is optional: left out
            self.local = False
            return
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            with contextlib.suppress(Exception):
                self._poll()

    def stop(self) -> float:
        if self._thread is None:
            return float("nan")
        self._stop.set()
        self._thread.join(5)
        self._thread = None
        with contextlib.suppress(Exception):
            self._poll()
        with contextlib.suppress(Exception):
            self._conn.close()
        if not self.local or not self.last:
            return float("nan")
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


class Meters:
    """Cumulative CPU seconds of every process a phase is charged with."""

    def __init__(self, servers: list[DaphneServer], clock: ClockProcess, redis_url: str, pg: PostgresCpu):
        self.servers = servers
        self.clock = clock
        self.redis_url = redis_url
        self.pg = pg

    def begin(self) -> dict:
        self.pg.start()
        return self.snapshot()

    def end(self, before: dict) -> dict:
        after = self.snapshot()
        return {
            "wall_s": after["wall"] - before["wall"],
            "web_s": [a - b for a, b in zip(after["web"], before["web"], strict=True)],
            "clock_s": after["clock"] - before["clock"],
            "postgres_s": self.pg.stop(),
            "redis_s": after["redis"] - before["redis"],
            "client_s": after["client"] - before["client"],
            "machine_s": after["machine"] - before["machine"],
        }

    def snapshot(self) -> dict:
        return {
            "wall": time.perf_counter(),
            "web": [s.cpu() for s in self.servers],
            "clock": self.clock.cpu(),
            "redis": redis_cpu(self.redis_url),
            "client": self_cpu(),
            "machine": machine_busy(),
        }


def scrape_stages(servers: list[DaphneServer]) -> dict[str, dict[float, float]]:
    """Each stage's cumulative bucket counts (upper bound in seconds: count), added up over the servers'
    own /metrics (each process serves its own: the bench sets no PROMETHEUS_MULTIPROC_DIR)."""
    totals: dict[str, dict[float, float]] = {stage: defaultdict(float) for stage in STAGES}
    for server in servers:
        connection = http.client.HTTPConnection(HOST, server.port, timeout=10)
        try:
            connection.request("GET", "/metrics")
            text = connection.getresponse().read().decode()
        finally:
            connection.close()
        for le, stage, count in STAGE_BUCKET_RE.findall(text):
            if stage in totals:
                totals[stage][float(le)] += float(count)
    return totals


def stage_figures(before: dict, after: dict) -> dict[str, dict]:
    """Per stage, over a phase: how many were timed, and the median and p99 estimated from the buckets
    (linear within a bucket; "inf" past the last bound)."""
    figures = {}
    for stage in STAGES:
        bounds = sorted(after.get(stage, {}))
        cumulative = [after[stage][b] - before.get(stage, {}).get(b, 0.0) for b in bounds]
        total = cumulative[-1] if cumulative else 0.0

        def quantile(q: float, bounds=bounds, cumulative=cumulative, total=total) -> float:
            if not total:
                return float("nan")
            rank, low, below = q * total, 0.0, 0.0
            for bound, count in zip(bounds, cumulative, strict=True):
                if count >= rank:
                    if math.isinf(bound):
                        return float("inf")
                    inside = count - below
                    return (low + (bound - low) * ((rank - below) / inside if inside else 1.0)) * 1000
                low, below = bound, count
            return float("inf")

        figures[stage] = {"n": int(total), "median_ms": quantile(0.5), "p99_ms": quantile(0.99)}
    return figures


# -- the client ----------------------------------------------------------------------------------------


class ActionFailed(Exception):
    pass


class Seat:
    """One player's socket. A reader task keeps what the page would show (the form's turn and roll
    fields, the roll button, the last scoresheet: a push after a small change carries only some
    regions) and wakes whoever waits for a version above a given one with the frame's arrival time."""

    def __init__(self, name: str, ws):
        self.name = name
        self.ws = ws
        self.version = -1
        self.turn: int | None = None
        self.roll: int | None = None
        self.can_roll = False
        self.status_html = ""
        self.sheet_html = ""
        self.waiters: list[tuple[int, asyncio.Future]] = []
        self.error_future: asyncio.Future | None = None
        self.actions = 0  # the ids of this page's actions, as the page counts them
        self.answers: dict[int, asyncio.Future] = {}  # id: the answer's (version, status, frame)
        self.alerts = 0  # error frames seen
        self.closed = False
        self.closing = False  # closed by us
        self.last_frame = time.perf_counter()
        self.task = asyncio.get_running_loop().create_task(self._read())

    def _keep(self, frame: str) -> None:
        turn, roll = TURN_RE.search(frame), ROLL_RE.search(frame)
        if turn and roll:
            self.turn, self.roll = int(turn.group(1)), int(roll.group(1))
        if 'id="scoresheet"' in frame:
            self.sheet_html = frame
        status = TURN_STATUS_RE.search(frame)
        if status:  # the roll button lives in the turn status; a push without that region keeps it
            self.status_html = status.group(0)
            button = ROLL_BUTTON_RE.search(self.status_html)
            self.can_roll = bool(button) and not DISABLED_RE.search(button.group(0))

    def status_text(self) -> str:
        """What the turn status says, for an error message."""
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", self.status_html)).strip()
        button = ROLL_BUTTON_RE.search(self.status_html)
        state = "none" if not button else "disabled" if DISABLED_RE.search(button.group(0)) else "enabled"
        return f"{self.name} v{self.version}: {text[:160]!r} (roll button {state})"

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                now = time.perf_counter()
                self.last_frame = now
                if isinstance(frame, bytes):
                    frame = frame.decode(errors="replace")
                answer = ANSWER_RE.match(frame)
                if answer:
                    fut = self.answers.pop(int(answer.group(1)), None)
                    version, status = answer.group(2), answer.group(3)
                    if fut is not None and not fut.done():
                        fut.set_result((int(version) if version else None, int(status or 200), frame))
                match = VERSION_RE.search(frame)
                if match:
                    version = int(match.group(1))
                    if version >= self.version:  # the same version again: a forced redraw ("sync")
                        self._keep(frame)
                    if version > self.version:
                        self.version = version
                        keep = []
                        for above, fut in self.waiters:
                            if version > above:
                                if not fut.done():
                                    fut.set_result(now)
                            else:
                                keep.append((above, fut))
                        self.waiters = keep
                elif 'role="alert"' in frame and not answer:
                    self.alerts += 1
                    if self.error_future is not None and not self.error_future.done():
                        self.error_future.set_result("refused: " + _alert_text(frame))
        except Exception:  # a closed or broken socket: reported below
            pass
        finally:
            self.closed = True
            for _above, fut in self.waiters:
                if not fut.done():
                    fut.set_exception(ActionFailed(f"{self.name}: socket closed"))
            self.waiters = []
            if self.error_future is not None and not self.error_future.done():
                self.error_future.set_result("socket closed")
            for fut in self.answers.values():
                if not fut.done():
                    fut.set_exception(ActionFailed(f"{self.name}: socket closed"))
            self.answers = {}

    def send_action(self, message: dict) -> tuple[str, asyncio.Future]:
        """The frame the game page sends for `message` (its id added, written as JSON.stringify writes it),
        and the future of its answer."""
        self.actions += 1
        fut = asyncio.get_running_loop().create_future()
        self.answers[self.actions] = fut
        return json.dumps({**message, "id": self.actions}, separators=(",", ":")), fut

    def above(self, version: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if self.closed:
            fut.set_exception(ActionFailed(f"{self.name}: socket closed"))
        elif self.version > version:
            fut.set_result(time.perf_counter())
        else:
            self.waiters.append((version, fut))
        return fut

    async def close(self) -> None:
        self.closing = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)
        self.task.cancel()


def _alert_text(frame: str) -> str:
    match = re.search(r'role="alert"[^>]*>([^<]*)<', frame)
    return (match.group(1) if match else frame[:120]).strip()


def enabled_boxes(html: str) -> list[str]:
    return [m.group(1) for m in BOX_BUTTON_RE.finditer(html) if not DISABLED_RE.search(m.group(0))]


async def open_socket(url: str, port: int, session_key: str):
    from websockets.asyncio.client import connect

    return await connect(
        url,
        origin=f"http://{HOST}:{port}",
        additional_headers={"Cookie": f"sessionid={session_key}"},
        open_timeout=30,
        ping_interval=None,
        close_timeout=5,
        max_size=2**22,
    )


@dataclass
class Spec:
    """What one phase plays."""

    run: str  # "paced", "closed" or "throughput"
    k: int
    processes: int  # the players are spread over the first `processes` daphne processes
    think: tuple[float, float]  # seconds before each action (0, 0: closed loop)
    seconds: float
    turns: int
    chat_every: int = 0  # a reaction or phrase after every this many of a player's actions (0: no chat)


@dataclass
class Phase:
    """The figures of one phase."""

    spec: Spec
    layer: str
    samples: list[float] = field(default_factory=list)  # ms
    by_kind: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    echo: list[float] = field(default_factory=list)  # ms, interleaved with the games
    failures: list[str] = field(default_factory=list)
    turns_done: int = 0
    late: int = 0  # throughput phase: answers later than ACTION_TIMEOUT (not errors there)
    connect_seconds: float = float("nan")  # opening the 2K sockets until every screen settled
    drain_seconds: float = float("nan")  # after the phase, until the servers were idle again
    compression: str = "?"  # the WebSocket extensions the game sockets negotiated
    seconds: float = 0.0
    cpu: dict = field(default_factory=dict)
    load_average: float = float("nan")
    relay: RelayFigures | None = None  # the relay at the same K and pace, half before this phase, half after
    # The relay again, its pace raised until its web processes are as busy as the game's were: the
    # latency of the transport alone at the game's CPU load (--loaded-relay).
    loaded_relay: RelayFigures | None = None
    stages: dict = field(default_factory=dict)  # the servers' own figures: where a push's time went
    chat_lines: int = 0  # reactions and phrases said (--chat-every)

    # -- derived figures --

    @property
    def actions(self) -> int:
        return len(self.samples)

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds > 0 else float("nan")

    def per_action_ms(self, seconds: float) -> float:
        return seconds * 1000 / self.actions if self.actions else float("nan")

    def figures(self) -> dict:
        cpu = self.cpu
        # The daphne processes the players are on (any other one idles through a throughput phase).
        web_s = cpu.get("web_s", [])[: self.spec.processes]
        web = sum(web_s) if web_s else float("nan")
        clock = cpu.get("clock_s", float("nan"))
        ours = (
            web
            + clock
            + sum(
                v
                for v in (cpu.get(k, float("nan")) for k in ("postgres_s", "redis_s", "client_s"))
                if not math.isnan(v)
            )
        )
        seconds = self.seconds or float("nan")
        med, p99 = median(self.samples), pct(self.samples, 99)
        echo_med, echo_p99 = median(self.echo), pct(self.echo, 99)
        return {
            "layer": self.layer,
            "run": self.spec.run,
            "k": self.spec.k,
            "chat_every": self.spec.chat_every,
            "chat_lines": self.chat_lines,
            "daphne_processes": self.spec.processes,
            "think_s": list(self.spec.think),
            "samples": self.actions,
            "median_ms": med,
            "p99_ms": p99,
            "by_kind": {
                kind: {"n": len(v), "median_ms": median(v), "p99_ms": pct(v, 99)}
                for kind, v in self.by_kind.items()
            },
            "echo": {"n": len(self.echo), "median_ms": echo_med, "p99_ms": echo_p99},
            "median_over_echo_median": ratio(med, echo_med),
            "p99_over_echo_p99": ratio(p99, echo_p99),
            "actions_per_s": self.actions_per_s,
            "seconds": self.seconds,
            "turns_done": self.turns_done,
            "connect_seconds": self.connect_seconds,
            "socket_extensions": self.compression,
            "drain_seconds": self.drain_seconds,
            "late_not_errors": self.late,
            "cpu_ms_per_action": {
                "web": self.per_action_ms(web),
                "web_per_process": [self.per_action_ms(s) for s in web_s],
                "clock": self.per_action_ms(clock),
                "web_and_clock": self.per_action_ms(web + clock),
                "postgres": self.per_action_ms(cpu.get("postgres_s", float("nan"))),
                "redis": self.per_action_ms(cpu.get("redis_s", float("nan"))),
                "bench_client": self.per_action_ms(cpu.get("client_s", float("nan"))),
            },
            "web_cores_busy": [s / seconds for s in web_s],
            # What one daphne process could serve with a whole core to itself, from its CPU per action.
            "actions_per_s_per_core": ratio(1000, self.per_action_ms(web / len(web_s)) if web_s else 0),
            # The machine during the phase (all cores): busy in all, and busy outside this bench's
            # processes (daphne, run_timers, the PostgreSQL backends, Redis, the client): other load.
            "machine_cores": os.cpu_count(),
            "machine_cores_busy": cpu.get("machine_s", float("nan")) / seconds,
            "other_cores_busy": (cpu.get("machine_s", float("nan")) - ours) / seconds,
            "errors": len(self.failures),
            "error_kinds": [
                {"kind": kind, "count": count, "example": example}
                for kind, count, example in failure_kinds(self.failures)
            ],
            "load_average": self.load_average,
            "relay": self.relay_figures(web / self.actions * 1000 if self.actions else float("nan"), p99),
            "loaded_relay": self.loaded_relay_figures(web / seconds, p99),
            "push_stages": self.stages,
        }

    def web_cores_busy(self) -> float:
        """The game's web processes, cores busy over the phase."""
        web_s = self.cpu.get("web_s", [])[: self.spec.processes]
        return sum(web_s) / self.seconds if web_s and self.seconds else float("nan")

    def loaded_relay_figures(self, game_cores: float, p99: float) -> dict | None:
        """The relay at the game's CPU load: its latency, how busy it kept the web processes against the
        game, and the game's p99 against its p99."""
        relay = self.loaded_relay
        if relay is None:
            return None
        web_s = relay.cpu.get("web_s", [])[: self.spec.processes]
        cores = sum(web_s) / relay.seconds if web_s and relay.seconds else float("nan")
        return {
            "think_s": list(loaded_think(self.spec.think, self.relay_scale())),
            "samples": len(relay.samples),
            "median_ms": median(relay.samples),
            "p99_ms": pct(relay.samples, 99),
            "messages_per_s": len(relay.samples) / relay.seconds if relay.seconds else float("nan"),
            "web_cores_busy": cores,
            "game_web_cores_busy": game_cores,
            "errors": len(relay.failures),
            "game_p99_over_relay_p99": ratio(p99, pct(relay.samples, 99)),
        }

    def relay_scale(self) -> float:
        """How much faster than the game's pace the relay must send to keep its web processes as busy as
        the game kept them (from the relay run at the game's pace); NaN without one."""
        relay = self.relay
        if relay is None or not relay.seconds:
            return float("nan")
        web_s = relay.cpu.get("web_s", [])[: self.spec.processes]
        relay_cores = sum(web_s) / relay.seconds if web_s else float("nan")
        return ratio(self.web_cores_busy(), relay_cores)

    def relay_figures(self, web_ms_per_action: float, p99: float) -> dict | None:
        """The relay beside the game: its latency, its CPU per message, and the game's against them."""
        relay = self.relay
        if relay is None:
            return None
        web_s = relay.cpu.get("web_s", [])[: self.spec.processes]
        per_message = sum(web_s) * 1000 / len(relay.samples) if relay.samples and web_s else float("nan")
        return {
            "samples": len(relay.samples),
            "median_ms": median(relay.samples),
            "p99_ms": pct(relay.samples, 99),
            "messages_per_s": len(relay.samples) / relay.seconds if relay.seconds else float("nan"),
            "web_cpu_ms_per_message": per_message,
            "errors": len(relay.failures),
            "game_cpu_over_relay_cpu": ratio(web_ms_per_action, per_message),
            "game_p99_over_relay_p99": ratio(p99, pct(relay.samples, 99)),
        }


async def play_game(a: Seat, b: Seat, phase: Phase, deadline: float, rng: random.Random) -> None:
    """One game, turn by turn: roll, hold one or two dice, roll again, choose an enabled box, confirm,
    each action after a think time (none in a closed loop)."""
    low, high = phase.spec.think
    if high > 0:
        await asyncio.sleep(rng.uniform(0, high))  # the games start out of step, as people do
    if not (a.can_roll or b.can_roll):
        # Ask both screens for a full redraw once before calling it a failure.
        with contextlib.suppress(Exception):
            for seat in (a, b):
                await seat.ws.send(json.dumps({"action": "sync"}))
            end = time.perf_counter() + ACTION_TIMEOUT
            while not (a.can_roll or b.can_roll) and time.perf_counter() < end:
                await asyncio.sleep(0.05)
    if a.can_roll:
        order = (a, b)
    elif b.can_roll:
        order = (b, a)
    else:
        phase.failures.append(
            f"neither player's roll button is enabled at the start, even after a sync: "
            f"{a.status_text()}; {b.status_text()}"
        )
        return
    said = {a.name: 0, b.name: 0}  # each player's actions since their last line (--chat-every)
    for turn_index in range(phase.spec.turns):
        actor, other = order[turn_index % 2], order[1 - turn_index % 2]
        holds = sorted(rng.sample(range(1, 6), rng.choice((1, 2))))
        plan = [("roll", None), *(("hold", die) for die in holds), ("roll", None), ("choose", None)]
        plan.append(("confirm", None))
        written = False
        for kind, die in plan:
            if written:  # a zero's question answered yes wrote the box: no confirm
                break
            if high > 0:
                await asyncio.sleep(rng.uniform(low, high))
            if time.perf_counter() >= deadline:
                return
            try:
                if actor.turn is None or actor.roll is None:
                    raise ActionFailed("no turn/roll fields on the player's board")
                # As the page sends it: the action, then the control's own fields (live.js).
                message = {"action": kind}
                if kind == "hold":
                    message["die"] = die
                elif kind == "choose":
                    boxes = enabled_boxes(actor.sheet_html)
                    if not boxes:
                        raise ActionFailed("no enabled box after a roll")
                    message["box"] = rng.choice(boxes)
                message.update(turn=actor.turn, roll=actor.roll)
                question = await act(actor, other, kind, message, phase, deadline)
                if question:
                    # A zero while another box scores is asked at the box; the player says yes, which
                    # writes it at once (the question's own form: confirm_zero and write).
                    if high > 0:
                        await asyncio.sleep(rng.uniform(low, high))
                    await act(actor, other, kind, {**message, "confirm_zero": 1, "write": 1}, phase, deadline)
                    written = True
                said[actor.name] += 1
                if phase.spec.chat_every and said[actor.name] >= phase.spec.chat_every:
                    said[actor.name] = 0
                    await say(actor, phase, rng)
            except ActionFailed as exc:
                phase.failures.append(f"{actor.name} {kind}: {exc}")
                return
        phase.turns_done += 1


CHAT_REACTIONS = ("dice", "clap", "wow", "phew", "fire")  # chat.phrases.REACTIONS' keys
CHAT_PHRASES = ("nice", "wow", "yourmove")  # chat.phrases.MOMENTS["play"]


async def say(seat: Seat, phase: Phase, rng: random.Random) -> None:
    """A reaction or a quick phrase, as the drawer says it on the socket: not awaited, as the page does
    not wait for it before its next action. A refusal comes back as an error frame, counted as an error."""
    kind = rng.choice(("reaction", "phrase"))
    text = rng.choice(CHAT_REACTIONS if kind == "reaction" else CHAT_PHRASES)
    try:
        await seat.ws.send(json.dumps({"action": "say", "kind": kind, "text": text}, separators=(",", ":")))
    except Exception as exc:
        raise ActionFailed(f"chat line not sent: {exc!r}") from None
    phase.chat_lines += 1


async def act(actor: Seat, other: Seat, kind: str, message: dict, phase: Phase, deadline: float) -> bool:
    """Send one action as the page does; record the time until the other player's screen has a higher
    version, then wait, as the page does, for the answer and the own board of the version it made. An
    answer later than ACTION_TIMEOUT is an error but still a sample (percentiles stay honest under
    overload); none by the phase's end (or ACTION_TIMEOUT after sending, if later) aborts the game.
    True: the answer is a zero's question at the box (nothing changed, nobody else is told)."""
    seen = max(actor.version, other.version)
    theirs = other.above(seen)
    frame, answered = actor.send_action(message)
    try:
        sent = time.perf_counter()
        try:
            await actor.ws.send(frame)
        except Exception as exc:
            raise ActionFailed(f"send failed: {exc!r}") from None
        give_up = max(sent + ACTION_TIMEOUT, deadline)
        done, _pending = await asyncio.wait(
            {theirs, answered}, timeout=give_up - time.perf_counter(), return_when=asyncio.FIRST_COMPLETED
        )
        if answered in done and answered.exception() is None and answered.result()[1] != 200:
            _version, status, answer = answered.result()
            if QUESTION_RE.search(answer) and "confirm_zero" not in message:
                return True
            raise ActionFailed(f"refused: {status} {_alert_text(answer)}")
        if theirs not in done:
            done, _pending = await asyncio.wait({theirs}, timeout=max(0.0, give_up - time.perf_counter()))
        if theirs in done:
            if theirs.exception() is not None:
                raise theirs.exception()
            elapsed = (theirs.result() - sent) * 1000
            phase.samples.append(elapsed)
            phase.by_kind[kind].append(elapsed)
            if elapsed > ACTION_TIMEOUT * 1000:
                if phase.spec.run == "throughput":
                    phase.late += 1  # a saturated closed loop queues by design: counted, not an error
                else:
                    phase.failures.append(f"{other.name}: {kind} answered after {elapsed / 1000:.1f} s")
        else:
            raise ActionFailed(
                f"no new version on the other screen within {ACTION_TIMEOUT:g} s "
                f"nor by the phase's end ({kind})"
            )
        # The page takes its next action once its answer is in and it shows the version the action made.
        done, _pending = await asyncio.wait({answered}, timeout=ACTION_TIMEOUT)
        if answered not in done:
            raise ActionFailed(f"no answer within {ACTION_TIMEOUT:g} s of the other screen's board")
        if answered.exception() is not None:
            raise answered.exception()
        version, status, answer = answered.result()
        if status != 200:
            raise ActionFailed(f"refused: {status} {_alert_text(answer)}")
        mine = actor.above(version - 1)
        done, _pending = await asyncio.wait({mine}, timeout=ACTION_TIMEOUT)
        if mine not in done:
            mine.cancel()
            raise ActionFailed(f"own board not updated within {ACTION_TIMEOUT:g} s of the answer")
        if mine.exception() is not None:
            raise mine.exception()
        return False
    finally:
        actor.answers.pop(actor.actions, None)
        for fut in (theirs, answered):
            if not fut.done():
                fut.cancel()
            elif not fut.cancelled():
                fut.exception()  # retrieved: no "never retrieved" warnings


class Echo:
    """One echo socket on one daphne process."""

    def __init__(self, server: DaphneServer, session_key: str):
        self.server = server
        self.session_key = session_key
        self.ws = None
        self.seq = 0
        self.failures: list[str] = []  # the echo socket closed under us

    async def open(self) -> None:
        port = self.server.port
        self.ws = await open_socket(f"ws://{HOST}:{port}/ws/echo/", port, self.session_key)

    async def ping(self) -> float:
        """One round trip in ms (a late answer is waited for, up to 60 s)."""
        self.seq += 1
        payload = f"ping {self.seq}"
        start = time.perf_counter()
        await self.ws.send(payload)
        while True:
            answer = await asyncio.wait_for(self.ws.recv(), 60)
            if answer == payload:
                return (time.perf_counter() - start) * 1000

    async def safe_ping(self, into: list[float]) -> None:
        try:
            into.append(await self.ping())
        except Exception as exc:  # counted; a new socket carries on
            self.failures.append(f"echo socket: {exc!r}")
            with contextlib.suppress(Exception):
                await self.ws.close()
            with contextlib.suppress(Exception):
                await self.open()

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)


async def ping_until(echoes: list[Echo], stop: asyncio.Event, into: list[float], gap: float = 0.025) -> None:
    """Ping the echo sockets in turn, `gap` s apart, until `stop`."""
    index = 0
    while not stop.is_set():
        await echoes[index % len(echoes)].safe_ping(into)
        index += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), gap)


async def settle(seats: list[Seat], quiet: float = 0.5, limit: float = 120.0) -> None:
    """Wait until both screens of every game show the same version and no frame came for `quiet` s."""
    end = time.perf_counter() + limit
    while time.perf_counter() < end:
        now = time.perf_counter()
        same = all(seats[i].version == seats[i + 1].version for i in range(0, len(seats), 2))
        if same and all(now - s.last_frame >= quiet for s in seats):
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the game screens did not settle after connecting")


async def run_phase(
    spec: Spec, layer: str, servers: list[DaphneServer], games, echoes: list[Echo], meters: Meters, rng
) -> Phase:
    phase = Phase(spec, layer)
    used = servers[: spec.processes]
    limit = asyncio.Semaphore(8)
    seats: list[Seat] = []

    async def open_seat(game_id: int, who: str, player, server: DaphneServer) -> Seat:
        async with limit:
            url = f"ws://{HOST}:{server.port}/ws/games/{game_id}/"
            ws = await open_socket(url, server.port, player[2])
            return Seat(f"game {game_id} {who} ({server.name})", ws)

    connect_start = time.perf_counter()
    try:
        # Player A of game i on process 2i mod N, player B on 2i+1 mod N: with N = 2, every A on the
        # first process and every B on the second, so every push crosses processes.
        opened = await asyncio.gather(
            *(
                open_seat(gid, who, p, used[(2 * i + j) % len(used)])
                for i, (gid, a, b) in enumerate(games)
                for j, (who, p) in enumerate((("A", a), ("B", b)))
            ),
            return_exceptions=True,
        )
        # A socket that did not open is an error; its game is left out, its partner closed.
        for index in range(0, len(opened), 2):
            pair = opened[index : index + 2]
            if all(isinstance(s, Seat) for s in pair):
                seats += pair
                continue
            for who, s in zip("AB", pair, strict=True):
                if isinstance(s, Seat):
                    await s.close()
                else:
                    phase.failures.append(f"game {games[index // 2][0]} {who}: did not open: {s!r}")
        if not seats:
            raise RuntimeError(f"no game of {spec.run} K={spec.k} had both its sockets open")
        await settle(seats)
        phase.connect_seconds = time.perf_counter() - connect_start
        with contextlib.suppress(Exception):
            phase.compression = ", ".join(e.name for e in seats[0].ws.protocol.extensions) or "none"
        alerts_before = sum(s.alerts for s in seats)

        stop = asyncio.Event()
        phase_echoes = [e for e in echoes if e.server in used]
        failures_before = [len(e.failures) for e in phase_echoes]
        pinger = asyncio.create_task(ping_until(phase_echoes, stop, phase.echo))
        stages_before = await asyncio.to_thread(scrape_stages, used)
        before = meters.begin()
        start = time.perf_counter()
        deadline = start + spec.seconds
        await asyncio.gather(
            *(
                play_game(seats[i], seats[i + 1], phase, deadline, random.Random(rng.random()))
                for i in range(0, len(seats), 2)
            )
        )
        phase.seconds = time.perf_counter() - start
        phase.cpu = meters.end(before)
        phase.stages = stage_figures(stages_before, await asyncio.to_thread(scrape_stages, used))
        phase.load_average = os.getloadavg()[0]
        stop.set()
        await pinger
        for echo, count in zip(phase_echoes, failures_before, strict=True):
            phase.failures += echo.failures[count:]
        # Error frames not already counted as a failed action, and sockets that closed under us.
        refused = sum(1 for f in phase.failures if "refused:" in f)
        stray = sum(s.alerts for s in seats) - alerts_before - refused
        phase.failures += ["an error frame outside an action"] * max(0, stray)
        phase.failures += [
            f"{s.name}: socket closed"
            for s in seats
            if s.closed and not s.closing and not any(s.name in f for f in phase.failures)
        ]
    finally:
        await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)
    # Closing 2K sockets leaves the servers work (each closed seat is written and pushed): let them
    # finish it, so the next phase's handshakes do not queue behind it.
    phase.drain_seconds = await drain(used)
    return phase


async def drain(servers: list[DaphneServer], idle_cores: float = 0.05, limit: float = DRAIN_LIMIT) -> float:
    """Wait until every one of `servers` has used under `idle_cores` of CPU over half a second (at most
    `limit` s); returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        before = [s.cpu() for s in servers]
        await asyncio.sleep(0.5)
        after = [s.cpu() for s in servers]
        if all(not (a - b > idle_cores * 0.5) for a, b in zip(after, before, strict=True)):
            break
    return time.perf_counter() - start


# -- figures -------------------------------------------------------------------------------------------


def ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(b) else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def report(phase: Phase) -> str:
    f = phase.figures()
    cpu = f["cpu_ms_per_action"]
    kinds = "  ".join(
        f"{kind} {fmt(f['by_kind'][kind]['median_ms'])}/{fmt(f['by_kind'][kind]['p99_ms'])}"
        for kind in ACTION_KINDS
        if kind in f["by_kind"]
    )
    busy = " + ".join(f"{b:.2f}" for b in f["web_cores_busy"])
    per_process = " + ".join(fmt(v) for v in cpu["web_per_process"])
    think = phase.spec.think
    pacing = f"think {think[0]:g}-{think[1]:g} s" if think[1] > 0 else "closed loop"
    return (
        f"[{phase.layer}] {phase.spec.run} K={phase.spec.k} on {phase.spec.processes} daphne ({pacing}): "
        f"samples={f['samples']}  action -> other screen median={fmt(f['median_ms'])} ms "
        f"p99={fmt(f['p99_ms'])} ms  |  echo median={fmt(f['echo']['median_ms'], 2)} ms "
        f"p99={fmt(f['echo']['p99_ms'], 2)} ms (n={f['echo']['n']})  "
        f"median/echo={fmt(f['median_over_echo_median'])} "
        f"p99/echo-p99={fmt(f['p99_over_echo_p99'])}  |  errors={f['errors']}\n"
        f"    {fmt(f['actions_per_s'])} actions/s over {f['seconds']:.1f} s ({f['turns_done']} turns); "
        f"CPU ms/action: daphne {fmt(cpu['web'])} ({per_process}; cores busy {busy}), "
        f"run_timers {fmt(cpu['clock'], 2)}, PostgreSQL {fmt(cpu['postgres'])}, "
        f"Redis {fmt(cpu['redis'], 2)}, "
        f"bench client {fmt(cpu['bench_client'])}\n"
        f"    machine: {fmt(f['machine_cores_busy'], 2)} of {f['machine_cores']} cores busy, "
        f"{fmt(f['other_cores_busy'], 2)} of them outside this bench (other load), load average "
        f"{fmt(f['load_average'])}; one daphne process with a core to itself: "
        f"~{fmt(f['actions_per_s_per_core'], 0)} actions/s (from its CPU per action)"
        + (
            f"; {f['late_not_errors']} answers later than {ACTION_TIMEOUT:g} s"
            if f["late_not_errors"]
            else ""
        )
        + (f"; {f['chat_lines']} chat lines said" if f["chat_every"] else "")
        + relay_line(f)
        + loaded_relay_line(f)
        + stages_line(f)
        + f"\n    per action median/p99 ms: {kinds}; {2 * phase.spec.k} sockets open and settled in "
        f"{fmt(f['connect_seconds'])} s (extensions: {f['socket_extensions']}); servers idle again "
        f"{fmt(f['drain_seconds'])} s after closing them"
    )


def loaded_think(think: tuple[float, float], scale: float) -> tuple[float, float]:
    """The think time that sends `scale` times as often."""
    return (think[0] / scale, think[1] / scale)


def loaded_relay_line(f: dict) -> str:
    relay = f.get("loaded_relay")
    if not relay:
        return ""
    think = relay["think_s"]
    return (
        f"\n    relay at the game's CPU load (think {think[0]:.3g}-{think[1]:.3g} s: its web processes "
        f"{fmt(relay['web_cores_busy'], 2)} cores busy against the game's "
        f"{fmt(relay['game_web_cores_busy'], 2)}): "
        f"samples={relay['samples']} median={fmt(relay['median_ms'])} ms p99={fmt(relay['p99_ms'])} ms, "
        f"errors={relay['errors']}; the game's p99 against it: x{fmt(relay['game_p99_over_relay_p99'], 2)}"
    )


def relay_line(f: dict) -> str:
    relay = f.get("relay")
    if not relay:
        return ""
    return (
        f"\n    relay (the floor: a frame in, the board out on the other process, same K and pace): "
        f"samples={relay['samples']} median={fmt(relay['median_ms'])} ms p99={fmt(relay['p99_ms'])} ms, "
        f"{fmt(relay['web_cpu_ms_per_message'])} ms daphne CPU/message, errors={relay['errors']}; "
        f"the game against it: CPU x{fmt(relay['game_cpu_over_relay_cpu'], 2)}, "
        f"p99 x{fmt(relay['game_p99_over_relay_p99'], 2)}"
    )


def stages_line(f: dict) -> str:
    stages = f.get("push_stages")
    if not stages:
        return ""
    parts = "  ".join(
        f"{stage} {fmt(stages[stage]['median_ms'])}/{fmt(stages[stage]['p99_ms'])}"
        for stage in STAGES
        if stages.get(stage, {}).get("n")
    )
    return (
        f"\n    where a push's time went, median/p99 ms (the servers' penta_push_stage_seconds, every "
        f"screen's push, from buckets): {parts}"
    )


def failure_kinds(failures: list[str]) -> list[tuple[str, int, str]]:
    kinds: dict[str, list[str]] = defaultdict(list)
    for failure in failures:
        if "answered after" in failure:
            kind = f"answer later than {ACTION_TIMEOUT:.0f} s (still a sample)"
        elif "refused:" in failure:
            kind = "error frame"
        elif failure.startswith("neither player's roll button"):
            kind = "no enabled roll button at a game's start"
        elif failure.startswith("echo socket"):
            kind = "echo socket closed"
        elif "did not open" in failure:
            kind = "socket did not open"
        elif "closed" in failure:
            kind = "socket closed"
        elif "nor by the phase's end" in failure:
            kind = f"no answer within {ACTION_TIMEOUT:g} s (nor by the phase's end)"
        elif "own board not updated" in failure:
            kind = f"own board not updated within {ACTION_TIMEOUT:g} s of the other's"
        elif failure.startswith("server"):
            kind = "server process"
        else:
            kind = "other"
        kinds[kind].append(failure)
    return [(kind, len(items), items[0]) for kind, items in kinds.items()]


def finite(value):
    """`value` with every NaN as None (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def table(results: list[dict]) -> str:
    """A Markdown table of every phase, for docs/performance.md."""
    lines = [
        "| layer | run | K | daphne | samples | median / p99 ms | echo median / p99 ms | actions/s "
        "| CPU ms/action: daphne + clock (PostgreSQL, Redis) | relay median / p99 ms | relay daphne CPU "
        "ms/message | game/relay: CPU, p99 | relay at the game's CPU: p99 ms, game/it | other load, cores "
        "| errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in results:
        cpu = f["cpu_ms_per_action"]
        relay = f.get("relay") or {}
        loaded = f.get("loaded_relay") or {}
        extra = ", ".join(
            f"{name} {fmt(cpu[key])}"
            for name, key in (("PG", "postgres"), ("Redis", "redis"))
            if not math.isnan(cpu[key])
        )
        lines.append(
            f"| {f['layer']} | {f['run']} | {f['k']} | {f['daphne_processes']} | {f['samples']} "
            f"| {fmt(f['median_ms'])} / {fmt(f['p99_ms'])} "
            f"| {fmt(f['echo']['median_ms'], 2)} / {fmt(f['echo']['p99_ms'], 2)} "
            f"| {fmt(f['actions_per_s'], 0)} | {fmt(cpu['web_and_clock'])}"
            f"{f' ({extra})' if extra else ''} "
            f"| {fmt(relay.get('median_ms'))} / {fmt(relay.get('p99_ms'))} "
            f"| {fmt(relay.get('web_cpu_ms_per_message'))} "
            f"| {fmt(relay.get('game_cpu_over_relay_cpu'), 2)}, "
            f"{fmt(relay.get('game_p99_over_relay_p99'), 2)} "
            f"| {fmt(loaded.get('p99_ms'))}, {fmt(loaded.get('game_p99_over_relay_p99'), 2)} "
            f"| {fmt(f['other_cores_busy'])} | {f['errors']} |"
        )
    return "\n".join(lines)


def verdicts(results: list[dict], layers: list[str], paced_run: str) -> list[dict]:
    """The aims (issue 42) for one run, the path the page takes: web CPU per action at most
    AIM_CPU_OVER_RELAY x the relay's per message at the same K in the same run; the paced p99 at each K of
    AIM_KS at most AIM_P99_MS with no failures (the relay's p99 beside it); a process with a core to
    itself serving AIM_ACTIONS_PER_S (from its CPU per action, and in the closed loop). Each verdict has
    a `key` and a `value`, for the median over the runs."""
    out = []
    for layer in layers:
        phases = [f for f in results if f["layer"] == layer and f["run"] == paced_run]
        for f in phases:
            relay = f.get("relay") or {}
            cpu_ratio = relay.get("game_cpu_over_relay_cpu", float("nan"))
            out.append(
                {
                    "layer": layer,
                    "key": f"cpu K={f['k']}",
                    "value": cpu_ratio,
                    "aim": f"K={f['k']}: web CPU per action <= {AIM_CPU_OVER_RELAY:g} x the relay's "
                    "per message",
                    "figure": f"{fmt(f['cpu_ms_per_action']['web'])} ms against "
                    f"{fmt(relay.get('web_cpu_ms_per_message'))} ms: x{fmt(cpu_ratio, 2)}",
                    "met": not math.isnan(cpu_ratio) and cpu_ratio <= AIM_CPU_OVER_RELAY,
                }
            )
            if f["k"] in AIM_KS:
                out.append(
                    {
                        "layer": layer,
                        "key": f"p99 K={f['k']}",
                        "value": f["p99_ms"] if not f["errors"] else float("inf"),
                        "aim": f"K={f['k']}: {paced_run} p99 <= {AIM_P99_MS:g} ms, no failures",
                        "figure": f"p99 {fmt(f['p99_ms'])} ms (median {fmt(f['median_ms'])}; the relay's "
                        f"{fmt(relay.get('p99_ms'))} / {fmt(relay.get('median_ms'))} ms), "
                        f"errors {f['errors']}",
                        "met": f["p99_ms"] <= AIM_P99_MS and f["errors"] == 0,
                    }
                )
        if phases:
            last = max(phases, key=lambda f: f["k"])
            per_core = last["actions_per_s_per_core"]
            out.append(
                {
                    "layer": layer,
                    "key": "per core",
                    "value": per_core,
                    "aim": f">= {AIM_ACTIONS_PER_S:.0f} actions/s from a process with a core to itself "
                    f"(from its CPU per action at K={last['k']})",
                    "figure": f"~{fmt(per_core, 0)} actions/s",
                    "met": not math.isnan(per_core) and per_core >= AIM_ACTIONS_PER_S,
                }
            )
        for f in (f for f in results if f["layer"] == layer and f["run"] == "throughput"):
            out.append(
                {
                    "layer": layer,
                    "key": "throughput",
                    "value": f["actions_per_s"] if not f["errors"] else 0.0,
                    "aim": f">= {AIM_ACTIONS_PER_S:.0f} actions/s on one daphne process, closed loop",
                    "figure": f"{fmt(f['actions_per_s'])} actions/s at K={f['k']}, "
                    f"{fmt(f['cpu_ms_per_action']['web'])} ms daphne CPU/action "
                    f"(+{fmt(f['cpu_ms_per_action']['clock'], 2)} run_timers; "
                    f"~{fmt(f['actions_per_s_per_core'], 0)} actions/s with a whole core), "
                    f"errors {f['errors']}",
                    "met": f["actions_per_s"] >= AIM_ACTIONS_PER_S and f["errors"] == 0,
                }
            )
    return out


def over_runs(by_run: list[list[dict]]) -> list[dict]:
    """Each aim's value in every run and their median: a ratio or figure is the median of the runs."""
    keys: dict[tuple, dict] = {}
    for verdicts_of_run in by_run:
        for v in verdicts_of_run:
            entry = keys.setdefault(
                (v["layer"], v["key"]), {"layer": v["layer"], "aim": v["aim"], "values": []}
            )
            entry["values"].append(v["value"])
    out = []
    for (_layer, key), entry in keys.items():
        values = [x for x in entry["values"] if not math.isnan(x)]
        middle = statistics.median(values) if values else float("nan")
        if key.startswith("cpu"):
            met = middle <= AIM_CPU_OVER_RELAY
        elif key.startswith("p99"):
            met = middle <= AIM_P99_MS
        else:
            met = middle >= AIM_ACTIONS_PER_S
        out.append({**entry, "key": key, "median": middle, "met": bool(values) and met})
    return out


def chat_comparison(results: list[dict], paced_run: str) -> str:
    """The actions with chat at the table against the same K without, each pair from the same run and
    layer (played one after the other); the ratios' median over the runs."""
    lines = ["with chat at the table, against the phase without it just before (ratios: with / without):"]
    ratios: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for with_chat in (f for f in results if f["run"] == f"{paced_run}+chat"):
        plain = next(
            (
                f
                for f in results
                if f["run"] == paced_run
                and f["k"] == with_chat["k"]
                and f["layer"] == with_chat["layer"]
                and f["round"] == with_chat["round"]
            ),
            None,
        )
        if plain is None:
            continue
        figures = {
            "median": (plain["median_ms"], with_chat["median_ms"]),
            "p99": (plain["p99_ms"], with_chat["p99_ms"]),
            "web CPU/action": (plain["cpu_ms_per_action"]["web"], with_chat["cpu_ms_per_action"]["web"]),
        }
        key = (with_chat["layer"], with_chat["k"])
        parts = []
        for name, (without, with_) in figures.items():
            ratios[key][name].append(ratio(with_, without))
            parts.append(f"{name} {fmt(without, 2)} -> {fmt(with_, 2)} (x{fmt(ratio(with_, without), 2)})")
        lines.append(
            f"  run {with_chat['round']} [{key[0]}] K={key[1]}: {'; '.join(parts)}; "
            f"{with_chat['chat_lines']} lines said, errors {plain['errors']} -> {with_chat['errors']}"
        )
    for (layer, k), by_name in sorted(ratios.items()):
        medians = ", ".join(f"{name} x{fmt(statistics.median(v), 2)}" for name, v in by_name.items() if v)
        lines.append(f"  [{layer}] K={k}, the median of {len(by_name['p99'])} run(s): {medians}")
    return "\n".join(lines)


def slow_baselines(results: list[dict]) -> list[str]:
    """Runs whose own relay was unusually slow (its CPU per message or p99 over 1.5 x the median of the
    runs at that K): said, not hidden."""
    notes = []
    for k in sorted({f["k"] for f in results if f.get("relay")}):
        phases = [f for f in results if f["k"] == k and f.get("relay")]
        for figure, label in (("web_cpu_ms_per_message", "CPU per message"), ("p99_ms", "p99")):
            values = [f["relay"][figure] for f in phases if not math.isnan(f["relay"][figure])]
            if len(values) < 2:
                continue
            middle = statistics.median(values)
            for f in phases:
                if f["relay"][figure] > 1.5 * middle:
                    notes.append(
                        f"run {f['round']} K={k}: the relay was unusually slow ({label} "
                        f"{fmt(f['relay'][figure], 2)} against a median of {fmt(middle, 2)} over the runs)"
                    )
    return notes


# -- one layer -----------------------------------------------------------------------------------------


async def run_layer(
    layer: str,
    servers: list[DaphneServer],
    clock: ClockProcess,
    plan,
    args,
    db: Database,
    session_key: str,
    phases: list[Phase],
) -> dict:
    """The phases of one channel layer, appended to `phases` as they end; returns the idle figures."""
    rng = random.Random(f"{args.seed}/{layer}")
    meters = Meters(servers, clock, args.redis_url, PostgresCpu(db.url))
    echoes = [Echo(server, session_key) for server in servers]
    for echo in echoes:
        await echo.open()
    try:
        quiet: list[float] = []
        for i in range(20 * len(echoes)):  # warm-up
            await echoes[i % len(echoes)].ping()
        for i in range(200):
            quiet.append(await echoes[i % len(echoes)].ping())
        # What the processes cost with nothing to do (the layer's own loops, the clock's sweeps).
        before = meters.snapshot()
        await asyncio.sleep(IDLE_SECONDS)
        after = meters.snapshot()
        wall = after["wall"] - before["wall"]
        idle = {
            "echo_median_ms": median(quiet),
            "echo_p99_ms": pct(quiet, 99),
            "echo_n": len(quiet),
            "daphne_cores_busy": [(a - b) / wall for a, b in zip(after["web"], before["web"], strict=True)],
            "run_timers_cores_busy": (after["clock"] - before["clock"]) / wall,
        }
        print(
            f"[{layer}] idle servers: echo median={idle['echo_median_ms']:.2f} ms "
            f"p99={idle['echo_p99_ms']:.2f} ms (n={len(quiet)}); CPU over {wall:.0f} s with nothing to do: "
            f"daphne {' + '.join(f'{c:.3f}' for c in idle['daphne_cores_busy'])} cores, "
            f"run_timers {idle['run_timers_cores_busy']:.3f} cores",
            flush=True,
        )
        for spec, games in plan:
            with_relay = args.relay and spec.run != "throughput" and not spec.chat_every

            async def relay_run(part: str, spec=spec, think=spec.think) -> RelayFigures:
                figures = await run_relay(
                    k=spec.k,
                    ports=[s.port for s in servers[: spec.processes]],
                    open_socket=lambda url, port: open_socket(url, port, session_key),
                    think=think,
                    # Half the phase's length before it and half after: the machine's speed drifts
                    # over minutes (these machines are shared), and the game sits between the halves.
                    seconds=spec.seconds / 2,
                    begin=meters.begin,
                    end=meters.end,
                    tag=f"{args.tag}-{layer}-{spec.k}-{part}",
                    rng=rng,
                )
                await drain(servers[: spec.processes])
                return figures

            relay = await relay_run("before") if with_relay else None
            phase = await run_phase(spec, layer, servers, games, echoes, meters, rng)
            if relay is not None:
                await drain(servers[: spec.processes])
                relay = merged(relay, await relay_run("after"))
            phase.relay = relay
            scale = phase.relay_scale()
            if relay is not None and args.loaded_relay and scale > 1:
                await drain(servers[: spec.processes])
                phase.loaded_relay = await relay_run("loaded", think=loaded_think(spec.think, scale))
            dead = [s.name for s in [*servers, clock] if not s.alive()]
            if dead:
                phase.failures.append(f"server process(es) died: {', '.join(dead)}")
            print(report(phase), flush=True)
            for kind, count, example in failure_kinds(phase.failures):
                print(f"    errors: {count} x {kind} (e.g. {example})", flush=True)
            phases.append(phase)
            if dead:
                break
        return idle
    finally:
        for echo in echoes:
            await echo.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    db_group = parser.add_argument_group("where the data lives (default: a SQLite file, not production)")
    db_group.add_argument(
        "--pg-server",
        metavar="URL",
        default=os.environ.get("PENTA_BENCH_PG_SERVER"),
        help="a PostgreSQL server (postgres://user:pass@host:port[/maintenance_db]) on which the bench "
        "CREATEs a temporary database and DROPs it at the end (env PENTA_BENCH_PG_SERVER); the role "
        "needs CREATEDB",
    )
    db_group.add_argument("--database-url", help="an existing EMPTY PostgreSQL database (left in place)")
    db_group.add_argument(
        "--db-delay-ms",
        type=float,
        default=0.0,
        help="put PostgreSQL a network away from the servers and the clock: a proxy (bench/db_latency.py) "
        "adds this delay each way (default 0: loopback)",
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", ""),
        help="Redis for the channel layer (default: env REDIS_URL); needed by more than one process",
    )
    parser.add_argument("--layer", default="pubsub", help="channel layers to compare: pubsub, core or both")
    parser.add_argument("--mode", choices=("paced", "closed"), default="paced", help="the K phases' pacing")
    parser.add_argument(
        "--k", default="50,100,200", help="games played at once, per phase (default 50,100,200)"
    )
    parser.add_argument("--processes", type=int, default=2, help="daphne processes (default 2)")
    parser.add_argument(
        "--server-module",
        default=default_server_module(),
        help="what the web processes run, as python -m MODULE (default: %(default)s, the production entry "
        "point; `daphne` for plain daphne, whose sockets are not compressed)",
    )
    parser.add_argument(
        "--think", default="0.8,1.2", help="paced think time, min,max seconds (default 0.8,1.2)"
    )
    parser.add_argument("--seconds", type=float, default=40.0, help="length of each K phase (default 40)")
    parser.add_argument(
        "--throughput-k", type=int, default=50, help="games of the one-process throughput phase (0: none)"
    )
    parser.add_argument("--throughput-seconds", type=float, default=20.0, help="its length (default 20)")
    parser.add_argument("--turns", type=int, default=MAX_TURNS, help="at most this many turns per game")
    parser.add_argument("--seed", type=int, default=1, help="think times, holds and box choices")
    parser.add_argument(
        "--no-relay",
        dest="relay",
        action="store_false",
        help="leave out the relay baseline (by default half of it runs before each paced phase, half after)",
    )
    parser.add_argument(
        "--no-loaded-relay",
        dest="loaded_relay",
        action="store_false",
        help="leave out the relay at the game's CPU load (by default it runs after each paced phase, for "
        "half its length, sending as much faster as keeps its web processes as busy as the game's)",
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="measure this many times; each aim is the median (default 3)"
    )
    parser.add_argument(
        "--chat-every",
        type=int,
        default=0,
        metavar="N",
        help="also play each paced K phase with chat: a reaction or phrase after every N actions of a "
        "player (0: no chat; 5 is about one line per player per turn, within chat's rate limit)",
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--logs", type=Path, help="keep the server processes' logs in this directory")
    args = parser.parse_args()

    ks = [int(x) for x in args.k.split(",") if x.strip()]
    layers = [x.strip() for x in args.layer.split(",") if x.strip()]
    try:
        think = tuple(float(x) for x in args.think.split(","))
        assert len(think) == 2 and 0 <= think[0] <= think[1]
    except (ValueError, AssertionError):
        parser.error("--think takes min,max seconds")
    if not ks or min(ks) < 1 or max(ks) > 1000 or not 1 <= args.turns <= MAX_TURNS:
        parser.error(f"K in 1..1000, --turns in 1..{MAX_TURNS}")
    if not 0 < args.seconds <= 600 or not 0 < args.throughput_seconds <= 600 or args.throughput_k < 0:
        parser.error("--seconds and --throughput-seconds in (0, 600], --throughput-k >= 0")
    if not layers or any(layer not in LAYERS for layer in layers):
        parser.error(f"--layer: a comma-separated choice of {', '.join(LAYERS)}")
    if args.pg_server and args.database_url:
        parser.error("give --pg-server or --database-url, not both")
    if args.processes < 1 or args.runs < 1:
        parser.error("--processes and --runs must be at least 1")
    if args.chat_every < 0:
        parser.error("--chat-every must be 0 or more")
    if args.db_delay_ms and not (args.pg_server or args.database_url):
        parser.error("--db-delay-ms needs PostgreSQL: --pg-server or --database-url")
    if not 0 <= args.db_delay_ms <= 50:
        parser.error("--db-delay-ms in [0, 50]")
    if not args.redis_url and (args.processes > 1 or layers != ["pubsub"]):
        parser.error("more than one server process (or a channel layer to choose) needs Redis: --redis-url")
    paced_run = args.mode if args.mode == "closed" else "paced"
    if args.mode == "closed":
        think = (0.0, 0.0)

    # Sockets: 2K per phase here, as many on the servers (and with the core layer one Redis connection each).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))

    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="penta-live-bench-"))
    db = Database(args, workdir)
    tag = secrets.token_hex(4)
    args.tag = tag
    secret_key = os.environ.get("SECRET_KEY") or "bench-" + secrets.token_urlsafe(32)
    running: list = []
    results: list[dict] = []
    idle_by_layer: dict[str, dict] = {}
    server_errors: list[str] = []
    failed = False
    notes: list[str] = []
    proxy: subprocess.Popen | None = None
    try:
        db.create()
        base_env = server_env(db, args.redis_url, layers[0], secret_key, tag)
        django_setup(base_env)
        if args.database_url:
            check_empty_database()
        migrate(base_env)
        id_base = spread_ids()
        from django.db import connections

        players = make_players(2 * max([*ks, args.throughput_k]))
        connections.close_all()
        print(
            f"live games bench: db={db.kind} ({db.name}{', temporary' if db.created else ''}), "
            f"redis={args.redis_url or 'none (in-memory layer)'}, layers={','.join(layers)}, "
            f"{args.processes} x python -m {args.server_module} (PENTA_CLOCK_IN_WEB=false) + 1 run_timers; "
            f"{paced_run} K={args.k} "
            f"for {args.seconds:g} s each"
            + (f" (think {think[0]:g}-{think[1]:g} s)" if paced_run == "paced" else "")
            + (
                f"; throughput K={args.throughput_k} on 1 process for {args.throughput_seconds:g} s"
                if args.throughput_k
                else ""
            )
            + f"; ids from {id_base}; setup {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        if db.kind == "sqlite":
            print("note: SQLite, not the production set-up: give --pg-server for PostgreSQL", flush=True)
        if args.db_delay_ms:
            proxy, db.servers_url = start_db_proxy(db.url, args.db_delay_ms)
            direct, proxied = round_trip_ms(db.url), round_trip_ms(db.servers_url)
            print(
                f"PostgreSQL behind a proxy adding {args.db_delay_ms:g} ms each way (the servers and the "
                f"clock): a statement's round trip {proxied:.2f} ms, against {direct:.2f} ms direct",
                flush=True,
            )
            notes.append(f"PostgreSQL round trip {proxied:.2f} ms through the proxy ({direct:.2f} ms direct)")

        for round_no in range(1, args.runs + 1):
            # A shared machine: the load before each run, to measure when it is low (the phases print
            # the load during them).
            load = os.getloadavg()[0]
            print(f"run {round_no} of {args.runs}: 1-minute load average before it {load:.2f}", flush=True)
            for layer in layers:
                layer_start = time.perf_counter()
                specs = []
                for k in ks:
                    specs.append(Spec(paced_run, k, args.processes, think, args.seconds, args.turns))
                    if args.chat_every:  # right after it, so that both meet the machine as it is then
                        specs.append(
                            Spec(
                                f"{paced_run}+chat",
                                k,
                                args.processes,
                                think,
                                args.seconds,
                                args.turns,
                                chat_every=args.chat_every,
                            )
                        )
                if args.throughput_k:
                    specs.append(
                        Spec(
                            "throughput",
                            args.throughput_k,
                            1,
                            (0.0, 0.0),
                            args.throughput_seconds,
                            args.turns,
                        )
                    )
                plan = [(spec, make_games(players, spec.k)) for spec in specs]
                connections.close_all()
                env = server_env(db, args.redis_url, layer, secret_key, tag)
                servers = [
                    DaphneServer(
                        workdir, env, name=f"daphne{i + 1}-{layer}-{round_no}", module=args.server_module
                    )
                    for i in range(args.processes)
                ]
                clock = ClockProcess(workdir, env, name=f"run_timers-{layer}-{round_no}")
                running = [*servers, clock]
                phases: list[Phase] = []
                try:
                    for server in servers:
                        server.start()
                    clock.start()
                    if args.relay:
                        size = make_relay_board(players, servers[0], relay_board_path(db))
                        connections.close_all()
                        print(f"[{layer}] the relay's board: a real game's #game, {size} bytes", flush=True)
                    print(
                        f"[{layer}] {len(plan)} phase(s) of games made and {args.processes} daphne + "
                        f"run_timers started in {time.perf_counter() - layer_start:.1f} s",
                        flush=True,
                    )
                    idle_by_layer[layer] = asyncio.run(
                        run_layer(layer, servers, clock, plan, args, db, players[0][2], phases)
                    )
                except Exception as exc:  # this layer is lost (a server did not start, ...): on to the next
                    failed = True
                    notes.append(f"[{layer}] failed: {exc!r}"[:300])
                    print(f"[{layer}] failed: {exc!r}", file=sys.stderr)
                    for process in running:
                        if process.process is not None:
                            print(f"--- {process.name} log tail ---\n{process.log_tail()}", file=sys.stderr)
                finally:
                    for process in running:
                        process.stop()
                        error = process.log_errors()
                        if error:
                            server_errors.append(error)
                        if args.logs and process.log_path.exists():
                            args.logs.mkdir(parents=True, exist_ok=True)
                            shutil.copy(process.log_path, args.logs / process.log_path.name)
                    running = []
                results += [p.figures() | {"round": round_no, "load_before": load} for p in phases]
                if len(phases) < len(plan):
                    failed = True
                    notes.append(f"[{layer}] {len(phases)} of {len(plan)} phases measured")
    except Exception as exc:
        failed = True
        print(f"bench failed: {exc!r}", file=sys.stderr)
        for process in running:
            print(f"--- {process.name} log tail ---\n{process.log_tail()}", file=sys.stderr)
    finally:
        for process in running:
            process.stop()
        if proxy is not None:
            proxy.kill()
            proxy.wait()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        dropped = db.drop()
        if dropped:
            notes.append(dropped)
        shutil.rmtree(workdir, ignore_errors=True)

    errors = sum(f["errors"] for f in results)
    by_run = [
        verdicts([f for f in results if f["round"] == r], layers, paced_run) for r in range(1, args.runs + 1)
    ]
    summary = over_runs(by_run)
    print()
    for number, run_verdicts in enumerate(by_run, 1):
        print(f"run {number} against the aims:")
        for v in run_verdicts:
            print(f"  [{v['layer']}] {v['aim']}: {v['figure']}: {'met' if v['met'] else 'MISSED'}")
    print(f"the aims, the median of {args.runs} run(s) (every run's figure in order):")
    for v in summary:
        values = ", ".join(fmt(x, 2) for x in v["values"])
        verdict = "met" if v["met"] else "MISSED"
        print(f"  [{v['layer']}] {v['aim']}: {fmt(v['median'], 2)} ({values}): {verdict}")
    for line in slow_baselines(results):
        print(f"  note: {line}")
    if args.chat_every:
        print(chat_comparison(results, paced_run))
    print(
        f"  errors total={errors}; samples total={sum(f['samples'] for f in results)}; "
        f"runtime {time.perf_counter() - started:.0f} s"
    )
    for line in [*server_errors, *notes]:
        print(f"  {line}")
    if args.database_url:
        print("  note: the database of --database-url keeps the bench's data; drop it when done")
    if results:
        print()
        print(table(results))
    status = 1 if failed or errors else 0
    if args.json:
        args.json.write_text(
            json.dumps(
                finite(
                    {
                        "config": {
                            "database": db.kind,
                            "redis": bool(args.redis_url),
                            "layers": layers,
                            "daphne_processes": args.processes,
                            "server_module": args.server_module,
                            "mode": paced_run,
                            "k": ks,
                            "think_s": list(think),
                            "seconds": args.seconds,
                            "throughput_k": args.throughput_k,
                            "throughput_seconds": args.throughput_seconds,
                            "seed": args.seed,
                            "chat_every": args.chat_every,
                            "aims": {
                                "cpu_over_relay": AIM_CPU_OVER_RELAY,
                                "p99_ms": AIM_P99_MS,
                                "at_k": list(AIM_KS),
                                "actions_per_s_one_process": AIM_ACTIONS_PER_S,
                            },
                        },
                        "idle": idle_by_layer,
                        "phases": results,
                        "runs": by_run,
                        "summary": summary,
                        "server_errors": server_errors,
                        "notes": notes,
                        "exit_status": status,
                    }
                ),
                indent=2,
            )
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
