"""Benchmark: the winning-chances bar under the attacks of issue 22 (items 14 and 15), against a quiet run.

    .venv/bin/python bench/winbar_attack.py \\
        --pg-server postgres://penta:penta@127.0.0.1:5433/postgres --redis-url redis://127.0.0.1:6390/0
    .venv/bin/python bench/winbar_attack.py ... --seconds 20 --json var/winbar-attack.json   # shorter

The production set-up, as bench/live_games.py starts it (and with its helpers): a temporary PostgreSQL
database (--pg-server; dropped at the end), Redis, two daphne processes (`python -m penta.server`,
PENTA_CLOCK_IN_WEB=false) and one `manage.py run_timers`, with the bench's settings (auto-commit and
absence grace out of reach; the computer's moves at production's pace, PENTA_BOT_STEP_SECONDS 0.9).
Each attack is measured twice for --seconds: quiet (the victim alone), then attacked; the figures are
the ratios attacked / quiet of the same run, so the machine's own noise hits both.

(a) Guests hammering the bar's endpoint (item 14: a guest with four threads took another player's roll
    from a median of 44 ms to 172 ms, p99 77 -> 1,030 ms). Four threads, each a guest of its own (its own
    session, no account), loop as fast as the server answers: a new game against three hard computer
    players, the bar switched on, `GET /games/<id>/win-bar/` three times, a roll, three more GETs (every
    roll a new position, and before the fix every new game one more). The victim: a logged-in person
    playing solo games over HTTP as htmx does (roll, roll, roll, choose, confirm), one keep-alive
    connection per process,
    alternating between the two daphne processes as a balancer would; one sample is a roll's round
    trip. Before the fix every GET of a new position worked the chances out in the web process.

(b) One account's ten watched games of four (item 15: a victim's bar delay went from 0.7 s to 26 s). The
    attacker's ten games against three hard computer players each, the attacker's own seat kept by the
    computer too (so every move is the clock's), each open on a socket of the attacker's with the bar
    switched on, the clock playing them at production's pace. The victim: a logged-in person playing a
    game against one hard computer player over its socket (on daphne 1), with the bar switched on,
    thinking 0.4-0.8 s before each action. One sample is a position of the victim's game (a roll or a
    written box, the victim's or the computer's: the dice or the totals change on the victim's screen)
    and the time until the victim's screen shows a bar of that position or a later one (the figures
    were stale that long). Reported for all positions and for the computer's alone (those are worked out
    by run_timers, where the attacker's are).

Prints, per attack, the samples, median and p99 quiet and attacked, and the ratios; --json writes them.
Exit status 1 if a server process died or logged a traceback, or a phase had no samples.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import websockets
from daphne_server import HOST, ClockProcess, DaphneServer, default_server_module
from live_games import Database, django_setup, make_players, migrate, server_env, spread_ids
from solo_game import Client, parse_board

GUEST_THREADS = 4
ATTACK_GAMES = 10
SETTLE_SECONDS = 5.0  # the attack under way before the attacked phase's samples count
WARM_UP_SECONDS = 15.0
VERSION_RE = re.compile(r'id="game-status"[^>]*\bdata-version="(\d+)"')
BAR_RE = re.compile(r'id="win-bar"[^>]*\bdata-win-version="(\d+)"')
DIE_RE = re.compile(r'data-die="\d" data-value="(\d*)"')
TOTAL_RE = re.compile(r'data-total="(\d+)" data-seat="(\d+)"')


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def ms(value: float) -> str:
    return "-" if value != value else f"{value * 1000:,.0f}"


# -- (a) guests hammering the endpoint ---------------------------------------------------------------


class SoloVictim:
    """A logged-in person's solo games over HTTP, one connection to each process in turn."""

    def __init__(self, ports: list[int], session_key: str):
        self.clients = [Client(port) for port in ports]
        for client in self.clients:
            client.cookies = self.clients[0].cookies  # one browser: one cookie jar
        self.clients[0].cookies["sessionid"] = session_key
        self.clients[0].request("GET", "/")  # the CSRF cookie
        self.turns = 0
        self.game = None
        self.fields: dict[str, str] = {}
        self.boxes: list[str] = []
        self.i = 0

    def client(self) -> Client:
        self.i += 1
        return self.clients[self.i % len(self.clients)]

    def new_game(self) -> None:
        client = self.client()
        status, headers, _body, _t = client.request("POST", "/games/solo/", fields={})
        assert status == 302, f"a solo game was not made: {status}"
        self.game = headers["location"].rstrip("/").rsplit("/", 1)[1]
        status, _h, body, _t = client.request("GET", f"/games/{self.game}/")
        self.fields = parse_board(body).fields

    def act(self, path: str, extra: dict | None = None) -> float:
        client = self.client()
        status, _h, body, elapsed = client.request(
            "POST", f"/games/{self.game}/{path}", fields={**self.fields, **(extra or {})}, htmx=True
        )
        assert status == 200, f"{path} answered {status}: {body[:300]}"
        board = parse_board(body)
        self.fields = board.fields or self.fields
        self.boxes = board.enabled_boxes
        return elapsed

    def turn_of_rolls(self) -> list[float]:
        """One turn: three rolls (timed), then the first enabled box, confirmed."""
        if self.game is None:
            self.new_game()
            self.turns = 0
        rolls = [self.act("roll/") for _ in range(3)]
        self.act(f"choose/{self.boxes[0]}/", {"confirm_zero": "1"})
        self.act("confirm/")
        self.turns += 1
        if self.turns == 13:
            self.game = None
        return rolls


def guest_hammering(port: int, stop: threading.Event, counts: dict) -> None:
    """One attacker thread: a guest of its own, as fast as the server answers."""
    client = Client(port)
    client.request("GET", "/")
    while not stop.is_set():
        status, headers, _b, _t = client.request(
            "POST", "/games/computer/", fields=[("strength", "hard")] * 3
        )
        if status != 302:
            counts[f"new {status}"] = counts.get(f"new {status}", 0) + 1
            continue
        game = headers["location"].rstrip("/").rsplit("/", 1)[1]
        client.request("POST", f"/games/{game}/win-bar/toggle/", fields={"on": "1"}, htmx=True)
        for step in range(2):
            for _ in range(3):
                status, _h, _b, _t = client.request("GET", f"/games/{game}/win-bar/", htmx=True)
                counts[f"win-bar {status}"] = counts.get(f"win-bar {status}", 0) + 1
            if step == 0:  # the guest plays first: turn 1, no roll yet
                client.request("POST", f"/games/{game}/roll/", fields={"turn": "1", "roll": "0"}, htmx=True)


def attack_a(ports: list[int], session_key: str, seconds: float) -> dict:
    victim = SoloVictim(ports, session_key)

    def measure() -> list[float]:
        samples = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            samples += victim.turn_of_rolls()
        return samples

    quiet = measure()
    stop, counts = threading.Event(), {}
    threads = [
        threading.Thread(target=guest_hammering, args=(ports[i % len(ports)], stop, counts), daemon=True)
        for i in range(GUEST_THREADS)
    ]
    for thread in threads:
        thread.start()
    time.sleep(SETTLE_SECONDS)
    attacked = measure()
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    return {"quiet": quiet, "attacked": attacked, "attack_requests": counts}


# -- (b) one account's ten watched games --------------------------------------------------------------


class BarWatch:
    """The victim's screen: when the position changed (the dice or the totals shown), and when a bar of
    that position or a later one arrived."""

    def __init__(self):
        self.dice: tuple | None = None
        self.totals: tuple | None = None
        self.version = -1
        self.pending: list[tuple[int, float, bool]] = []  # (version, when, the computer moved)
        self.delays: list[tuple[float, bool]] = []
        self.changed = asyncio.Event()
        self.computer_to_move = False
        self.unanswered = 0

    def take(self, frame: str) -> None:
        now = time.monotonic()
        version = VERSION_RE.search(frame)
        if version is not None and int(version.group(1)) > self.version:
            self.version = int(version.group(1))
            dice = tuple(DIE_RE.findall(frame)) or self.dice
            totals = tuple(TOTAL_RE.findall(frame)) or self.totals
            if self.dice is not None and (dice, totals) != (self.dice, self.totals):
                self.pending.append((self.version, now, self.computer_to_move))
            self.dice, self.totals = dice, totals
        bar = BAR_RE.search(frame)
        if bar is not None:
            shown = int(bar.group(1))
            self.delays += [(now - at, bot) for v, at, bot in self.pending if v <= shown]
            self.pending = [p for p in self.pending if p[0] > shown]
        self.changed.set()


async def read(ws, watch: BarWatch | None = None) -> None:
    with contextlib.suppress(websockets.ConnectionClosed):
        async for frame in ws:
            if watch is not None:
                watch.take(frame if isinstance(frame, str) else frame.decode())


def open_socket(port: int, path: str, session_key: str):
    return websockets.connect(
        f"ws://{HOST}:{port}{path}",
        origin=f"http://{HOST}:{port}",
        additional_headers={"Cookie": f"sessionid={session_key}"},
        open_timeout=30,
        ping_interval=None,
        max_size=None,
    )


def computer_game(user_id: int, name: str, strengths: list[str], *, seat_kept: bool) -> int:
    """A started game against the computer with the bar switched on for the person's seat (kept by the
    computer too with `seat_kept`)."""
    from dicegame.actors import Actor
    from dicegame.models import Player
    from dicegame.play import game_create_vs_computer
    from winprob import chances

    game = game_create_vs_computer(actor=Actor(user_id=user_id, name=name), strengths=strengths)
    seat = Player.objects.get(game=game, user_id=user_id)
    chances.switch_bar(seat, on=True)
    if seat_kept:
        from dicegame.models import Turn

        Player.objects.filter(pk=seat.pk).update(stand_in=True)
        Turn.objects.filter(game=game, player=seat, completed_at__isnull=True).update(
            stand_in=True, next_step_at=game.created_at
        )
    return game.pk


def victim_turn(game_id: int) -> tuple[str, int, int, list[str]] | None:
    """(whose: person or computer, turn, rolls used, open boxes the dice allow) of the turn in play."""
    from dicegame.models import Turn

    turn = Turn.objects.select_related("player").filter(game_id=game_id, completed_at__isnull=True).first()
    if turn is None:
        return None
    whose = "computer" if turn.player.computer_plays else "person"
    boxes = [b.name for b in turn.player.sheet.options(tuple(turn.dice))] if turn.dice else []
    return whose, turn.number, turn.rolls_used, boxes


async def play_victim(port: int, user: tuple, seconds: float, rng: random.Random) -> tuple[list, int]:
    from django.db import connection

    def in_db(function, *args, **kwargs):
        def run():
            try:
                return function(*args, **kwargs)
            finally:
                connection.close()

        return asyncio.to_thread(run)

    game_id = await in_db(computer_game, user[0], user[1], ["hard"], seat_kept=False)
    watch = BarWatch()
    async with open_socket(port, f"/ws/games/{game_id}/", user[2]) as ws:
        reader = asyncio.ensure_future(read(ws, watch))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            state = await in_db(victim_turn, game_id)
            if state is None:  # over: another game
                break
            whose, number, rolls, boxes = state
            watch.computer_to_move = whose == "computer"
            if whose == "computer":
                await asyncio.sleep(0.1)
                continue
            await asyncio.sleep(rng.uniform(0.4, 0.8))
            if rolls < 2:
                await ws.send(json.dumps({"action": "roll", "turn": number, "roll": rolls}))
            else:
                await ws.send(
                    json.dumps({"action": "choose", "turn": number, "roll": rolls, "box": boxes[0]})
                )
                await ws.send(json.dumps({"action": "confirm", "turn": number, "roll": rolls}))
            before = watch.version
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_newer(watch, before), 10)
        await asyncio.sleep(3)  # the last bars
        reader.cancel()
    # A position whose bar never came counts with the time it waited (a lower bound): leaving it out
    # would hide a starved game.
    now = time.monotonic()
    watch.unanswered = len(watch.pending)
    return watch.delays + [(now - at, bot) for _v, at, bot in watch.pending], watch.unanswered


async def _newer(watch: BarWatch, version: int) -> None:
    while watch.version <= version:
        watch.changed.clear()
        await watch.changed.wait()


async def attack_b(ports: list[int], victim: tuple, attacker: tuple, seconds: float, seed: int) -> dict:
    from django.db import connection

    # Unmeasured: the niced children that work the chances out start on first use (each loads the
    # strategy's table), in daphne 1 and in run_timers.
    await play_victim(ports[0], victim, WARM_UP_SECONDS, random.Random(seed - 1))
    quiet = await play_victim(ports[0], victim, seconds, random.Random(seed))

    def make_attack_games():
        try:
            return [
                computer_game(attacker[0], attacker[1], ["hard"] * 3, seat_kept=True)
                for _ in range(ATTACK_GAMES)
            ]
        finally:
            connection.close()

    games = await asyncio.to_thread(make_attack_games)
    async with contextlib.AsyncExitStack() as stack:
        readers = []
        for i, game_id in enumerate(games):
            for attempt in range(3):  # a loaded machine may drop a handshake
                try:
                    ws = await stack.enter_async_context(
                        open_socket(ports[i % len(ports)], f"/ws/games/{game_id}/", attacker[2])
                    )
                    break
                except (OSError, websockets.InvalidHandshake, TimeoutError):
                    if attempt == 2:
                        raise
            readers.append(asyncio.ensure_future(read(ws)))
        await asyncio.sleep(SETTLE_SECONDS)
        attacked = await play_victim(ports[0], victim, seconds, random.Random(seed + 1))
        for reader in readers:
            reader.cancel()
    return {"quiet": quiet, "attacked": attacked, "attack_games": len(games)}  # (delays, unanswered)


# -- the report -------------------------------------------------------------------------------------


def row(name: str, quiet: list[float], attacked: list[float]) -> dict:
    figures = {
        "samples": [len(quiet), len(attacked)],
        "median_ms": [median(quiet) * 1000, median(attacked) * 1000],
        "p99_ms": [p99(quiet) * 1000, p99(attacked) * 1000],
    }
    figures["median_ratio"] = figures["median_ms"][1] / figures["median_ms"][0] if quiet else float("nan")
    figures["p99_ratio"] = figures["p99_ms"][1] / figures["p99_ms"][0] if quiet else float("nan")
    print(
        f"  {name:<38} n={len(quiet):>4} / {len(attacked):<4} median {ms(median(quiet)):>6} -> "
        f"{ms(median(attacked)):>6} ms (x{figures['median_ratio']:.2f})   p99 {ms(p99(quiet)):>6} -> "
        f"{ms(p99(attacked)):>6} ms (x{figures['p99_ratio']:.2f})",
        flush=True,
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pg-server", metavar="URL", default=os.environ.get("PENTA_BENCH_PG_SERVER"))
    parser.add_argument("--database-url", help="an existing EMPTY PostgreSQL database (left in place)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""))
    parser.add_argument("--seconds", type=float, default=40.0, help="each phase's length (default 40)")
    parser.add_argument("--only", choices=("a", "b"), help="run one attack")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if not args.redis_url:
        parser.error("two server processes and run_timers need Redis: --redis-url")
    if args.pg_server and args.database_url:
        parser.error("give --pg-server or --database-url, not both")

    workdir = Path(tempfile.mkdtemp(prefix="penta-winbar-bench-"))
    db = Database(args, workdir)
    tag = secrets.token_hex(4)
    secret_key = os.environ.get("SECRET_KEY") or "bench-" + secrets.token_urlsafe(32)
    running: list = []
    results: dict = {"seconds": args.seconds}
    failed = False
    try:
        db.create()
        env = server_env(db, args.redis_url, "pubsub", secret_key, tag)
        env["PENTA_BOT_STEP_SECONDS"] = "0.9"
        django_setup(env)
        migrate(env)
        spread_ids()
        from django.db import connections

        victim, attacker = make_players(2)
        connections.close_all()
        servers = [DaphneServer(workdir, env, name=f"daphne{i + 1}") for i in range(2)]
        clock = ClockProcess(workdir, env)
        running = [*servers, clock]
        for server in servers:
            server.start()
        clock.start()
        ports = [server.port for server in servers]
        print(
            f"winning-chances bar under attack: db={db.kind}, redis={args.redis_url}, 2 x python -m "
            f"{default_server_module()} + run_timers; each phase {args.seconds:g} s; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
            flush=True,
        )
        if args.only in (None, "a"):
            print(
                f"(a) {GUEST_THREADS} guest threads hammering win-bar on games against the computer:",
                flush=True,
            )
            a = attack_a(ports, victim[2], args.seconds)
            results["a"] = {"roll": row("another player's roll (HTTP round trip)", a["quiet"], a["attacked"])}
            results["a"]["attack_requests"] = a["attack_requests"]
            print(f"  the guests' requests: {a['attack_requests']}", flush=True)
            failed |= not a["quiet"] or not a["attacked"]
        if args.only in (None, "b"):
            print(f"(b) one account's {ATTACK_GAMES} watched games of four seats:", flush=True)
            b = asyncio.run(attack_b(ports, victim, attacker, args.seconds, args.seed))
            (quiet, quiet_left), (attacked, attacked_left) = b["quiet"], b["attacked"]
            results["b"] = {
                "bar_delay": row(
                    "the victim's bar delay (every position)", [d for d, _ in quiet], [d for d, _ in attacked]
                ),
                "bar_delay_computer": row(
                    "  of the computer's moves (run_timers)",
                    [d for d, bot in quiet if bot],
                    [d for d, bot in attacked if bot],
                ),
            }
            results["b"]["never_shown"] = [quiet_left, attacked_left]
            print(
                f"  positions whose bar never came (counted with the time they waited): {quiet_left} quiet, "
                f"{attacked_left} attacked",
                flush=True,
            )
            failed |= not quiet or not attacked
        print(f"load average at the end {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for process in running:
            problem = process.log_errors()
            if problem or not process.alive():
                print(f"server problem: {problem or process.name + ' died'}", file=sys.stderr)
                failed = True
            process.stop()
        print(db.drop() or "", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
