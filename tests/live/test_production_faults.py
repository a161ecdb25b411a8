"""Live play on the production set-up as it runs, under the faults production meets: real daphne
processes (tests/support/daphne_servers.py) on the test database and Redis, real WebSocket clients.

- idle sockets stay open and get the next push (redis-py 8's 5-s socket timeout cut them: issue 4091);
- a process killed with SIGKILL does not stall a table: the clock takes the dead process's sockets for
  gone and the computer plays the absent player's turn;
- 250 sockets closing at once leave no connection row, no connected seat and no traceback behind;
- (one account flooding its sockets: tests/live/test_floods.py);
- a Redis restart under a running daphne process: it lives on, and the screens open across the restart
  as well as those opened afterwards get the next push.

They need a channel layer shared between processes: they run when REDIS_URL is set (CI's PostgreSQL +
Redis pass) and are skipped on the in-memory configuration, which serves a single process. Each prints
its figures (`pytest -s` shows them)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis

from accounts.services import friend_request_send
from dicegame import play
from dicegame.models import Game, Player, Turn
from live import presence
from live.models import Connection, ServerProcess
from tests.support.daphne_servers import (
    FAST_PRESENCE,
    GRACE,
    IDLE_SECONDS,
    STALE,
    Screen,
    box_for,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    free_port,
    friends_game,
    game_path,
    in_db,
    no_tracebacks,
    wait_until,
)
from tests.support.factories import UserFactory, actor, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


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
            await a.send({"action": "choose", "turn": 1, "roll": 1, "box": box, "confirm_zero": 1})
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
