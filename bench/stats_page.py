"""Benchmark: the server time of a player's statistics page with 10,000 finished games, against a bare view.

Builds a temporary SQLite database (migrate), fills it with one player's history of N games (default
10,000: solo, against the computer and against a friend in turn; every seat with its sheet, total and
rank, every turn logged, every game analysed), starts daphne with production-like settings (as
solo_game.py does), then alternates GET /players/<name>/ and GET /healthz/ over one keep-alive
connection and prints the medians, p90s and median(page) / median(baseline). The leaderboard and the
first page of the history are measured the same way, for comparison.

The games are copies of a few real games (bots of each strength playing with the server's dice recipe),
and so are their analyses' per-seat summaries, which are all the statistics read. The stored `data`
of each analysis (the replay, never read by the statistics) is left empty to keep the file small.

    .venv/bin/python bench/stats_page.py [--games N] [--requests R] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from daphne_server import SETTINGS_MODULE, DaphneServer  # noqa: E402
from solo_game import Client, p90, server_env  # noqa: E402

USERNAME = "bench"
FRIEND = "bench-friend"
TEMPLATES = 12


# -- filling the database (runs in a child process with the server's environment) ----------------------


def template_games(count: int) -> list[tuple[list[str], list, dict]]:
    """`count` real games: (strengths by seat, turn logs, analysis summaries)."""
    from dicegame.rules.dice import new_seed
    from dicegame.strategy import analysis as A
    from dicegame.strategy.bot_games import bot_game

    out = []
    line_ups = [["medium"], ["easy", "hard"], ["hard", "medium"]]
    for i in range(count):
        strengths = line_ups[i % len(line_ups)]
        game = bot_game(strengths, new_seed(), i)
        data = A.analyse_game(game.logs, range(len(strengths)))
        out.append((strengths, game.logs, A.summaries(data), [s.to_dict() for s in game.sheets]))
    return out


def populate(games: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import Friendship, Profile
    from dicegame.models import Game, GameAnalysis, Player, Turn
    from dicegame.rules.dice import commitment, new_seed
    from dicegame.strategy import analysis as A
    from tests.support.games import logged_turn

    User = get_user_model()
    user = User.objects.create_user(USERNAME, password="bench-password-not-secret")
    friend = User.objects.create_user(FRIEND, password="bench-password-not-secret")
    low, high = sorted((user.pk, friend.pk))
    Friendship.objects.create(user_low_id=low, user_high_id=high)
    Profile.objects.create(user=user, leaderboard_opt_in=True)
    templates = template_games(TEMPLATES)
    rng = random.Random(1)
    now = timezone.now()
    kinds = [Game.Kind.SOLO, Game.Kind.COMPUTER, Game.Kind.FRIENDS]
    batch = 1000
    for start in range(0, games, batch):
        with transaction.atomic():
            rows = []
            picks = []
            for i in range(start, min(games, start + batch)):
                seed = new_seed()
                kind = kinds[i % 3]
                template = templates[rng.randrange(TEMPLATES)]
                while (len(template[0]) == 1) != (kind == Game.Kind.SOLO):
                    template = templates[rng.randrange(TEMPLATES)]
                picks.append(template)
                rows.append(
                    Game(
                        kind=kind,
                        status=Game.Status.FINISHED,
                        seed=seed,
                        seed_commitment=commitment(seed),
                        finished_at=now - timezone.timedelta(minutes=games - i),
                    )
                )
            created = Game.objects.bulk_create(rows)
            players = []
            for game, (strengths, _logs, _summary, sheets) in zip(created, picks, strict=True):
                totals = [_total(s) for s in sheets]
                for seat, sheet in enumerate(sheets):
                    if seat == 0:
                        who = {"user": user, "name": USERNAME}
                    elif game.kind == Game.Kind.FRIENDS:
                        who = {"user": friend, "name": FRIEND}
                    else:
                        who = {"bot_strength": strengths[seat], "name": f"Computer ({strengths[seat]})"}
                    players.append(
                        Player(
                            game=game,
                            seat=seat,
                            boxes=sheet["boxes"],
                            penta_bonus=sheet["penta_bonus"],
                            total=totals[seat],
                            rank=1 + sum(t > totals[seat] for t in totals),
                            **who,
                        )
                    )
            players = Player.objects.bulk_create(players)
            by_game: dict[int, list] = {}
            for p in players:
                by_game.setdefault(p.game_id, []).append(p)
            turns = []
            for game, (_s, logs, _summary, _sheets) in zip(created, picks, strict=True):
                seats = by_game[game.pk]
                for log in logs:
                    turns.append(logged_turn(game, seats[log.seat], log, completed_at=now))
            Turn.objects.bulk_create(turns, batch_size=2000)
            GameAnalysis.objects.bulk_create(
                [
                    GameAnalysis(game=game, version=A.ANALYSIS_VERSION, data={}, summary=summary)
                    for game, (_s, _l, summary, _sh) in zip(created, picks, strict=True)
                ]
            )
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    print(json.dumps({"session": session.session_key}))


def _total(sheet: dict) -> int:
    from dicegame.rules.scoring import Scoresheet

    return Scoresheet.from_dict(sheet).total


# -- the run -----------------------------------------------------------------------------------------


def measure(client: Client, path: str, requests: int) -> tuple[list[float], list[float]]:
    pages, base = [], []
    for i in range(3):  # warm up (first view, caches), not counted
        status, _h, body, elapsed = client.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {body[:300]}")
        if i == 0:
            print(f"  first (cold) GET {path}: {elapsed * 1000:.1f} ms")
    for _ in range(requests):
        status, _h, body, elapsed = client.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {body[:300]}")
        pages.append(elapsed)
        status, _h, _b, elapsed = client.request("GET", "/healthz/")
        base.append(elapsed)
    return pages, base


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=30, help="timed requests per page (default 30)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--populate", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.populate is not None:
        populate(args.populate)
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="penta-bench-stats-"))
    server = DaphneServer(workdir, server_env(workdir / "bench.sqlite3"))
    client = Client(server.port)
    try:
        # Full pages need the static files' URLs: production's manifest storage would need collectstatic
        # first, so the server uses the plain storage (as the tests do); lookups cost the same.
        (workdir / "bench_settings.py").write_text(
            f"from {SETTINGS_MODULE} import *  # noqa: F403\n"
            "STORAGES = {**STORAGES, 'staticfiles': "
            "{'BACKEND': 'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
        )
        env = server.env
        env["DJANGO_SETTINGS_MODULE"] = "bench_settings"
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(workdir), str(ROOT), env.get("PYTHONPATH", "")])
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True
        )
        started = time.monotonic()
        filled = subprocess.run(
            [sys.executable, __file__, "--populate", str(args.games)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        session = json.loads(filled.stdout.strip().splitlines()[-1])["session"]
        print(f"filled {args.games} games in {time.monotonic() - started:.1f} s")
        server.start()
        client.cookies["sessionid"] = session
        figures = {"games": args.games, "pages": []}
        print(f"{'page':<28} {'median ms':>10} {'p90 ms':>9} {'base ms':>8} {'ratio':>7}")
        for label, path in (
            ("statistics /players/bench/", f"/players/{USERNAME}/"),
            ("leaderboard (friends)", "/leaderboard/"),
            ("leaderboard (site)", "/leaderboard/?scope=site"),
            ("history page 1", "/games/"),
        ):
            pages, base = measure(client, path, args.requests)
            m, b = statistics.median(pages), statistics.median(base)
            row = {
                "page": label,
                "median_ms": m * 1000,
                "p90_ms": p90(pages) * 1000,
                "baseline_median_ms": b * 1000,
                "ratio": m / b,
            }
            figures["pages"].append(row)
            print(f"{label:<28} {m * 1000:>10.1f} {p90(pages) * 1000:>9.1f} {b * 1000:>8.2f} {m / b:>7.1f}")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return 0
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        if isinstance(exc, subprocess.CalledProcessError):
            print(exc.stderr, file=sys.stderr)
        print(server.log_tail(), file=sys.stderr)
        return 1
    finally:
        client.close()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS_MODULE)
    sys.exit(main())
