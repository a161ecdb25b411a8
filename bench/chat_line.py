"""Benchmark: the CPU of one chat line in the process, without a server, against a game action measured in
the same run: a reaction, a quick phrase and a line of free text said by a player of a live game between
friends (chat.services.line_post: the checks, the row, the push handed to the channel layer), with the
game as the player's socket keeps it after their first line and as a first line reads it; and the
baseline, a solo game's hold through play's service (bench/action_cpu.py).

Every call runs as on a web process: in a worker thread of a running event loop, so that the push leaves
through the process's courier on the loop (the in-memory channel layer here). CPU time of the whole
process is counted, the courier's included.

    cd <a checkout> && .venv/bin/python <path to>/bench/chat_line.py [--n N]
        [--pg-server postgres://USER:PASS@HOST:PORT/postgres]

On SQLite a temporary file; with --pg-server a temporary database (CREATEd, DROPped at the end). Prints
each kind's median of its batches' mean CPU per call, and its ratio to the hold's.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time

from in_process import temporary_site

BATCH = 50


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=500, help="calls of each kind to time (default 500)")
    parser.add_argument("--pg-server", help="a PostgreSQL server whose role may CREATE DATABASE")
    args = parser.parse_args()
    with temporary_site(args.pg_server, "bench_chat"):
        return asyncio.run(run(args))


def setup(n: int) -> dict:
    """Two friends who have finished a few games, and n started games between them (a fresh game for
    every line: the rate limit counts lines per person and game); a solo game rolled once."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import Friendship
    from chat import selectors
    from dicegame.actors import GUEST_SESSION_KEY, Actor
    from dicegame.models import Game, Player, Turn
    from dicegame.play import rooms

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    ann, bob = users.create_user("ann", password="x"), users.create_user("bob", password="x")
    low, high = sorted((ann, bob), key=lambda u: u.pk)
    Friendship.objects.create(user_low=low, user_high=high)
    for user in (ann, bob):
        for _ in range(selectors.MIN_FINISHED_GAMES):
            Player.objects.create(game=Game.objects.create(status=Game.Status.FINISHED), user=user, seat=0)
    host, guest = Actor(user_id=ann.pk, name="ann"), Actor(user_id=bob.pk, name="bob")
    games = []
    for _ in range(n):
        game = rooms.room_create(actor=host, seats=2, turn_seconds=0)
        rooms.room_join_by_link(token=game.invite_token, actor=guest)
        rooms.room_start(game_id=game.pk, actor=host)
        games.append(game.pk)

    client = Client()
    started = client.post("/games/solo/", HTTP_HX_REQUEST="true")
    solo = int(re.search(r"/games/(\d+)", started.headers["HX-Redirect"])[1])
    turn = Turn.objects.get(game_id=solo, completed_at__isnull=True)
    client.post(f"/games/{solo}/roll/", {"turn": turn.number, "roll": 0}, HTTP_HX_REQUEST="true")
    solo_actor = Actor(guest_key=client.session[GUEST_SESSION_KEY], name="Guest")
    return {"ann": ann, "games": games, "solo": solo, "turn": turn.number, "solo_actor": solo_actor}


def timed(calls) -> tuple[list[float], list[float]]:
    """Each call's process CPU and wall time, in its own worker thread's turn (as a socket's would)."""
    cpu, wall = [], []
    for call in calls:
        c, w = time.process_time(), time.perf_counter()
        call()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return cpu, wall


async def run(args) -> int:
    import django
    from asgiref.sync import sync_to_async

    await sync_to_async(django.setup, thread_sensitive=False)()
    from django.conf import settings

    from chat import selectors, services
    from dicegame.play import actions

    data = await sync_to_async(setup, thread_sensitive=False)(args.n * 4)
    ann, games = data["ann"], data["games"]

    def lines(kind: str, text: str, chunk: list[int], kept: bool):
        def say(game_id: int):
            table = selectors.table(game_id) if kept else None
            if kept:  # the socket read it for an earlier line: not this line's work
                return lambda: services.line_post(
                    game_id=game_id, user=ann, kind=kind, text=text, table=table
                )
            return lambda: services.line_post(game_id=game_id, user=ann, kind=kind, text=text)

        return [say(game_id) for game_id in chunk]

    def hold(i: int):
        return lambda: actions.turn_toggle_hold(
            game_id=data["solo"], actor=data["solo_actor"], turn=data["turn"], roll=1, die=1 + i % 5
        )

    n = args.n
    # A checkout from before the game was kept per socket (2026-12-06) has the first line's path only.
    kept = hasattr(selectors, "Table")
    kinds = {
        "a hold (the baseline)": lambda: [hold(i) for i in range(n)],
        "a reaction, the game kept": lambda: lines("reaction", "fire", games[:n], True),
        "a quick phrase, the game kept": lambda: lines("phrase", "gg", games[n : 2 * n], True),
        "free text, the game kept": lambda: lines("text", "nice roll", games[2 * n : 3 * n], True),
        "a reaction, the game read (a first line)": lambda: lines("reaction", "fire", games[3 * n :], False),
    }
    if not kept:
        kinds = {name: make for name, make in kinds.items() if "kept" not in name}
    results = {}
    for name, make in kinds.items():
        calls = await sync_to_async(make, thread_sensitive=False)()
        cpu, wall = await sync_to_async(timed, thread_sensitive=False)(calls)
        await asyncio.sleep(0.05)  # the courier's last pushes leave
        means = [statistics.fmean(cpu[i : i + BATCH]) * 1e3 for i in range(0, len(cpu), BATCH)]
        results[name] = (
            statistics.median(means),
            statistics.median(wall) * 1e3,
            statistics.quantiles(wall, n=100)[98] * 1e3,
        )
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[1]
    base = results["a hold (the baseline)"][0]
    print(f"chat line CPU in the process, {engine}, {n} calls each (median of {BATCH}-call batches):")
    for name, (cpu_ms, wall_ms, wall_p99) in results.items():
        print(
            f"  {name:42s} CPU {cpu_ms:6.3f} ms  x{cpu_ms / base:4.2f} a hold   "
            f"wall median {wall_ms:6.3f} ms, p99 {wall_p99:6.3f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
