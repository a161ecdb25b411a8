"""Benchmark: the CPU of one game action in the process, without a server: a solo game's hold, over and
over, through play's service alone or through the whole view (Django's test client, the middleware, the
board's answer). CPU time of the process (not wall time) is what it reports first: it moves little with
a busy machine, where the round trips of bench/solo_game.py move a lot.

    cd <a checkout> && .venv/bin/python <path to>/bench/action_cpu.py [--view] [--n N]
        [--pg-server postgres://USER:PASS@HOST:PORT/postgres [--no-server-side-binding]]

Run from the checkout to measure (its code is imported from the current directory), so one copy of this
script measures an older commit too. On SQLite a temporary file; with --pg-server a temporary database
(CREATEd, DROPped at the end). Prints the median (and the least) of the batches' mean CPU per action,
and the median wall time.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time

from in_process import temporary_site

BATCH = 100


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000, help="actions to time (default 2000)")
    parser.add_argument("--view", action="store_true", help="through the view (test client), not the service")
    parser.add_argument("--pg-server", help="a PostgreSQL server whose role may CREATE DATABASE")
    parser.add_argument(
        "--no-server-side-binding",
        action="store_true",
        help="PostgreSQL: Django's default client-side binding",
    )
    args = parser.parse_args()
    with temporary_site(args.pg_server, "bench_action"):
        return run(args)


def run(args) -> int:
    import django
    from django.conf import settings

    if args.no_server_side_binding:
        settings.DATABASES["default"]["OPTIONS"].pop("server_side_binding", None)
        settings.DATABASES["default"]["OPTIONS"].pop("prepare_threshold", None)
    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from dicegame.models import Turn

    call_command("migrate", verbosity=0)
    client = Client()
    started = client.post("/games/solo/", HTTP_HX_REQUEST="true")
    game_id = int(re.search(r"/games/(\d+)", started.headers["HX-Redirect"])[1])
    turn = Turn.objects.get(game_id=game_id, completed_at__isnull=True)
    client.post(f"/games/{game_id}/roll/", {"turn": turn.number, "roll": 0}, HTTP_HX_REQUEST="true")

    if args.view:

        def act(i: int) -> None:
            answer = client.post(
                f"/games/{game_id}/hold/{1 + i % 5}/",
                {"turn": turn.number, "roll": 1},
                HTTP_HX_REQUEST="true",
            )
            assert answer.status_code == 200, answer.status_code
    else:
        from dicegame.actors import GUEST_SESSION_KEY, Actor
        from dicegame.play import actions

        actor = Actor(guest_key=client.session[GUEST_SESSION_KEY], name="Guest")

        def act(i: int) -> None:
            actions.turn_toggle_hold(game_id=game_id, actor=actor, turn=turn.number, roll=1, die=1 + i % 5)

    cpu, wall = [], []
    for i in range(args.n):
        c, w = time.process_time(), time.perf_counter()
        act(i)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    means = [statistics.fmean(cpu[i : i + BATCH]) * 1e3 for i in range(0, len(cpu), BATCH)]
    where = "the view" if args.view else "the service"
    print(
        f"a hold through {where}, {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[1]}: "
        f"CPU {statistics.median(means):.3f} ms (least batch {min(means):.3f}), "
        f"wall median {statistics.median(wall) * 1e3:.3f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
