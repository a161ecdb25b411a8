"""Benchmark: how a live action starts on PostgreSQL, the game's lock, seats and turn in play read in
three statements (the baseline: `kernel.lock_and_bump`, `kernel.seats`, the turn) against one
(`kernel.lock_bump_and_read`), each in its own transaction, as an action's are.

A started two-player game in a temporary database (created on --pg-server, dropped at the end), the
ORM in this process. Both ways alternate (--rounds of --n transactions each), first in an otherwise idle
process, then with --busy threads spinning beside it in the process (a web process's event loop and
other sockets' moves: each statement's answer then also waits for the interpreter lock, up to the
switch interval). Prints the wall time and the thread's CPU per transaction (median, p99) and the
ratios against the baseline.

    .venv/bin/python bench/lock_and_read.py --pg-server postgres://USER:PASS@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from daphne_server import SETTINGS_MODULE
from live_games import Database, django_setup, make_games, make_players, migrate


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pg-server", required=True, help="postgres://USER:PASS@HOST:PORT/postgres")
    parser.add_argument("--n", type=int, default=100, help="transactions per way and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--busy", default="0,1", help="spinning threads beside, one run each")
    args = parser.parse_args()
    db = Database(SimpleNamespace(pg_server=args.pg_server, database_url=None), Path(tempfile.mkdtemp()))
    db.create()
    try:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=db.url,
            DJANGO_SETTINGS_MODULE=SETTINGS_MODULE,
            DEBUG="false",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1",
        )
        env.pop("REDIS_URL", None)
        migrate(env)
        django_setup(env)
        return measure(args)
    finally:
        from django.db import connections

        connections.close_all()
        print(db.drop())


def measure(args) -> int:
    from django.db import transaction

    from dicegame.play import kernel

    game_id = make_games(make_players(2), 1)[0][0]

    def three():
        game = kernel.lock_and_bump(game_id)
        game.seats = kernel.seats(game_id)
        return kernel.current_turn(game)

    def one():
        return kernel.current_turn(kernel.lock_bump_and_read(game_id))

    ways = {"three statements": three, "one statement": one}
    for busy in [int(b) for b in args.busy.split(",")]:
        stop = threading.Event()

        def spin(stop=stop):
            while not stop.is_set():
                pass

        spinners = [threading.Thread(target=spin, daemon=True) for _ in range(busy)]
        for thread in spinners:
            thread.start()
        figures: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in ways}
        try:
            for _round in range(args.rounds):
                for name, way in ways.items():
                    wall, cpu = figures[name]
                    for _ in range(args.n if busy == 0 else max(10, args.n // 5)):
                        started, cpu_started = time.perf_counter(), time.thread_time()
                        with transaction.atomic():
                            turn = way()
                        wall.append((time.perf_counter() - started) * 1000)
                        cpu.append((time.thread_time() - cpu_started) * 1000)
                        assert turn is not None and turn.player is not None
        finally:
            stop.set()
            for thread in spinners:
                thread.join()
        print(f"{busy} busy thread(s) beside, {args.rounds} rounds, alternated:")
        base_wall, base_cpu = figures["three statements"]
        for name, (wall, cpu) in figures.items():
            line = (
                f"  {name:16s} wall median {statistics.median(wall):7.3f} ms"
                f"  p99 {percentile(wall, 0.99):7.3f}   CPU median {statistics.median(cpu):6.3f} ms"
            )
            if name != "three statements":
                line += (
                    f"   (wall x{statistics.median(wall) / statistics.median(base_wall):.2f}, "
                    f"CPU x{statistics.median(cpu) / statistics.median(base_cpu):.2f} the baseline's)"
                )
            print(f"{line}  n={len(wall)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
