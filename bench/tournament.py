"""Benchmark: what tournaments cost.

1. A round's table for 200 entrants. A tournament of 200 entrants and 3 rounds, two of them settled
   (made-up totals from 120 to 380, ties among them) and the third in play (150 finished, 30 playing, 20
   not started). Timed: reading and working out the table (`selectors.load` + `selectors.table`: the
   matchpoints of every settled round, the places, the round in play's status), and the push the clock
   sends to the open pages after a change (the same, plus the standings rendered once per language and
   handed to the channel layer). Baseline, measured in the same run and alternating with them: the daily
   challenge's leaderboard of a day with 200 ranked players (`daily.selectors.leaderboard`), the table
   the project already had.
2. What a finished game adds when it belongs to a tournament. Solo games one confirm from their end
   (12 turns written as a bot plays them on the game's own dice, the 13th rolled and its box chosen),
   200 of them a tournament round's (200 entrants, the round open), 200 ordinary solo games. Their last
   confirms alternate between the two kinds, so noise hits both alike; each is timed whole: the
   finishing transaction, with the tournament's listener for a round's game (its total into the
   standings, a change noted for the clock), and what follows its commit. Left out of both: the review's
   analysis and the puzzles, which follow every game's end and cost both kinds alike (left in, their
   noise hides the difference, and the round's games, on shared dice, warm the strategy's cache for
   each other). The round's close (everyone has played it) is the clock's next push, not timed here.

Medians and p99s, and each figure as a ratio to its baseline. On a SQLite test database by default;
with DATABASE_URL set, on that PostgreSQL server (a test database of its own, dropped at the end).

    .venv/bin/python bench/tournament.py [--repeats R] [--json PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
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

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

ENTRANTS = 200


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def figures(name: str, seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    out = {"n": len(ms), "median_ms": round(statistics.median(ms), 3), "p99_ms": round(p99(ms), 3)}
    print(f"{name:>58}: median {out['median_ms']:8.3f} ms   p99 {out['p99_ms']:8.3f} ms   (n={len(ms)})")
    return out


def ratio(name: str, figure: dict, baseline: dict) -> float:
    value = round(figure["median_ms"] / baseline["median_ms"], 2)
    print(f"{name:>58}: {value:.2f} x the baseline")
    return value


def people(n: int, prefix: str) -> list:
    from tests.support.factories import UserFactory

    return [UserFactory(username=f"{prefix}{i:03d}") for i in range(n)]


# -- 1. a round's table ---------------------------------------------------------------------------------


def tables(repeats: int) -> dict:
    from django.db.models import F

    from daily import selectors as daily_selectors
    from daily import services as daily_services
    from dicegame.rules import days
    from tests.support.history import made_up_result
    from tests.support.tournaments import made_up_round_game, round_of, tournament_of
    from tournaments import pushes, rounds, selectors
    from tournaments.models import Entry, Round, RoundGame, Tournament

    rng = random.Random(1)
    users = people(ENTRANTS, "table")
    t = tournament_of(users[0], *users[1:], rounds=3, max_entrants=ENTRANTS, access=Tournament.Access.PUBLIC)
    # Two hours ago: rounds 1 and 2 are over, round 3 (an hour each) is in play.
    Round.objects.filter(tournament=t).update(
        opens_at=F("opens_at") - dt.timedelta(hours=2), closes_at=F("closes_at") - dt.timedelta(hours=2)
    )
    entries = list(Entry.objects.filter(tournament=t).order_by("pk"))
    for number in (1, 2):
        rnd = round_of(t, number)
        for entry in entries:
            made_up_round_game(entry, rnd, rng.randrange(120, 381))
        assert rounds.round_settle(round_id=rnd.pk)
        Round.objects.filter(pk=rnd.pk).update(par=254)
    third = round_of(t, 3)
    for i, entry in enumerate(entries[:180]):
        made_up_round_game(entry, third, rng.randrange(120, 381), finished=i < 150)
    assert RoundGame.objects.filter(round__tournament=t).count() == 2 * ENTRANTS + 180

    # The daily's table of a day with as many players: the baseline.
    date = days.today()
    daily_services.publish_commitments()
    for user in people(ENTRANTS, "daily"):
        made_up_result(user, date, rng.randrange(120, 381))
    daily_selectors.leaderboard(date)  # its par, worked out once

    t = Tournament.objects.get(pk=t.pk)
    timed = {"table": [], "push": [], "daily": []}
    for _ in range(repeats):
        start = time.perf_counter()
        rows = selectors.table(selectors.load(t))
        timed["table"].append(time.perf_counter() - start)
        assert len(rows) == ENTRANTS
        start = time.perf_counter()
        pushes.push_standings(tournament_id=t.pk)
        timed["push"].append(time.perf_counter() - start)
        start = time.perf_counter()
        board = daily_selectors.leaderboard(date)
        timed["daily"].append(time.perf_counter() - start)
        assert len(board) == ENTRANTS
    print(f"1. a round's table for {ENTRANTS} entrants (3 rounds: 2 settled, 1 in play)")
    out = {"table": figures("the table (load + matchpoints + places)", timed["table"])}
    out["push"] = figures("the push (the table, rendered in 2 languages, sent)", timed["push"])
    out["daily_baseline"] = figures(f"baseline: the daily's leaderboard of {ENTRANTS}", timed["daily"])
    out["table_ratio"] = ratio("the table", out["table"], out["daily_baseline"])
    out["push_ratio"] = ratio("the push", out["push"], out["daily_baseline"])
    return out


# -- 2. what a finished game adds ------------------------------------------------------------------------


def finishing() -> dict:
    from analysis import services as review_services
    from dicegame import events, play
    from dicegame.actors import Actor
    from puzzles import services as puzzle_services
    from tests.support.factories import actor
    from tests.support.tournaments import near_the_end, round_of, to_the_last_turn, tournament_of
    from tournaments import pushes
    from tournaments.models import Tournament

    prefix = "fin"
    users = people(ENTRANTS, f"{prefix}t")
    t = tournament_of(users[0], *users[1:], rounds=2, max_entrants=ENTRANTS, access=Tournament.Access.PUBLIC)
    strengths = ("easy", "medium", "hard")
    in_tournament = [(near_the_end(t, u, strengths[i % 3]), u) for i, u in enumerate(users)]
    solo_users = people(ENTRANTS, f"{prefix}s")
    ordinary = [
        (to_the_last_turn(play.game_create_solo(actor=actor(u)), u, strengths[i % 3]), u)
        for i, u in enumerate(solo_users)
    ]
    # The analysis and the puzzles follow every game's end after its commit and cost both kinds alike:
    # left out (see the docstring).
    listeners = [
        (events.GameFinished, review_services.on_game_finished),
        (events.GamesAnalysed, puzzle_services.on_games_analysed),
    ]
    for event, listener in listeners:
        events.unsubscribe(event, listener)
    timed = {"tournament": [], "solo": []}
    try:
        for (tg, tu), (sg, su) in zip(in_tournament, ordinary, strict=True):
            for kind, game, user in (("tournament", tg, tu), ("solo", sg, su)):
                who = Actor(user_id=user.pk, name=user.username)
                start = time.perf_counter()
                play.turn_confirm(game_id=game.pk, actor=who, turn=13, roll=1)
                timed[kind].append(time.perf_counter() - start)
    finally:
        for event, listener in listeners:
            events.subscribe(event, listener)
    pushes.push_due()  # the clock's next sweep: everyone has played the round, which closes
    assert round_of(t, 1).settled_at is not None
    out = {"tournament": figures("a round's game's last confirm", timed["tournament"])}
    out["solo"] = figures("baseline: a solo game's last confirm", timed["solo"])
    out["added_median_ms"] = round(out["tournament"]["median_ms"] - out["solo"]["median_ms"], 3)
    out["ratio"] = ratio("a round's game against a solo game", out["tournament"], out["solo"])
    print(f"{'the tournament adds':>58}: {out['added_median_ms']:8.3f} ms (median)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=60)
    parser.add_argument("--json")
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from dicegame.strategy import Strategy

        Strategy.shared()  # the solved table, loaded once before anything is timed
        print(f"database: {connection.vendor}")
        out = {"database": connection.vendor, "tables": tables(args.repeats)}
        print("2. what a finished game adds when it belongs to a tournament")
        out["finishing"] = finishing()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
