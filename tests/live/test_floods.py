"""One account flooding its sockets, on the production set-up (two daphne processes of the project on
the test database and Redis, real WebSocket clients): in bursts it is cut off by the caps and the rate
limits, and the other players' actions still go through, also when it sends at wire speed (the
production server stops reading a socket whose messages queue up). They need REDIS_URL, as the other
production faults do; `pytest -s` prints the figures."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import threading
import time

import pytest
from django.utils import timezone

from dicegame.models import Game
from tests.support.daphne_servers import (
    ROOT,
    Screen,
    box_for,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    friends_game,
    game_path,
    in_db,
    no_tracebacks,
    process_row,
)
from tests.support.factories import UserFactory, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

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
                # A zero is asked about first (as on the page): the player has said yes already.
                message = {"action": "choose", "turn": turn, "roll": roll, "box": box, "confirm_zero": 1}
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
