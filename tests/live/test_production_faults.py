"""Live play on the production set-up as it runs, under the faults production meets: real daphne
processes (tests/support/daphne_servers.py) on the test database and Redis, real WebSocket clients.

- idle sockets stay open and get the next push (redis-py 8's 5-s socket timeout cut them: issue 4091);
- a process killed with SIGKILL does not stall a table: the clock takes the dead process's sockets for
  gone and the computer plays the absent player's turn;
- 250 sockets closing at once leave no connection row, no connected seat and no traceback behind;
- one account flooding its sockets in bursts is cut off by the caps and the rate limits, and the other
  players' actions still go through, also when it sends at wire speed (the production server stops
  reading a socket whose messages queue up);
- a Redis restart under a running daphne process: it lives on, and the screens open across the restart
  as well as those opened afterwards get the next push.

They need a channel layer shared between processes: they run when REDIS_URL is set (CI's PostgreSQL +
Redis pass) and are skipped on the in-memory configuration, which serves a single process. Each prints
its figures (`pytest -s` shows them)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
from django.utils import timezone

from accounts.services import friend_request_send
from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box
from live import presence
from live.models import Connection, ServerProcess
from tests.support.daphne_servers import (
    FAST_PRESENCE,
    ROOT,
    Screen,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    free_port,
    in_db,
    wait_until,
)
from tests.support.factories import UserFactory, actor, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

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


# -- 1. idle sockets -----------------------------------------------------------------------------------


def test_idle_sockets_stay_open_and_get_the_next_push(daphne_servers):
    """Bob's game screen and notification socket stay silent for longer than redis-py 8's default socket
    timeout (which closed them: issue 4091), then each gets the next push: Ann's roll, made in this
    process (the push goes through Redis to daphne), and a friend request's notice."""
    (web,) = daphne_servers.daphne(1)
    ann, bob, zoe = (UserFactory(username=name) for name in ("ann", "bob", "zoe"))
    game = friends_game(ann, bob)
    cookie = session_cookie(bob)

    async def scenario():
        board = await Screen.open(web, game_path(game), cookie, name="bob's game screen")
        notices = await Screen.open(web, "/ws/notifications/", cookie, name="bob's notices")
        try:
            await board.until(lambda: board.turn == 1, 10, "bob's first board")

            def registered():
                return Connection.objects.filter(user=bob).count() == 2

            deadline = time.monotonic() + 10
            while not await in_db(registered):
                assert time.monotonic() < deadline, "bob's two sockets were never registered"
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # the last presence push of the opening, if any, arrives
            counts = (board.count, notices.count)

            await asyncio.sleep(IDLE_SECONDS)  # silence on both sockets: nothing sent either way

            assert not board.closed.is_set(), f"the idle game socket closed ({board.close_code})"
            assert not notices.closed.is_set(), f"the idle notification socket closed ({notices.close_code})"
            assert (board.count, notices.count) == counts, f"the sockets were not idle: {board.frames[-1:]}"
            rtt = (await board.pong(), await notices.pong())
            assert await in_db(lambda: Player.objects.get(game=game, user=bob).connected)
            assert await in_db(presence.is_online, bob.pk)

            # The other player acts (in this process: the push goes through Redis to daphne).
            version = board.version
            rolled = time.monotonic()
            await in_db(play.turn_roll, game_id=game.pk, actor=actor(ann), turn=1, roll=0)
            roll_took = await board.version_above(version, timeout=5) - rolled
            assert re.search(r'data-die="1" data-value="[1-6]"', board.frames[-1][1]), "no dice in the push"
            # A notice: a friend request made here reaches the idle notification socket.
            sent = time.monotonic()
            await in_db(friend_request_send, from_user=zoe, username="bob")
            await notices.frame_matching(r"zoe wants to be your friend", timeout=5)
            print(
                f"\nidle {IDLE_SECONDS} s: both sockets open, ping round trips {rtt[0] * 1000:.1f} / "
                f"{rtt[1] * 1000:.1f} ms; the roll reached the game socket in {roll_took * 1000:.0f} ms, "
                f"the notice the notification socket in {(time.monotonic() - sent) * 1000:.0f} ms"
            )
        finally:
            await board.close()
            await notices.close()

    asyncio.run(scenario())
    no_tracebacks(web)


# -- 2. a process killed ---------------------------------------------------------------------------------


@pytest.mark.parametrize("clock", ["web", "process"], ids=["clock-in-web", "run_timers"])
def test_a_killed_process_does_not_stall_the_table(daphne_servers, clock):
    """Ann on process 1, Bob on process 2, no turn timer; Bob's turn, process 2 killed: the computer
    plays Bob's turn within the grace period (counted from the dead process's last beat) plus the
    sweep's delay, and Ann sees it. With `clock="process"` the clock is a `run_timers` process and
    the web processes run none (the README's production layout); else each web process runs one."""
    web1, web2 = daphne_servers.daphne(2, clock=clock)
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    game = friends_game(ann, bob)
    cookies = {ann.pk: session_cookie(ann), bob.pk: session_cookie(bob)}

    def seats_connected() -> bool:
        return all(Player.objects.filter(game=game).values_list("connected", flat=True))

    def takeover() -> Turn | None:
        turn = Turn.objects.filter(game=game, number=2).first()
        return turn if turn.stand_in or turn.completed_at else None

    async def scenario():
        a = await Screen.open(web1, game_path(game), cookies[ann.pk], name="ann's screen (process 1)")
        b = await Screen.open(web2, game_path(game), cookies[bob.pk], name="bob's screen (process 2)")
        try:
            await a.until(lambda: a.turn == 1, 10, "ann's first board")
            await b.until(lambda: b.turn == 1, 10, "bob's first board")
            assert await in_db(seats_connected)
            # Ann plays her turn over her socket; then it is Bob's.
            await a.send({"action": "roll", "turn": 1, "roll": 0})
            await a.until(lambda: a.roll == 1, 10, "ann's roll")
            box = await in_db(box_for, game.pk, 1)
            version = a.version
            await a.send({"action": "choose", "turn": 1, "roll": 1, "box": box})
            await a.version_above(version)
            await a.send({"action": "confirm", "turn": 1, "roll": 1})
            await b.until(lambda: b.turn == 2, 10, "bob's turn on bob's screen")
            await a.until(lambda: a.turn == 2, 10, "bob's turn on ann's screen")
            seen_before_kill = len(a.frames)

            web2.kill()
            killed = time.monotonic()
            # How long until the computer has Bob's turn (polled from the database).
            while (turn := await in_db(takeover)) is None:
                assert time.monotonic() - killed < GRACE + STALE + 10, "nobody played bob's turn"
                await asyncio.sleep(0.02)
            taken = time.monotonic() - killed
            await a.until(lambda: a.turn == 3, GRACE + STALE + 10, "ann's next turn on her screen")
            shown = next(at for at, frame in a.frames[seen_before_kill:] if 'name="turn" value="3"' in frame)
            frame = next(
                frame for _at, frame in a.frames[seen_before_kill:] if 'name="turn" value="3"' in frame
            )
            return turn, taken, shown - killed, frame, await b.wait_closed(5)
        finally:
            await a.close()
            await b.close()

    turn, taken, shown, frame, bob_closed = asyncio.run(scenario())
    print(
        f"\nclock {clock}: bob's turn taken over by the computer {taken:.2f} s after his process was "
        f"killed (shown on ann's screen after {shown:.2f} s); heartbeat "
        f"{FAST_PRESENCE['PENTA_HEARTBEAT_SECONDS']} s, stale after {STALE:g} s, grace {GRACE:g} s"
    )
    assert bob_closed != 1000  # his connection died with the process, no close frame
    turn.refresh_from_db()
    assert turn.stand_in and turn.completed_at is not None, "the computer did not play bob's turn"
    bob_seat = Player.objects.get(game=game, user=bob)
    assert not bob_seat.connected and not bob_seat.channel_name
    assert bob_seat.missed_turns == 1
    assert Turn.objects.get(game=game, number=3).player.user == ann
    assert taken < GRACE + STALE + 4, f"the table waited {taken:.1f} s for a player whose process died"
    assert shown < GRACE + STALE + 5
    # Ann's screen shows Bob offline and her own turn.
    assert re.search(r'class="presence">\s*offline', frame) and re.search(
        r'class="presence on">\s*online', frame
    )
    # The dead process's sockets and its row are gone.
    assert not Connection.objects.filter(process__pid=web2.pid).exists()
    assert not ServerProcess.objects.filter(pid=web2.pid).exists()
    assert web1.alive()
    no_tracebacks(web1)


# -- 3. a burst of closes --------------------------------------------------------------------------------

CROWD = 125  # users, each with a notification socket; 25 games, each with 2 seats and 3 spectators
GAMES = 25
SPECTATORS_PER_GAME = 3


def test_250_sockets_closing_at_once_leave_nothing_behind(daphne_servers):
    """125 notification sockets (one a user) and 125 game sockets (25 games: 2 seats and 3 spectators by
    the invitation link each, within the default caps) on one process, then all closed at once, half
    by dropping the TCP connection, half cleanly: every connection row goes, every seat is marked gone,
    and the process logs no error."""
    (web,) = daphne_servers.daphne(1)
    users = [UserFactory(username=f"crowd{i:03d}") for i in range(CROWD)]
    games = [friends_game(users[2 * i], users[2 * i + 1]) for i in range(GAMES)]
    cookies = [session_cookie(user) for user in users]
    # (user index, path): a notification socket for everyone, a seat's screen for each player, and the
    # others watch a game through its invitation link.
    sockets = [(i, "/ws/notifications/") for i in range(CROWD)]
    for g, game in enumerate(games):
        sockets += [(2 * g, game_path(game)), (2 * g + 1, game_path(game))]
    watchers = iter(range(2 * GAMES, CROWD))
    for game in games:
        sockets += [(next(watchers), game_path(game, game.invite_token)) for _ in range(SPECTATORS_PER_GAME)]
    assert len(sockets) == 250

    def held() -> int:
        return Connection.objects.filter(process__pid=web.pid).count()

    async def scenario():
        gate = asyncio.Semaphore(25)

        async def open_one(user, path):
            async with gate:
                screen = await Screen.open(web, path, cookies[user], keep_frames=False)
                if "/games/" in path:
                    await screen.until(lambda: screen.version >= 0, 30, "a first board")
                return screen

        started = time.monotonic()
        screens = await asyncio.gather(*(open_one(user, path) for user, path in sockets))
        deadline = time.monotonic() + 60
        while (count := await in_db(held)) < len(sockets):
            assert time.monotonic() < deadline, f"only {count} of {len(sockets)} sockets registered"
            await asyncio.sleep(0.1)
        opened = time.monotonic() - started
        assert not [s for s in screens if s.closed.is_set()], "a socket was refused"
        assert await in_db(lambda: Player.objects.filter(game__in=games, connected=True).count()) == 2 * GAMES

        # All at once: half of them drop the TCP connection (a crashed browser, a lost network), the
        # other half close cleanly, concurrently.
        closing = time.monotonic()
        for screen in screens[::2]:
            screen.abort()
        await asyncio.gather(*(screen.close() for screen in screens[1::2]))
        await asyncio.gather(*(screen.wait_closed(10) for screen in screens))
        deadline = time.monotonic() + 60
        while (count := await in_db(held)) > 0:
            assert time.monotonic() < deadline, f"{count} connection rows left 60 s after the closes"
            await asyncio.sleep(0.1)
        forgotten = time.monotonic() - closing

        # The process still serves: a new socket gets its board.
        again = await Screen.open(web, game_path(games[0]), cookies[0])
        # (The games have moved on: with their players gone, the computer plays their turns.)
        await again.until(lambda: again.turn is not None, 15, "a board after the burst")
        await again.close()
        return opened, forgotten

    opened, forgotten = asyncio.run(scenario())
    print(
        f"\n250 sockets opened (25 at a time) in {opened:.1f} s; "
        f"all forgotten {forgotten:.1f} s after closing"
    )
    wait_until(
        lambda: not Connection.objects.filter(process__pid=web.pid).exists(), timeout=10, what="no rows"
    )
    assert not Player.objects.filter(game__in=games, connected=True).exists()
    assert not Player.objects.filter(game__in=games).exclude(channel_name="").exists()
    assert not Game.objects.filter(pk__in=[g.pk for g in games]).exclude(spectator_languages="").exists()
    assert web.alive()
    no_tracebacks(web)


# -- 4. one account flooding -----------------------------------------------------------------------------

FLOOD_GAME_SOCKETS = 16  # beyond the cap of 12 sockets a person, with the notification sockets
FLOOD_NOTICE_SOCKETS = 4
ACTION_BOUND = 2.0  # seconds for an action to reach the other player's screen, flood or not
PACE = 0.15  # seconds between a victim's actions: a quick human


class Flooder:
    """tests/support/flood_client.py as a process of its own: one account's every socket sending `sync` on the
    game's invitation link and on notification sockets. `closes` fills as its sockets are closed."""

    def __init__(self, server, cookie: str, game: Game, burst: int, pace: float):
        urls = [
            ("--url", server.ws_url(game_path(game, game.invite_token)), "--count", str(FLOOD_GAME_SOCKETS)),
            ("--url", server.ws_url("/ws/notifications/"), "--count", str(FLOOD_NOTICE_SOCKETS)),
        ]
        argv = [
            sys.executable,
            "-m",
            "tests.support.flood_client",
            "--cookie",
            cookie,
            "--origin",
            server.origin,
        ]
        argv += ["--burst", str(burst), "--pace", str(pace), *(arg for url in urls for arg in url)]
        self.process = subprocess.Popen(
            argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout.readline().strip() == "flooding"
        self.closes: list[dict] = []
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith('{"closed"'):
                self.closes.append(json.loads(line))

    def told_and_closed(self) -> bool:
        """A socket was told "Too many messages", then closed for flooding (4429)."""
        return any(close["closed"] == "4429" and close["told"] for close in self.closes)

    def stop(self) -> dict:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(timeout=10)
        summary = [line for line in self.lines if line.startswith('{"opened"')]
        assert summary, "the flooder said:\n" + "".join(self.lines[-20:])
        return json.loads(summary[-1])


class Table:
    """Two players at one table, Ann on the odd turns and Bob on the even ones, each with a screen."""

    def __init__(self, ann: Screen, bob: Screen, game_id: int):
        self.ann, self.bob, self.game_id = ann, bob, game_id
        self.held = self.chosen = False  # in the turn in play

    async def play(self, count: int, latencies: list[float]) -> None:
        """`count` actions of whoever's turn it is (roll, hold, roll, hold, roll, choose, confirm), each
        timed from its sending to the other player's screen showing the new version."""
        for _ in range(count):
            me, other = (self.ann, self.bob) if self.ann.turn % 2 else (self.bob, self.ann)
            turn, roll = me.turn, me.roll
            if roll == 0 or (roll < 3 and self.held):
                message = {"action": "roll", "turn": turn, "roll": roll}
            elif roll < 3:
                message = {"action": "hold", "turn": turn, "roll": roll, "die": roll}
            elif not self.chosen:
                box = await in_db(box_for, self.game_id, turn)
                message = {"action": "choose", "turn": turn, "roll": roll, "box": box}
            else:
                message = {"action": "confirm", "turn": turn, "roll": roll}
            before = max(me.version, other.version)
            await asyncio.sleep(PACE)
            sent = time.monotonic()
            await me.send(message)
            latencies.append(await other.version_above(before, timeout=ACTION_BOUND + 10) - sent)
            await me.version_above(before, timeout=10)
            self.held = message["action"] == "hold"
            self.chosen = message["action"] == "choose"
            if message["action"] == "confirm":
                for screen in (me, other):
                    await screen.until(lambda s=screen, t=turn: s.turn == t + 1, 10, "the next turn")


def flood_figures(daphne_servers, *, burst: int, pace: float, per_phase: int = 14) -> dict:
    """Ann and Bob play `per_phase` actions on one daphne process, then as many again while Fred, from a
    process of his own, opens 16 game sockets (watching their game by its link) and 4 notification
    sockets, sending `sync` on each (`burst` messages back to back, then a pause of `pace` s) and
    opening again whatever is closed. Presence at production's timings (a beat every 2 s, dead after
    10 s), the process's own beats watched. Returns the figures; prints them."""
    (web,) = daphne_servers.daphne(
        1,
        PENTA_HEARTBEAT_SECONDS="2",
        PENTA_PROCESS_STALE_SECONDS="10",
        # Production's limits on opening sockets (the test settings lift them for the rest of the suite).
        PENTA_HANDSHAKE_RATE="10",
        PENTA_HANDSHAKE_BURST="60",
        PENTA_CONNECT_RATE="1",
        PENTA_CONNECT_BURST="20",
    )
    ann, bob, fred = (UserFactory(username=name) for name in ("ann", "bob", "fred"))
    game = friends_game(ann, bob)
    cookies = {user.pk: session_cookie(user) for user in (ann, bob, fred)}

    def beat_age() -> float:
        row = process_row(web)
        return (timezone.now() - row.beat_at).total_seconds() if row else float("inf")

    async def watch_beats(stop: asyncio.Event, ages: list[float]) -> None:
        while not stop.is_set():
            ages.append(await in_db(beat_age))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.2)

    async def scenario():
        a = await Screen.open(web, game_path(game), cookies[ann.pk], name="ann's screen")
        b = await Screen.open(web, game_path(game), cookies[bob.pk], name="bob's screen")
        flooder = None
        try:
            await a.until(lambda: a.turn == 1, 10, "ann's first board")
            await b.until(lambda: b.turn == 1, 10, "bob's first board")
            table = Table(a, b, game.pk)
            quiet: list[float] = []
            await table.play(per_phase, quiet)

            flooder = await asyncio.to_thread(Flooder, web, cookies[fred.pk], game, burst, pace)
            stop_watching, ages = asyncio.Event(), []
            watcher = asyncio.create_task(watch_beats(stop_watching, ages))
            await asyncio.sleep(1.0)  # the flood is under way
            flooded: list[float] = []
            failure = ""
            try:
                await table.play(per_phase, flooded)
                # Flooding long enough for one of its sockets to be closed for it.
                deadline = time.monotonic() + 20
                while not flooder.told_and_closed() and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
            except AssertionError as exc:  # an action that never arrived: reported below
                failure = str(exc)
            finally:
                stop_watching.set()
                await watcher
                summary = await asyncio.to_thread(flooder.stop)
            return {
                "quiet": quiet,
                "flooded": flooded,
                "failure": failure,
                "flooder": summary,
                "beat": max(ages),
            }
        finally:
            if flooder is not None and flooder.process.poll() is None:
                flooder.process.kill()
            await a.close()
            await b.close()

    figures = asyncio.run(scenario())
    quiet, flooded = figures["quiet"], figures["flooded"]
    figures["ratio"] = statistics.median(flooded) / statistics.median(quiet) if flooded else float("inf")
    during = f"{statistics.median(flooded) * 1000:.0f} ms" if flooded else "-"
    print(
        f"\nflood in bursts of {burst}, pace {pace} s: victims' action -> other player's screen: median "
        f"{statistics.median(quiet) * 1000:.0f} ms quiet, {during} during the flood "
        f"(x{figures['ratio']:.1f}); "
        f"max {max(quiet) * 1000:.0f} ms / {max(flooded, default=0) * 1000:.0f} ms; "
        f"{len(flooded)} of {per_phase} actions arrived {figures['failure']}; "
        f"the process's heartbeat was up to {figures['beat']:.1f} s old.\nflooder: {figures['flooder']}"
    )
    figures["web"] = web
    return figures


def test_one_account_flooding_is_cut_off_and_the_others_play_on(daphne_servers):
    """Each of the flooder's sockets sends bursts of 100 messages at once: its sockets beyond the cap
    are refused (4430), a flooding socket is told "Too many messages" and closed (4429), and every
    action of the two players reaches the other's screen within ACTION_BOUND."""
    figures = flood_figures(daphne_servers, burst=100, pace=0.2)
    flooder = figures["flooder"]
    assert flooder["closes"].get("4430"), "no socket was refused at the cap (4430)"
    assert flooder["closed_after_error"], "no flooding socket was told 'Too many messages' and closed (4429)"
    assert not figures["failure"], figures["failure"]
    assert max(figures["quiet"]) < ACTION_BOUND
    assert max(figures["flooded"]) < ACTION_BOUND, f"an action took {max(figures['flooded']):.2f} s"
    assert figures["web"].alive()
    no_tracebacks(figures["web"])


def test_one_account_flooding_at_wire_speed_does_not_stall_the_process(daphne_servers):
    """The flooder's sockets send in a tight loop (one message, then yield): the other players' actions
    must still reach each other's screens within ACTION_BOUND."""
    figures = flood_figures(daphne_servers, burst=1, pace=0.0, per_phase=4)
    assert not figures["failure"], figures["failure"]
    assert max(figures["flooded"]) < ACTION_BOUND, f"an action took {max(figures['flooded']):.2f} s"


# -- 5. Redis restarting ---------------------------------------------------------------------------------


class PrivateRedis:
    """A redis-server of the test's own on a free port, which it may stop and start (CI's shared one
    must never be)."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.pidfile = workdir / "redis.pid"
        self.workdir = workdir

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        subprocess.run(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly",
             "no", "--daemonize", "yes", "--pidfile", str(self.pidfile), "--dir", str(self.workdir)],
            check=True, capture_output=True, timeout=10,
        )  # fmt: skip
        wait_until(self.answers, timeout=10, what=f"redis-server on port {self.port}")

    def answers(self) -> bool:

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except redis.exceptions.RedisError:
            return False

    def subscriptions(self) -> int:
        """How many channels somebody is subscribed to."""

        try:
            return len(redis.Redis(port=self.port, socket_timeout=1).pubsub_channels())
        except redis.exceptions.RedisError:
            return 0

    def stop(self) -> None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            return
        wait_until(lambda: not Path(f"/proc/{pid}").exists(), timeout=10, what="redis-server to stop")
        self.pidfile.unlink(missing_ok=True)


@pytest.fixture
def private_redis(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is missing: apt-get install redis-server")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_redis_restart_under_a_running_process(daphne_servers, private_redis):
    """Redis (the channel layer and the cache of one daphne process) is killed and started again two
    seconds later: the process lives on; once its subscriptions are back, the screens open across the
    restart get the next push, and so do screens opened afterwards."""
    (web,) = daphne_servers.daphne(1, REDIS_URL=private_redis.url, CACHE_URL=private_redis.url)
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    game = friends_game(ann, bob)
    cookies = {ann.pk: session_cookie(ann), bob.pk: session_cookie(bob)}

    async def hold_seen(a: Screen, b: Screen) -> float:
        """Ann holds (or releases) a die; how long until Bob's screen shows it."""
        before = max(a.version, b.version)
        sent = time.monotonic()
        await a.send({"action": "hold", "turn": a.turn, "roll": a.roll, "die": 1})
        seen = await b.version_above(before, timeout=10) - sent
        await a.version_above(before, timeout=10)
        return seen

    async def open_pair(name: str) -> tuple[Screen, Screen]:
        a = await Screen.open(web, game_path(game), cookies[ann.pk], name=f"ann's {name}screen")
        b = await Screen.open(web, game_path(game), cookies[bob.pk], name=f"bob's {name}screen")
        await a.until(lambda: a.turn == 1, 10, "ann's board")
        await b.until(lambda: b.turn == 1, 10, "bob's board")
        return a, b

    async def scenario():
        a, b = await open_pair("")
        try:
            await a.send({"action": "roll", "turn": 1, "roll": 0})
            await b.until(lambda: b.roll == 1, 10, "the roll on bob's screen")
            await a.until(lambda: a.roll == 1, 10, "the roll on ann's screen")

            private_redis.stop()
            stopped = time.monotonic()
            await asyncio.sleep(2.0)  # Redis is away for two seconds
            private_redis.start()
            down = time.monotonic() - stopped
            # The process subscribes again on its own (channels-redis retries every second).
            while not await asyncio.to_thread(private_redis.subscriptions):
                assert time.monotonic() - stopped < 30, "the process never subscribed again"
                await asyncio.sleep(0.05)
            resubscribed = time.monotonic() - stopped
            old_screens = await hold_seen(a, b)
        finally:
            await a.close()
            await b.close()
        a, b = await open_pair("new ")
        try:
            new_screens = await hold_seen(a, b)
        finally:
            await a.close()
            await b.close()
        return down, resubscribed, old_screens, new_screens

    down, resubscribed, old_screens, new_screens = asyncio.run(scenario())
    print(
        f"\nRedis away {down:.1f} s, the process subscribed again {resubscribed:.1f} s after it was killed; "
        f"then a push reached a screen open across the restart in {old_screens * 1000:.0f} ms, "
        f"one opened afterwards in {new_screens * 1000:.0f} ms"
    )
    assert web.alive(), f"daphne died with Redis:\n{web.output()[-4000:]}"
    assert "could not broadcast" not in web.output(), web.output()[-4000:]
