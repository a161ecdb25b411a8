"""Benchmark: what notifications cost play, and how fast the clock sends them.

1. The hook. Whole moves (roll, choose, confirm: the confirm starts the next turn, and notifications
   hears of it through `events.TurnStarted`) in correspondence games between two people, through play's
   public services on a SQLite test database. Moves alternate between the notifications' listener
   subscribed (queueing "your turn" and the reminder, pinging both players' pages) and unsubscribed, so
   noise hits both alike; it prints both medians and p99s and the time the listener adds to a move.
2. Sending. G games started, each with its first turn's "your turn" due for a person with one device on
   a push service on this machine (an HTTP server in a thread, `tests/support/push_service.py`; plain
   http on loopback, which the test settings allow). The clock's sender
   (`notifications.services.send_due`: batches of 100, taking on more while pushes are under way, 2
   quick pushes at once) encrypts each message to the device's keys, signs it with the VAPID key and POSTs
   it (`notifications.transport`, a new connection each); per notification it prints the median and p99
   (a call's time over the notifications it sent) and notifications a second, against the baseline
   measured in the same run: a bare POST of the same size to the same push service with `requests`.

    .venv/bin/python bench/notifications.py [--moves M] [--games G] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "penta.settings_test"
os.environ.setdefault("PENTA_TEST_RUN", f"bench{os.getpid()}")

import django  # noqa: E402

django.setup()

import requests  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def figures(name: str, seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    out = {"n": len(ms), "median_ms": round(statistics.median(ms), 3), "p99_ms": round(p99(ms), 3)}
    print(f"{name:>40}: median {out['median_ms']:8.3f} ms   p99 {out['p99_ms']:8.3f} ms   (n={len(ms)})")
    return out


def people(n: int, prefix: str):
    from tests.support.factories import UserFactory, befriend

    users = [UserFactory(username=f"{prefix}{i}") for i in range(n)]
    for a, b in zip(users[::2], users[1::2], strict=True):
        befriend(a, b)
    return users


def hook(moves: int) -> dict:
    from dicegame import events, play
    from dicegame.rules.turn import ROUNDS
    from dicegame.strategy import computer
    from notifications import services
    from tests.support.factories import actor
    from tests.support.games import current, started_two_player_game

    games = []
    users = people(2 * max(1, moves // (2 * ROUNDS - 2) + 1), "hook")
    for host, friend in zip(users[::2], users[1::2], strict=True):
        games.append(
            (started_two_player_game(host, friend, turn_seconds=0, move_seconds=86400), host, friend)
        )
    timed = {True: [], False: []}
    on = True
    made = 0
    for game, host, friend in games:
        by_id = {host.pk: host, friend.pk: friend}
        for _ in range(2 * ROUNDS - 1):  # the last move finishes the game: no turn starts
            if made == moves:
                break
            if on:
                events.subscribe(events.TurnStarted, services.on_turn_started)
            else:
                events.unsubscribe(events.TurnStarted, services.on_turn_started)
            turn = current(game.pk)
            who = actor(by_id[turn.player.user_id])
            t = time.perf_counter()
            play.turn_roll(game_id=game.pk, actor=who, turn=turn.number, roll=0)
            turn = current(game.pk)
            box = computer.auto_commit_box(turn.player.sheet, tuple(turn.dice))
            play.turn_choose_box(game_id=game.pk, actor=who, turn=turn.number, roll=1, box=box.name)
            play.turn_confirm(game_id=game.pk, actor=who, turn=turn.number, roll=1)
            timed[on].append(time.perf_counter() - t)
            on = not on
            made += 1
    events.subscribe(events.TurnStarted, services.on_turn_started)
    print("1. a whole move (roll, choose, confirm) in a correspondence game")
    out = {"with": figures("with the notifications' listener", timed[True])}
    out["without"] = figures("without it", timed[False])
    added = out["with"]["median_ms"] - out["without"]["median_ms"]
    out["added_median_ms"] = round(added, 3)
    out["ratio"] = round(out["with"]["median_ms"] / out["without"]["median_ms"], 3)
    print(f"{'the listener adds':>40}: {added:8.3f} ms a move (median), {out['ratio']:.2f} x")
    return out


def sending(games: int) -> dict:
    from notifications import services
    from notifications.models import Notification
    from tests.support.games import started_two_player_game
    from tests.support.notifications import subscribe
    from tests.support.push_service import BrowserSubscription, PushService

    Notification.objects.all().delete()  # the first part's, for people without a device
    with PushService() as push_service:
        users = people(2 * games, "send")
        for i, (host, friend) in enumerate(zip(users[::2], users[1::2], strict=True)):
            subscribe(host, BrowserSubscription(push_service.endpoint(f"device-{i}")))
            started_two_player_game(host, friend, turn_seconds=0, move_seconds=86400)
        due = Notification.objects.filter(kind=Notification.Kind.YOUR_TURN, state="pending").count()
        per_notification, bare = [], []
        sent = 0
        session_free_post = push_service.endpoint("bare")
        body = os.urandom(230)  # the size of an encrypted "your turn"
        started = time.perf_counter()
        while True:
            t = time.perf_counter()
            n = services.send_due()
            elapsed = time.perf_counter() - t
            if n == 0:
                break
            sent += n
            per_notification.extend([elapsed / n] * n)
            for _ in range(10):  # the baseline, interleaved with the batches
                t = time.perf_counter()
                requests.post(session_free_post, data=body, headers={"TTL": "60"}, timeout=5)
                bare.append(time.perf_counter() - t)
        total = time.perf_counter() - started - sum(bare)
        print(f"2. sending {sent} notifications of {due} due (one device each, a local push service)")
        out = {
            "sent": sent,
            "per_notification": figures("a notification, sent by send_due", per_notification),
        }
        out["bare_post"] = figures("baseline: a bare POST of its size", bare)
        out["ratio"] = round(out["per_notification"]["median_ms"] / out["bare_post"]["median_ms"], 2)
        out["per_second"] = round(sent / total, 1)
        print(f"{'ratio to the bare POST':>40}: {out['ratio']:.2f} x   ({out['per_second']} notifications/s)")
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--json")
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        out = {"hook": hook(args.moves), "sending": sending(args.games)}
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
