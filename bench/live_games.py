"""Benchmark: live two-player games over WebSockets, K at a time, against a bare Channels echo.

Starts its own daphne server over a temporary database (a SQLite file in a temporary directory, or the
empty database named by --database-url), creates 2K users, K started two-player games and one logged-in
session per user with the ORM, then for each K opens both players' sockets and plays all K games at
once: the player whose turn it is sends roll, hold one die, choose an enabled box, confirm. One sample
is the time from sending an action to the OTHER player's socket receiving the board with the new
data-version. A bare echo consumer on the same server (ws/echo/) is the baseline: it is pinged all
through each game phase (interleaved, so machine noise and server load hit both alike), and once on
the idle server before the first phase ("quiet").

    .venv/bin/python bench/live_games.py [--k 10,50,200] [--turns 4] [--seconds 60]
    .venv/bin/python bench/live_games.py --database-url postgres://u:p@127.0.0.1:5432/empty_db

REDIS_URL from the environment (if set) selects the channels-redis layer, as in production. The
exit status is 1 if any action failed (an error frame, no answer within 5 s, a closed socket) or
the server did not start; the latency aim (p99 under 50 ms at the largest K) is printed, not enforced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from daphne_server import HOST, ROOT, DaphneServer

AIM_P99_MS = 50.0
ACTION_TIMEOUT = 5.0  # seconds: a later answer counts as an error
ACTIONS_PER_TURN = ("roll", "hold", "choose", "confirm")

VERSION_RE = re.compile(r'<div id="game-status"[^>]*\bdata-version="(\d+)"')
TURN_RE = re.compile(r'<input type="hidden" name="turn" value="(\d+)">')
ROLL_RE = re.compile(r'<input type="hidden" name="roll" value="(\d+)">')
BOX_BUTTON_RE = re.compile(r'<button\b[^>]*\bdata-box="([A-Z_]+)"[^>]*>')
ROLL_BUTTON_RE = re.compile(r'<button\b[^>]*\bdata-action="roll"[^>]*>')


# -- the server --------------------------------------------------------------------------------------


def server_env(workdir: Path, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    else:
        env["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    env.update(
        DJANGO_SETTINGS_MODULE="dicegame.settings",
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        ALLOWED_HOSTS=HOST,
        PENTA_BENCH_ECHO="true",
        # The games are made before anybody connects, so each first turn gets the absent player's
        # grace deadline (connecting later does not clear it): keep it from firing during the run.
        PENTA_ABSENT_GRACE_SECONDS="3600",
        # The bench process signs the sessions the server reads: both must use the same key.
        SECRET_KEY=env.get("SECRET_KEY") or "bench-" + secrets.token_urlsafe(32),
    )
    return env


# -- the data, made with the ORM in this process -------------------------------------------------------


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    if "DATABASE_URL" not in env:
        os.environ.pop("DATABASE_URL", None)
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
        [sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True
    )


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
    backend = settings.AUTHENTICATION_BACKENDS[0]
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
    from dicegame.live.rooms import room_create, room_join_by_link, room_start
    from dicegame.services import Actor

    games = []
    for i in range(k):
        a, b = players[2 * i], players[2 * i + 1]
        actor_a = Actor(user_id=a[0], name=a[1])
        game = room_create(actor=actor_a, seats=2, turn_seconds=0)
        room_join_by_link(token=game.invite_token, actor=Actor(user_id=b[0], name=b[1]))
        room_start(game_id=game.pk, actor=actor_a)
        games.append((game.pk, a, b))
    return games


# -- the client ----------------------------------------------------------------------------------------


class ActionFailed(Exception):
    pass


class Seat:
    """One player's socket. A reader task keeps the latest board and wakes whoever waits for a version
    above a given one with the time the frame arrived."""

    def __init__(self, name: str, ws):
        self.name = name
        self.ws = ws
        self.version = -1
        self.html = ""
        # A push after a small change (a hold, a chosen box) redraws only some regions, as a page's
        # DOM keeps the rest: keep the last scoresheet seen, like the page does.
        self.sheet_html = ""
        self.waiters: list[tuple[int, asyncio.Future]] = []
        self.error_future: asyncio.Future | None = None
        self.alerts = 0  # error frames seen
        self.closed = False
        self.closing = False  # closed by us
        self.last_frame = time.perf_counter()
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                now = time.perf_counter()
                self.last_frame = now
                if isinstance(frame, bytes):
                    frame = frame.decode(errors="replace")
                match = VERSION_RE.search(frame)
                if match:
                    version = int(match.group(1))
                    if version > self.version:
                        self.version = version
                        self.html = frame
                        if 'id="scoresheet"' in frame:
                            self.sheet_html = frame
                        keep = []
                        for above, fut in self.waiters:
                            if version > above:
                                if not fut.done():
                                    fut.set_result(now)
                            else:
                                keep.append((above, fut))
                        self.waiters = keep
                elif 'role="alert"' in frame:
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


def board_fields(html: str) -> tuple[int, int]:
    turn, roll = TURN_RE.search(html), ROLL_RE.search(html)
    if not turn or not roll:
        raise ActionFailed("no turn/roll fields in the board")
    return int(turn.group(1)), int(roll.group(1))


def enabled_boxes(html: str) -> list[str]:
    return [m.group(1) for m in BOX_BUTTON_RE.finditer(html) if not re.search(r"\sdisabled\b", m.group(0))]


def roll_enabled(html: str) -> bool:
    match = ROLL_BUTTON_RE.search(html)
    return bool(match) and not re.search(r"\sdisabled\b", match.group(0))


class Phase:
    """The figures of one K."""

    def __init__(self, k: int, turns: int):
        self.k = k
        self.turns = turns
        self.server_cpu = float("nan")  # seconds of daphne CPU time during the games
        self.samples: list[float] = []  # ms
        self.by_kind: dict[str, list[float]] = defaultdict(list)
        self.echo: list[float] = []  # ms, interleaved with the games
        self.failures: list[str] = []
        self.turns_done = 0
        self.connect_seconds = float("nan")  # opening the 2K sockets until every screen settled
        self.seconds = 0.0


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


async def play_game(a: Seat, b: Seat, phase: Phase, turns: int, deadline: float, rng: random.Random) -> None:
    seats = (a, b)
    for turn_index in range(turns):
        actor, other = seats[turn_index % 2], seats[1 - turn_index % 2]
        if not roll_enabled(actor.html):
            phase.failures.append(f"{actor.name}: the roll button is not enabled at the start of its turn")
            return
        for kind in ACTIONS_PER_TURN:
            if time.perf_counter() >= deadline:
                return
            try:
                turn, roll = board_fields(actor.html)
                message = {"action": kind, "turn": turn, "roll": roll}
                if kind == "hold":
                    message["die"] = rng.randint(1, 5)
                elif kind == "choose":
                    boxes = enabled_boxes(actor.sheet_html)
                    if not boxes:
                        raise ActionFailed("no enabled box after a roll")
                    message["box"] = rng.choice(boxes)
                await act(actor, other, kind, message, phase, deadline)
            except ActionFailed as exc:
                phase.failures.append(f"{actor.name} {kind}: {exc}")
                return
        phase.turns_done += 1


async def act(actor: Seat, other: Seat, kind: str, message: dict, phase: Phase, deadline: float) -> None:
    """Send one action; record the time until the other player's screen has the new version. An answer
    later than ACTION_TIMEOUT is an error but still a sample (percentiles stay honest under overload);
    none by the phase's end (or ACTION_TIMEOUT after sending, if later) aborts the game."""
    seen = max(actor.version, other.version)
    theirs, mine = other.above(seen), actor.above(seen)
    loop = asyncio.get_running_loop()
    actor.error_future = refused = loop.create_future()
    try:
        sent = time.perf_counter()
        try:
            await actor.ws.send(json.dumps(message))
        except Exception as exc:
            raise ActionFailed(f"send failed: {exc!r}") from None
        give_up = max(sent + ACTION_TIMEOUT, deadline)
        done, _pending = await asyncio.wait(
            {theirs, refused}, timeout=give_up - time.perf_counter(), return_when=asyncio.FIRST_COMPLETED
        )
        if theirs in done:
            if theirs.exception() is not None:
                raise theirs.exception()
            elapsed = (theirs.result() - sent) * 1000
            phase.samples.append(elapsed)
            phase.by_kind[kind].append(elapsed)
            if elapsed > ACTION_TIMEOUT * 1000:
                phase.failures.append(f"{other.name}: {kind} answered after {elapsed / 1000:.1f} s")
        elif refused in done:
            raise ActionFailed(refused.result())
        else:
            raise ActionFailed(f"no new version on the other screen by the end of the phase ({kind})")
        # The actor's own new board carries the fields of its next action.
        done, _pending = await asyncio.wait(
            {mine, refused},
            timeout=max(0.1, give_up - time.perf_counter()),
            return_when=asyncio.FIRST_COMPLETED,
        )
        if mine not in done:
            raise ActionFailed(refused.result() if refused in done else "own board not updated")
        if mine.exception() is not None:
            raise mine.exception()
    finally:
        actor.error_future = None
        for fut in (theirs, mine, refused):
            if not fut.done():
                fut.cancel()
            elif not fut.cancelled():
                fut.exception()  # retrieved: no "never retrieved" warnings


class Echo:
    def __init__(self, ws, reopen):
        self.ws = ws
        self.reopen = reopen  # coroutine function: a new echo socket
        self.seq = 0
        self.late = 0  # round trips over ACTION_TIMEOUT
        self.failures: list[str] = []  # the echo socket closed under us

    async def ping(self) -> float:
        """One round trip in ms. A late answer is waited for (up to 60 s) and counted in `late`."""
        self.seq += 1
        payload = f"ping {self.seq}"
        start = time.perf_counter()
        await self.ws.send(payload)
        while True:
            answer = await asyncio.wait_for(self.ws.recv(), 60)
            if answer == payload:
                elapsed = (time.perf_counter() - start) * 1000
                if elapsed > ACTION_TIMEOUT * 1000:
                    self.late += 1
                return elapsed

    async def run_until(self, stop: asyncio.Event, into: list[float], gap: float = 0.01) -> None:
        while not stop.is_set():
            try:
                into.append(await self.ping())
            except Exception as exc:  # counted; a new socket carries on
                self.failures.append(f"echo socket: {exc!r}")
                with contextlib.suppress(Exception):
                    await self.ws.close()
                try:
                    self.ws = await self.reopen()
                except Exception:
                    return
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


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a process so far (Linux /proc), NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return float("nan")


async def run_phase(port: int, server_pid: int, games, echo: Echo, args, rng: random.Random) -> Phase:
    phase = Phase(len(games), args.turns)
    limit = asyncio.Semaphore(8)
    seats: list[Seat] = []

    async def open_seat(game_id: int, who: str, player) -> Seat:
        async with limit:
            ws = await open_socket(f"ws://{HOST}:{port}/ws/games/{game_id}/", port, player[2])
            return Seat(f"game {game_id} {who}", ws)

    connect_start = time.perf_counter()
    try:
        opened = await asyncio.gather(
            *(open_seat(gid, who, p) for gid, a, b in games for who, p in (("A", a), ("B", b))),
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
            raise RuntimeError(f"no game of K={phase.k} had both its sockets open")
        await settle(seats)
        phase.connect_seconds = time.perf_counter() - connect_start
        alerts_before = sum(s.alerts for s in seats)

        stop = asyncio.Event()
        pinger = asyncio.create_task(echo.run_until(stop, phase.echo))
        cpu_before = process_cpu(server_pid)
        start = time.perf_counter()
        deadline = start + args.seconds
        await asyncio.gather(
            *(
                play_game(seats[i], seats[i + 1], phase, args.turns, deadline, random.Random(rng.random()))
                for i in range(0, len(seats), 2)
            )
        )
        phase.seconds = time.perf_counter() - start
        phase.server_cpu = process_cpu(server_pid) - cpu_before
        stop.set()
        failures_before = len(echo.failures)
        await pinger
        phase.failures += echo.failures[failures_before:]
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
    return phase


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def report(phase: Phase) -> str:
    med, p99 = statistics.median(phase.samples) if phase.samples else float("nan"), pct(phase.samples, 99)
    echo_med, echo_p99 = statistics.median(phase.echo) if phase.echo else float("nan"), pct(phase.echo, 99)
    kinds = "  ".join(
        f"{kind} {statistics.median(phase.by_kind[kind]):.1f}/{pct(phase.by_kind[kind], 99):.1f}"
        for kind in ACTIONS_PER_TURN
        if phase.by_kind[kind]
    )
    return (
        f"K={phase.k:<4d} samples={len(phase.samples):<5d} median={med:7.1f} ms  p99={p99:7.1f} ms  "
        f"echo median={echo_med:5.2f} ms p99={echo_p99:6.2f} ms (n={len(phase.echo)})  "
        f"median/echo={med / echo_med:6.1f}  p99/echo={p99 / echo_med:6.1f}  errors={len(phase.failures)}\n"
        f"       {2 * phase.k} sockets open and settled in {phase.connect_seconds:.1f} s; "
        f"turns {phase.turns_done}/{phase.k * phase.turns} in {phase.seconds:.1f} s "
        f"({len(phase.samples) / max(phase.seconds, 1e-9):.1f} actions/s, server CPU "
        f"{phase.server_cpu * 1000 / max(len(phase.samples), 1):.0f} ms/action, "
        f"load average {os.getloadavg()[0]:.1f}); "
        f"per action median/p99 ms: {kinds}"
    )


def failure_kinds(failures: list[str]) -> list[tuple[str, int, str]]:
    kinds: dict[str, list[str]] = defaultdict(list)
    for failure in failures:
        if "answered after" in failure:
            kind = f"answer later than {ACTION_TIMEOUT:.0f} s (still a sample)"
        elif "refused:" in failure:
            kind = "error frame"
        elif failure.startswith("echo socket"):
            kind = "echo socket closed"
        elif "did not open" in failure:
            kind = "socket did not open"
        elif "closed" in failure:
            kind = "socket closed"
        elif "end of the phase" in failure:
            kind = "no answer by the end of the phase"
        else:
            kind = "other"
        kinds[kind].append(failure)
    return [(kind, len(items), items[0]) for kind, items in kinds.items()]


async def bench(
    port: int, server_pid: int, game_sets: dict[int, list], args
) -> tuple[list[Phase], list[float]]:
    rng = random.Random(args.seed)
    # Any logged-in session will do for the echo socket: the first player's.
    first = next(iter(game_sets.values()))[0][1]
    echo = Echo(None, lambda: open_socket(f"ws://{HOST}:{port}/ws/echo/", port, first[2]))
    echo.ws = await echo.reopen()
    try:
        for _ in range(20):  # warm-up
            await echo.ping()
        quiet = [await echo.ping() for _ in range(200)]
        phases = []
        for games in game_sets.values():
            phase = await run_phase(port, server_pid, games, echo, args, rng)
            print(report(phase), flush=True)
            for kind, count, example in failure_kinds(phase.failures):
                print(f"       errors: {count} x {kind} (e.g. {example})", flush=True)
            phases.append(phase)
        return phases, quiet
    finally:
        await echo.ws.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--k", default="10,50,200", help="games played at once, per phase (default 10,50,200)"
    )
    parser.add_argument("--turns", type=int, default=4, help="turns per game and phase (default 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time limit of each phase (default 60)")
    parser.add_argument("--database-url", help="an EMPTY PostgreSQL database to use instead of a SQLite file")
    parser.add_argument("--seed", type=int, default=1, help="the client's holds and box choices")
    args = parser.parse_args()
    ks = [int(x) for x in args.k.split(",") if x.strip()]
    if not ks or min(ks) < 1 or max(ks) > 500 or not 1 <= args.turns <= 26 or not 0 < args.seconds <= 300:
        parser.error("K in 1..500, --turns in 1..26, --seconds in (0, 300]")

    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="penta-live-bench-"))
    server: DaphneServer | None = None
    server_errors = ""
    try:
        env = server_env(workdir, args.database_url)
        django_setup(env)
        if args.database_url:
            check_empty_database()
        migrate(env)
        from django.db import connections

        players = make_players(2 * max(ks))
        game_sets = {k: make_games(players, k) for k in ks}
        connections.close_all()
        setup_seconds = time.perf_counter() - started
        from django.conf import settings

        db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        layer = "redis" if settings.REDIS_URL else "in-memory"
        print(
            f"live games bench: daphne (1 process), db={db}, channel layer={layer}, K={args.k}, "
            f"{args.turns} turns/game, {args.seconds:.0f} s cap per K; setup {setup_seconds:.1f} s",
            flush=True,
        )
        server = DaphneServer(workdir, env)
        server.start()
        phases, quiet = asyncio.run(bench(server.port, server.process.pid, game_sets, args))
    except Exception as exc:
        print(f"bench failed: {exc!r}", file=sys.stderr)
        if server is not None:
            print(server.log_tail(), file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
            server_errors = server.log_errors()
        shutil.rmtree(workdir, ignore_errors=True)
    errors = sum(len(p.failures) for p in phases)
    last = phases[-1]
    p99 = pct(last.samples, 99)
    verdict = "met" if p99 < AIM_P99_MS and not last.failures else "MISSED"
    quiet_med = statistics.median(quiet)
    print(
        f"quiet echo (idle server, before the games): median={quiet_med:.2f} ms "
        f"p99={pct(quiet, 99):.2f} ms (n={len(quiet)}); K={last.k} against it: "
        f"median/quiet-echo={statistics.median(last.samples) / quiet_med:.0f} "
        f"p99/quiet-echo={p99 / quiet_med:.0f}"
        if last.samples
        else "no samples"
    )
    print(
        f"summary: K={last.k} p99={p99:.1f} ms (aim < {AIM_P99_MS:.0f} ms, no errors: {verdict}); "
        f"errors total={errors}; samples total={sum(len(p.samples) for p in phases)}; "
        f"runtime {time.perf_counter() - started:.0f} s"
    )
    if server_errors:
        print(server_errors)
    if args.database_url:
        print("note: the database of --database-url keeps the bench's data; drop it when done")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
