"""Benchmark: the pages people read most (the daily, puzzles, a player page, the leaderboards), warm and
under fifty clients, against a bare view through the same middleware.

Builds a temporary database with a realistic population (a few hundred players with friends, many
finished games of every kind with their analyses and turns, rated games and ratings, daily challenges
over some weeks with many attempts a day, a puzzle pool with attempts, some accounts under fair-play
review or marked), starts ONE production-like daphne process (the bench's server settings: DEBUG off,
the production entry point; the game clock off, as `run_timers` runs it in production), then:

1. Warm: one logged-in client alternates each page with GET /bench/bare/ (a view that does nothing,
   through the whole middleware stack) over one keep-alive connection: per page the median, p90 and p99,
   and median(page) / median(bare). The aim: at most 3x.
2. Concurrent: fifty clients (fifty different players, each with its own session; one in five reads in
   Dutch) on a mix of the pages for --seconds, then the same fifty on the bare view for as long:
   requests a second, median and p99 latency, and the web process's CPU per request (/proc), the
   database's too when PostgreSQL runs on this machine.
3. Queries: each page's SQL statements, warm (Django's test client in a child process, on the same
   database and cache).

Every ratio is against the bare view measured in the same run (the machine is shared and noisy).

    .venv/bin/python bench/read_pages.py                       # SQLite, the in-memory cache
    .venv/bin/python bench/read_pages.py --pg-server postgres://u:p@127.0.0.1:5432/postgres \\
        --redis-url redis://127.0.0.1:6379/0                   # production: PostgreSQL + Redis

Exit status 1 if a page failed (a status other than the page's own) or the server did not start.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The project first: bench/winprob.py must not shadow the winprob app in the child processes.
sys.path.insert(0, str(ROOT))

from daphne_server import DaphneServer  # noqa: E402
from live_games import Database, PostgresCpu, machine_busy, pct, redis_cpu  # noqa: E402
from solo_game import BASELINE, Client, server_env  # noqa: E402

TARGET_RATIO = 3.0  # warm, each page against the bare view: at most
BENCH_USER = "bench"


# -- filling the database (a child process with the server's environment) -----------------------------


def _seed(rng: random.Random) -> str:
    """A dice seed (64 hex digits) from the population's seed: the same population every run."""
    return f"{rng.getrandbits(256):064x}"


def _template_games(count: int, rng: random.Random) -> dict[str, list[dict]]:
    """Real games of bots on the server's dice recipe, each with its whole analysis: by kind, solo
    (one seat) and table (2-4 seats). The people's seats are easy, medium or hard players."""
    from dicegame.strategy import analysis as A
    from dicegame.strategy.bot_games import bot_game

    strengths = ("easy", "medium", "medium", "hard")
    out: dict[str, list[dict]] = {"solo": [], "table": []}
    for i in range(count):
        seats = 1 if i % 2 == 0 else rng.choice((2, 2, 3, 4))
        line_up = [rng.choice(strengths) for _ in range(seats)]
        game = bot_game(line_up, _seed(rng), i)
        data = A.analyse_game(game.logs, range(seats))
        out["solo" if seats == 1 else "table"].append(
            {
                "strengths": line_up,
                "logs": game.logs,
                "sheets": [s.to_dict() for s in game.sheets],
                "totals": [s.total for s in game.sheets],
                "data": data,
                "summary": A.summaries(data),
            }
        )
    return out


class Filler:
    """Inserts games copied from the templates, in batches (bulk_create), with their seats, turns and
    analyses."""

    def __init__(self, now):
        self.now = now
        self.pending: list[tuple] = []  # (Game, template, seat owners, options)

    def add(self, game, template: dict, owners: list[dict], *, full_data: bool = False, stand_in_seat=None):
        self.pending.append((game, template, owners, full_data, stand_in_seat))

    def flush(self) -> list:
        from django.db import transaction

        from dicegame.models import Game, GameAnalysis, Player, Turn
        from dicegame.strategy import analysis as A
        from tests.support.games import logged_turn

        if not self.pending:
            return []
        with transaction.atomic():
            games = Game.objects.bulk_create([p[0] for p in self.pending])
            players = []
            for game, (_g, template, owners, _full, _stand_in) in zip(games, self.pending, strict=True):
                totals = template["totals"]
                for seat, sheet in enumerate(template["sheets"]):
                    players.append(
                        Player(
                            game=game,
                            seat=seat,
                            boxes=sheet["boxes"],
                            penta_bonus=sheet["penta_bonus"],
                            total=totals[seat],
                            rank=None
                            if game.kind == Game.Kind.SOLO
                            else 1 + sum(t > totals[seat] for t in totals),
                            **owners[seat],
                        )
                    )
            players = Player.objects.bulk_create(players)
            by_game: dict[int, list] = defaultdict(list)
            for p in players:
                by_game[p.game_id].append(p)
            turns, analyses = [], []
            for game, (_g, template, _owners, full, stand_in_seat) in zip(games, self.pending, strict=True):
                seats = by_game[game.pk]
                stand_ins = 0
                for log in template["logs"]:
                    stand_in = log.seat == stand_in_seat and stand_ins < 3
                    stand_ins += stand_in
                    turns.append(
                        logged_turn(
                            game, seats[log.seat], log, stand_in=stand_in, completed_at=game.finished_at
                        )
                    )
                analyses.append(
                    GameAnalysis(
                        game=game,
                        version=A.ANALYSIS_VERSION,
                        # The whole analysis where a page reads it (a daily attempt's result, the puzzles'
                        # source games); the small summary, which is all the statistics read, everywhere.
                        data=template["data"] if full else {},
                        summary=template["summary"],
                    )
                )
            Turn.objects.bulk_create(turns, batch_size=2000)
            GameAnalysis.objects.bulk_create(analyses, batch_size=200)
        self.pending = []
        return games


def populate(args) -> None:
    import django

    django.setup()
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import Friendship, Profile
    from daily.models import DailyAttempt, DailySeed
    from daily.services import day_par, publish_commitments, today
    from dicegame.models import Game, Player
    from dicegame.rules import dice
    from puzzles.models import Attempt, Puzzle, PuzzleRating, PuzzleReveal
    from puzzles.services import add_game_puzzles
    from ratings.services import game_rate

    rng = random.Random(args.seed)
    now = timezone.now()
    started = time.monotonic()
    User = get_user_model()

    # People: the bench's active player first, then the others, most active first.
    names = [BENCH_USER] + [f"{rng.choice(FIRST_NAMES)}{i}" for i in range(1, args.players)]
    User.objects.bulk_create([User(username=n, password=make_password(None)) for n in names])
    users = list(User.objects.filter(username__in=names).order_by("pk"))
    by_name = {u.username: u for u in users}
    users = [by_name[n] for n in names]
    ids = [u.pk for u in users]
    clients = ids[: args.clients]  # the concurrent phase's players (the bench player first)
    # Fair play: a few accounts under review (off the boards except to themselves) and marked.
    standing = {}
    for uid in rng.sample(ids[args.clients :], max(2, args.players // 40)):
        standing[uid] = Profile.Standing.REVIEW
    for uid in rng.sample([u for u in ids[args.clients :] if u not in standing], max(1, args.players // 100)):
        standing[uid] = Profile.Standing.MARKED
    opted_in = {uid for i, uid in enumerate(ids) if i == 0 or rng.random() < 0.6}
    Profile.objects.bulk_create(
        [
            Profile(
                user_id=uid,
                leaderboard_opt_in=uid in opted_in,
                # On the site-wide boards, their pages are for everyone (the model's constraint).
                games_visible_to=Profile.Audience.EVERYONE if uid in opted_in else Profile.Audience.FRIENDS,
                standing=standing.get(uid, Profile.Standing.GOOD),
                last_seen=now,
            )
            for uid in ids
        ]
    )
    # Friends: a random graph, about `--friends` each (the active players more).
    pairs = set()
    for i, uid in enumerate(ids):
        wanted = args.friends * (2 if i < args.clients else 1) // 2
        for other in rng.sample(ids, min(len(ids) - 1, wanted + 1)):
            if other != uid:
                pairs.add((min(uid, other), max(uid, other)))
    Friendship.objects.bulk_create([Friendship(user_low_id=a, user_high_id=b) for a, b in sorted(pairs)])
    friends: dict[int, list[int]] = defaultdict(list)
    for a, b in pairs:
        friends[a].append(b)
        friends[b].append(a)
    print(
        f"  {len(ids)} players, {len(pairs)} friendships, {len(standing)} under review or marked",
        file=sys.stderr,
    )

    templates = _template_games(args.templates, rng)
    print(f"  {args.templates} template games analysed ({time.monotonic() - started:.0f} s)", file=sys.stderr)

    def person(uid: int) -> dict:
        return {"user_id": uid, "name": users[ids.index(uid)].username}

    def bot(strength: str, seat: int, seats: int) -> dict:
        label = f"Computer ({strength})" if seats == 2 else f"Computer {seat} ({strength})"
        return {"bot_strength": strength, "name": label}

    def new_game(kind, finished_at, seed: str | None = None, **extra) -> Game:
        seed = seed or _seed(rng)
        return Game(
            kind=kind,
            status=Game.Status.FINISHED,
            seed=seed,
            seed_commitment=dice.commitment(seed),
            finished_at=finished_at,
            **extra,
        )

    # Finished games of every kind: the players' activity falls off (a few play a lot, most a little).
    weights = [1 / (i + 1) ** 0.8 for i in range(len(ids))]
    filler = Filler(now)
    rated_games: list[int] = []
    first_of_template: set[int] = set()
    span = dt.timedelta(days=args.days + 60)
    for n in range(args.games):
        host = rng.choices(ids, weights)[0]
        finished_at = now - span + span * (n + 1) / (args.games + 1)
        roll = rng.random()
        pals = friends.get(host, [])
        if roll < 0.38:
            t = rng.randrange(len(templates["solo"]))
            template = templates["solo"][t]
            hints = rng.random() < 0.05
            game = new_game(Game.Kind.SOLO, finished_at, hints_used=hints)
            owners = [person(host)]
            full = ("solo", t) not in first_of_template
            first_of_template.add(("solo", t))
            filler.add(game, template, owners, full_data=full)
        elif roll < 0.65 or not pals:
            t = rng.randrange(len(templates["table"]))
            template = templates["table"][t]
            seats = len(template["sheets"])
            game = new_game(
                Game.Kind.COMPUTER, finished_at, hints_used=rng.random() < 0.05, seats_wanted=seats
            )
            owners = [person(host)] + [bot(template["strengths"][s], s, seats) for s in range(1, seats)]
            full = ("table", t) not in first_of_template
            first_of_template.add(("table", t))
            filler.add(game, template, owners, full_data=full)
        elif roll < 0.97:
            t = rng.randrange(len(templates["table"]))
            template = templates["table"][t]
            seats = min(len(template["sheets"]), 1 + len(pals))
            while len(template["sheets"]) != seats:
                template = rng.choice(templates["table"])
            others = rng.sample(pals, seats - 1)
            rated = rng.random() < 0.5
            game = new_game(Game.Kind.FRIENDS, finished_at, rated=rated, seats_wanted=seats, host_id=host)
            stand_in_seat = 1 if rng.random() < 0.03 else None
            filler.add(
                game, template, [person(host)] + [person(o) for o in others], stand_in_seat=stand_in_seat
            )
        else:  # pass and play on one device: the creator's seat only is theirs
            template = rng.choice(templates["table"])
            seats = len(template["sheets"])
            game = new_game(Game.Kind.LOCAL, finished_at, seats_wanted=seats, host_id=host)
            owners = [{"controller_id": host, "name": rng.choice(FIRST_NAMES)} for _ in range(seats)]
            filler.add(game, template, owners)
        if len(filler.pending) >= 500:
            for g in filler.flush():
                if g.rated:
                    rated_games.append(g.pk)
    for g in filler.flush():
        if g.rated:
            rated_games.append(g.pk)
    print(f"  {args.games} finished games ({time.monotonic() - started:.0f} s)", file=sys.stderr)

    # Ratings: every rated game applied in the order they finished, as the finishing transaction does.
    for game in (
        Game.objects.filter(pk__in=rated_games).order_by("finished_at", "pk").iterator(chunk_size=200)
    ):
        with transaction.atomic():
            game_rate(game, list(game.players.all()))
    print(f"  {len(rated_games)} rated games rated ({time.monotonic() - started:.0f} s)", file=sys.stderr)

    # The daily challenge: the past `--days` days and today, many attempts a day (every client player
    # every day, so they have streaks and today's ranks), some by guests (unranked).
    first = today(now)
    publish_commitments(now)
    for d in range(args.days, 0, -1):
        date = first - dt.timedelta(days=d)
        seed = _seed(rng)
        DailySeed.objects.get_or_create(
            date=date, defaults={"seed": seed, "commitment": dice.commitment(seed)}
        )
    seeds = dict(DailySeed.objects.values_list("date", "seed"))
    attempts = 0
    for d in range(args.days, -1, -1):
        date = first - dt.timedelta(days=d)
        players = set(clients) | {uid for uid in ids if rng.random() < args.daily_share}
        players = [uid for uid in ids if uid in players]
        # Today: the day is still going, so the attempts finished before now.
        day_start = now - dt.timedelta(hours=6) if d == 0 else now - dt.timedelta(days=d, hours=12)
        rows = []
        for i, uid in enumerate(players + [None] * args.daily_guests):
            t = rng.randrange(len(templates["solo"]))
            finished_at = day_start + dt.timedelta(seconds=i * 20)
            game = new_game(Game.Kind.SOLO, finished_at, seed=seeds[date], daily_date=date)
            guest = "" if uid else f"{rng.getrandbits(128):032x}"
            owner = person(uid) if uid else {"guest_key": guest, "name": "Guest"}
            filler.add(game, templates["solo"][t], [owner], full_data=True)
            rows.append((uid, guest, finished_at))
        games = filler.flush()
        DailyAttempt.objects.bulk_create(
            [
                DailyAttempt(
                    date=date,
                    game=g,
                    user_id=uid,
                    guest_key=guest,
                    ranked=uid is not None,
                    started_at=at - dt.timedelta(minutes=6),
                )
                for g, (uid, guest, at) in zip(games, rows, strict=True)
            ]
        )
        attempts += len(rows)
        if d:
            day_par(date)
    print(
        f"  {args.days + 1} daily days, {attempts} attempts ({time.monotonic() - started:.0f} s)",
        file=sys.stderr,
    )

    # Puzzles: the pool from the analysed games that keep their whole analysis (each template's first
    # copy), as the finished games' subscriber adds them; then attempts and reveals.
    for game_id in (
        Game.objects.filter(daily_date__isnull=True, analysis__data__has_key="seats")
        .values_list("pk", flat=True)
        .order_by("pk")
    ):
        add_game_puzzles(game_id)
    puzzle_ids = list(Puzzle.objects.values_list("pk", flat=True))
    tried: list[Attempt] = []
    reveals: list[PuzzleReveal] = []
    ratings = []
    for i, uid in enumerate(ids):
        if i >= args.clients and rng.random() < 0.4:
            continue
        # Most of the pool, not all of it: the next puzzle is still the nearest untried one.
        done = rng.sample(puzzle_ids, min(len(puzzle_ids) * 2 // 3, rng.randrange(10, 400)))
        solved = 0
        for pid in done:
            correct = rng.random() < 0.6
            solved += correct
            rating = 1500 + rng.gauss(0, 150)
            tried.append(
                Attempt(
                    puzzle_id=pid,
                    user_id=uid,
                    choice={},
                    correct=correct,
                    rating_before=rating,
                    rating_after=rating + (8 if correct else -8),
                    puzzle_rating_before=1500,
                    puzzle_rating_after=1500,
                )
            )
            reveals.append(PuzzleReveal(puzzle_id=pid, user_id=uid))
        ratings.append(
            PuzzleRating(
                user_id=uid, rating=1500 + rng.gauss(0, 150), rd=80, attempts=len(done), solved=solved
            )
        )
    PuzzleRating.objects.bulk_create(ratings)
    Attempt.objects.bulk_create(tried, batch_size=2000)
    PuzzleReveal.objects.bulk_create(reveals, batch_size=2000)
    print(
        f"  {len(puzzle_ids)} puzzles, {len(tried)} attempts ({time.monotonic() - started:.0f} s)",
        file=sys.stderr,
    )

    # The versions of what the pages cache, as the services' writes would have left them (the data
    # above was written in bulk, behind them). A commit from before them has none to start.
    try:
        from core import versions
    except ImportError:
        versions = None
    if versions is not None:
        versions.bump(
            versions.SITE,
            versions.PEOPLE,
            versions.DAILY,
            versions.PUZZLES,
            *(versions.user(uid) for uid in ids),
            *(versions.day(date) for date in seeds),
        )

    # One logged-in session per client player, in the configured session engine.
    store = import_module(settings.SESSION_ENGINE).SessionStore
    backend = "django.contrib.auth.backends.ModelBackend"
    sessions = []
    for uid in clients:
        user = users[ids.index(uid)]
        session = store()
        session[SESSION_KEY] = str(uid)
        session[BACKEND_SESSION_KEY] = backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        sessions.append(session.session_key)
    # Whose page each client reads: its own, and an active friend's.
    friend_pages = []
    for uid in clients:
        pals = sorted(friends.get(uid, []), key=ids.index)
        visible = [p for p in pals if standing.get(p) is None] or pals or [uid]
        friend_pages.append(users[ids.index(visible[0])].username)
    out = {
        "sessions": sessions,
        "names": [users[ids.index(uid)].username for uid in clients],
        "friend_pages": friend_pages,
        "past_day": (first - dt.timedelta(days=3)).isoformat(),
        "counts": {
            "players": len(ids),
            "games": Game.objects.count(),
            "seats": Player.objects.count(),
            "rated": len(rated_games),
            "daily_attempts": attempts,
            "puzzles": len(puzzle_ids),
            "puzzle_attempts": len(tried),
            "bench_games": Player.objects.filter(user_id=ids[0], game__status=Game.Status.FINISHED).count(),
            "bench_friends": len(friends.get(ids[0], [])),
        },
    }
    print(json.dumps(out))


FIRST_NAMES = (
    "anna", "bram", "carla", "daan", "eva", "femke", "gijs", "hana", "ivo", "jet", "koen", "lotte",
    "milan", "noor", "otto", "pien", "quinn", "ruben", "sara", "tim", "uma", "vera", "wout", "yara", "zoe",
)  # fmt: skip


# -- counting each page's queries (a child process, Django's test client on the same database) ---------


def count_queries(pages: list[tuple[str, str]], session: str) -> None:
    import warnings

    import django

    warnings.filterwarnings("ignore", message="No directory at")  # WhiteNoise: no collectstatic here
    django.setup()
    from django.db import connection
    from django.test import Client as TestClient
    from django.test.utils import CaptureQueriesContext

    client = TestClient(HTTP_HOST="127.0.0.1")
    client.cookies["sessionid"] = session
    out = {}
    for label, path in pages:
        client.get(path)  # warm
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(path)
        out[label] = {"status": response.status_code, "queries": len(ctx.captured_queries)}
    print(json.dumps(out))


# -- the run -----------------------------------------------------------------------------------------


def page_list(names: list[str], friend_pages: list[str], past_day: str, i: int) -> list[tuple[str, str, int]]:
    """The pages of client i: (label, path, expected status)."""
    return [
        ("daily today (played)", "/daily/", 200),
        ("daily past day", f"/daily/{past_day}/", 200),
        ("daily all-time", "/daily/all-time/", 200),
        ("puzzles index", "/puzzles/", 200),
        ("puzzles next (pick)", "/puzzles/next/", 302),
        ("player page (own)", f"/players/{names[i]}/", 200),
        ("player page (a friend's)", f"/players/{friend_pages[i]}/", 200),
        ("leaderboard (friends)", "/leaderboard/", 200),
        ("leaderboard (site)", "/leaderboard/?scope=site", 200),
    ]


def warm_phase(client: Client, pages, requests: int) -> tuple[dict[str, list[float]], list[float], list[str]]:
    """Each page alternated with the bare view, pages interleaved round by round."""
    timings: dict[str, list[float]] = defaultdict(list)
    bare: list[float] = []
    errors = []
    for label, path, expected in pages:  # warm up: first views fill the caches; not counted
        for _ in range(3):
            status, _h, body, _e = client.request("GET", path)
            if status != expected:
                errors.append(f"{label}: GET {path} answered {status}: {body[:200]}")
                break
    for _ in range(5):
        client.request("GET", BASELINE)
    for _ in range(requests):
        for label, path, expected in pages:
            status, _h, _b, elapsed = client.request("GET", path)
            if status != expected:
                errors.append(f"{label}: GET {path} answered {status}")
            timings[label].append(elapsed)
            _s, _h, _b, elapsed = client.request("GET", BASELINE)
            bare.append(elapsed)
    return timings, bare, errors


def concurrent_phase(port: int, clients: list[dict], seconds: float, bare_only: bool) -> dict:
    """Every client on its own connection, its pages in turn (or only the bare view) for `seconds`."""
    start = threading.Barrier(len(clients) + 1)
    stop_at = [0.0]
    results: list[list[tuple[str, float, bool]]] = [[] for _ in clients]

    def run(i: int, spec: dict) -> None:
        client = Client(port)
        client.cookies.update(spec["cookies"])
        pages = [("bare", BASELINE, 200)] if bare_only else spec["pages"]
        k = spec["offset"]
        try:
            for _label, path, _expected in pages:  # warm: every page once before the clock starts
                client.request("GET", path)
        except OSError:
            pass
        start.wait()
        while time.monotonic() < stop_at[0]:
            label, path, expected = pages[k % len(pages)]
            k += 1
            try:
                status, _h, _b, elapsed = client.request("GET", path)
                results[i].append((label, elapsed, status == expected))
            except OSError:
                results[i].append((label, float("nan"), False))
                client.close()
        client.close()

    threads = [threading.Thread(target=run, args=(i, spec), daemon=True) for i, spec in enumerate(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.monotonic() + 3600
    start.wait()  # everyone warmed up
    return {"threads": threads, "results": results, "stop_at": stop_at}


def run_concurrent(
    server: DaphneServer,
    clients: list[dict],
    seconds: float,
    bare_only: bool,
    pg_url,
    redis_url: str,
    py_spy: Path | None = None,
) -> dict:
    pg = PostgresCpu(pg_url)
    run = concurrent_phase(server.port, clients, seconds, bare_only)
    # The barrier passed: every client is about to send its first timed request.
    began = time.monotonic()
    run["stop_at"][0] = began + seconds
    spy = None
    if py_spy:  # sample the threads holding the GIL (CPU) of the web process during the phase
        duration = str(max(1, int(seconds) - 1))
        command = ["record", "-p", str(server.pid), "--gil", "-f", "raw", "-o", str(py_spy), "-d", duration]
        spy = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), *command, "-r", "200"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    cpu0, busy0, redis0 = server.cpu(), machine_busy(), redis_cpu(redis_url)
    pg.start()
    for t in run["threads"]:
        t.join(seconds + 60)
    wall = time.monotonic() - began
    if spy is not None:
        spy.wait(60)
    cpu1, busy1, redis1 = server.cpu(), machine_busy(), redis_cpu(redis_url)
    pg_cpu = pg.stop()
    samples = [s for per in run["results"] for s in per]
    ok = [s[1] for s in samples if s[2]]
    errors = sum(1 for s in samples if not s[2])
    n = len(samples)
    by_label: dict[str, list[float]] = defaultdict(list)
    for label, elapsed, good in samples:
        if good:
            by_label[label].append(elapsed)
    return {
        "requests": n,
        "errors": errors,
        "seconds": wall,
        "per_s": n / wall if wall else float("nan"),
        "median_ms": statistics.median(ok) * 1000 if ok else float("nan"),
        "p99_ms": pct(ok, 99) * 1000,
        "cpu_ms": (cpu1 - cpu0) * 1000 / n if n else float("nan"),
        "pg_cpu_ms": pg_cpu * 1000 / n if n and not math.isnan(pg_cpu) else float("nan"),
        # Redis's whole server (whoever else uses it).
        "redis_cpu_ms": (redis1 - redis0) * 1000 / n if n else float("nan"),
        "machine_busy_cores": (busy1 - busy0) / wall if wall else float("nan"),
        "by_page_median_ms": {k: statistics.median(v) * 1000 for k, v in sorted(by_label.items())},
    }


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    db_group = parser.add_argument_group("where the data lives (default: a SQLite file)")
    db_group.add_argument(
        "--pg-server",
        metavar="URL",
        default=os.environ.get("PENTA_BENCH_PG_SERVER"),
        help="a PostgreSQL server on which the bench CREATEs a temporary database and DROPs it at the end "
        "(env PENTA_BENCH_PG_SERVER); the role needs CREATEDB",
    )
    db_group.add_argument("--database-url", help="an existing EMPTY PostgreSQL database (left in place)")
    parser.add_argument("--redis-url", default="", help="Redis for the shared cache (production: give it)")
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--games", type=int, default=12_000, help="finished games besides the daily's")
    parser.add_argument("--templates", type=int, default=80, help="distinct bot games copied (analysed)")
    parser.add_argument("--friends", type=int, default=16, help="friends per player, about")
    parser.add_argument("--days", type=int, default=28, help="past daily challenges")
    parser.add_argument("--daily-share", type=float, default=0.45, help="players playing a given day")
    parser.add_argument("--daily-guests", type=int, default=8, help="guests' attempts a day")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--requests", type=int, default=40, help="warm: timed requests per page")
    parser.add_argument("--seconds", type=float, default=30.0, help="concurrent: each phase's length")
    parser.add_argument("--seed", type=int, default=1, help="the population's seed")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--logs", type=Path, help="keep the server's log in this directory")
    parser.add_argument(
        "--py-spy",
        type=Path,
        metavar="OUT",
        help="profile the web process during the concurrent pages phase (py-spy record --gil -f raw)",
    )
    parser.add_argument(
        "--filled",
        type=Path,
        metavar="JSON",
        help="with --database-url: fill the database once and describe it in this file; later runs that "
        "find the file measure the same population again without filling (the cache prefix is new each run)",
    )
    parser.add_argument("--populate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--count-queries", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.populate:
        populate(args)
        return 0
    if args.count_queries:
        spec = json.loads(args.count_queries)
        count_queries([tuple(p) for p in spec["pages"]], spec["session"])
        return 0
    if args.pg_server and args.database_url:
        parser.error("give --pg-server or --database-url, not both")
    if args.filled and not args.database_url:
        parser.error("--filled needs --database-url (a database that outlives the run)")
    if not 2 <= args.clients <= args.players:
        parser.error("--clients: at least 2, at most --players")

    workdir = Path(tempfile.mkdtemp(prefix="penta-bench-read-"))
    db = Database(args, workdir)
    env = server_env(db.sqlite_path)
    env.pop("REDIS_URL", None)
    env.pop("CACHE_URL", None)
    server = None
    status = 1
    try:
        db.create()
        if db.url:
            env.pop("SQLITE_PATH", None)
            env["DATABASE_URL"] = db.url
        if args.redis_url:
            env["REDIS_URL"] = args.redis_url
            env["PENTA_CACHE_PREFIX"] = f"penta-bench-read-{secrets.token_hex(4)}"
        # Production: the web process serves pages; the one run_timers process runs the clock (no game
        # of this bench is in play, so none runs here).
        env["PENTA_CLOCK_IN_WEB"] = "false"
        server = DaphneServer(workdir, env)
        setup = f"{db.kind}" + (" + Redis (cache)" if args.redis_url else ", this process's memory (cache)")
        print(f"database: {setup}; server: python -m {server.module}, one process")
        began = time.monotonic()
        if args.filled and args.filled.exists():  # the database of --database-url, filled before
            data = json.loads(args.filled.read_text())
            print(f"reusing the population described in {args.filled}: {json.dumps(data['counts'])}")
            # Its sessions are signed with the key of the run that filled it: another key finds every
            # client logged out (and the friends' pages answer 404). And the code may have new migrations.
            env["SECRET_KEY"] = data["secret_key"]
            server.migrate()
        else:
            server.migrate()
            filled = subprocess.run(
                [sys.executable, __file__, "--populate", *_population_args(args)],
                cwd=ROOT,
                env=env,
                check=True,
                stdout=subprocess.PIPE,
                text=True,
            )
            data = json.loads(filled.stdout.strip().splitlines()[-1])
            data["secret_key"] = env["SECRET_KEY"]
            print(f"filled in {time.monotonic() - began:.0f} s: {json.dumps(data['counts'])}")
            if args.filled:
                args.filled.write_text(json.dumps(data))
        server.start()
        names, friend_pages, past = data["names"], data["friend_pages"], data["past_day"]
        figures: dict = {
            "setup": setup,
            "counts": data["counts"],
            "args": vars(args) | {"json": None, "logs": None},
        }

        # 1. warm, one client
        client = Client(server.port)
        client.cookies["sessionid"] = data["sessions"][0]
        pages = page_list(names, friend_pages, past, 0)
        timings, bare, errors = warm_phase(client, pages, args.requests)
        client.close()
        base = statistics.median(bare)
        print()
        print(f"warm, one client, each page alternated with GET {BASELINE} ({args.requests} each)")
        print(
            f"bare view: median {base * 1000:.2f} ms, p90 {pct(bare, 90) * 1000:.2f}, "
            f"p99 {pct(bare, 99) * 1000:.2f}"
        )
        print(f"{'page':<26} {'median ms':>9} {'p90':>7} {'p99':>7} {'ratio':>6}")
        rows = []
        for label, _path, _e in pages:
            values = timings[label]
            m = statistics.median(values)
            row = {
                "page": label,
                "median_ms": m * 1000,
                "p90_ms": pct(values, 90) * 1000,
                "p99_ms": pct(values, 99) * 1000,
                "ratio": m / base,
            }
            rows.append(row)
            print(
                f"{label:<26} {row['median_ms']:>9.2f} {row['p90_ms']:>7.2f} {row['p99_ms']:>7.2f} "
                f"{row['ratio']:>6.2f}{'' if row['ratio'] <= TARGET_RATIO else '  over 3x'}"
            )
        worst = max(r["ratio"] for r in rows)
        print(f"worst page: {worst:.2f}x the bare view (aim: at most {TARGET_RATIO:.0f}x)")
        figures["warm"] = {
            "bare_median_ms": base * 1000,
            "bare_p99_ms": pct(bare, 99) * 1000,
            "pages": rows,
            "worst_ratio": worst,
        }

        # 2. fifty clients
        specs = []
        for i in range(args.clients):
            cookies = {"sessionid": data["sessions"][i]}
            if i % 5 == 4:
                cookies["django_language"] = "nl"
            specs.append({"cookies": cookies, "pages": page_list(names, friend_pages, past, i), "offset": i})
        pg_url = db.url
        print()
        print(f"{args.clients} clients for {args.seconds:.0f} s each: the pages in turn, then the bare view")
        mix = run_concurrent(server, specs, args.seconds, False, pg_url, args.redis_url, args.py_spy)
        plain = run_concurrent(server, specs, args.seconds, True, pg_url, args.redis_url)
        print(
            f"{'':<6} {'req/s':>7} {'median ms':>10} {'p99 ms':>8} {'web CPU ms/req':>15} {'PG ms/req':>10} "
            f"{'Redis ms/req':>13} {'errors':>7} {'machine busy':>13}"
        )
        for label, r in (("pages", mix), ("bare", plain)):
            print(
                f"{label:<6} {r['per_s']:>7.1f} {r['median_ms']:>10.1f} {r['p99_ms']:>8.1f} "
                f"{r['cpu_ms']:>15.2f} "
                f"{fmt(r['pg_cpu_ms'], 2):>10} {fmt(r['redis_cpu_ms'], 2):>13} {r['errors']:>7} "
                f"{r['machine_busy_cores']:>7.2f} cores"
            )
        print(
            f"ratios pages/bare: CPU per request {mix['cpu_ms'] / plain['cpu_ms']:.1f}x, "
            f"median {mix['median_ms'] / plain['median_ms']:.1f}x, "
            f"p99 {mix['p99_ms'] / plain['p99_ms']:.1f}x, "
            f"requests/s {mix['per_s'] / plain['per_s']:.2f}x"
        )
        print(
            "median per page under load (ms): "
            + ", ".join(f"{k} {v:.0f}" for k, v in mix["by_page_median_ms"].items())
        )
        figures["concurrent"] = {"pages": mix, "bare": plain}

        # 3. queries per page, warm
        spec = json.dumps(
            {"pages": [(label, path) for label, path, _e in pages], "session": data["sessions"][0]}
        )
        counted = subprocess.run(
            [sys.executable, __file__, "--count-queries", spec],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
        queries = json.loads(counted.stdout.strip().splitlines()[-1])
        print()
        print(
            "SQL statements per page, warm: " + ", ".join(f"{k} {v['queries']}" for k, v in queries.items())
        )
        figures["queries"] = queries

        logged = server.log_errors()
        problems = [*errors, logged] if logged else errors
        if mix["errors"] or plain["errors"]:
            problems.append(
                f"concurrent: {mix['errors']} failed page requests, {plain['errors']} failed bare"
            )
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2, default=str))
        status = 1 if problems else 0
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        if server is not None:
            print(server.log_tail(), file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
            if args.logs:
                args.logs.mkdir(parents=True, exist_ok=True)
                shutil.copy(server.log_path, args.logs / server.log_path.name)
        dropped = db.drop()
        if dropped:
            print(dropped)
        shutil.rmtree(workdir, ignore_errors=True)
    return status


def _population_args(args) -> list[str]:
    return [
        f"--{name.replace('_', '-')}={getattr(args, name)}"
        for name in (
            "players",
            "games",
            "templates",
            "friends",
            "days",
            "daily_share",
            "daily_guests",
            "clients",
            "seed",
        )
    ]


if __name__ == "__main__":
    sys.exit(main())
