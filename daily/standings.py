"""A player's standing over the days of the daily challenge: streaks and best days (the player page), and
the all-time table of average against par."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import F, OuterRef, Subquery

from core import versions
from daily.models import DailyAttempt, DailySeed
from daily.selectors import SITE_BOARD_SIZE, ranks, shown, top
from daily.services import day_par, today
from dicegame.models import Game

ALL_TIME_MIN_DAYS = 3  # days played before a player enters the all-time table


@dataclass(frozen=True)
class Streaks:
    current: int
    best: int
    days: int


def _streaks(dates: list[dt.date], now: dt.datetime | None = None) -> Streaks:
    best = run = 0
    previous = None
    for date in sorted(set(dates)):
        run = run + 1 if previous is not None and date - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = date
    first = today(now)
    current = run if previous is not None and first - previous <= dt.timedelta(days=1) else 0
    return Streaks(current=current, best=best, days=len(set(dates)))


def streaks(user_id: int, now: dt.datetime | None = None) -> Streaks:
    """Consecutive days with a ranked attempt: the run that reaches today (or yesterday, while today
    is still open to play) and the longest run."""
    return player_daily(user_id, now)[0]


@dataclass(frozen=True)
class BestDay:
    date: dt.date
    total: int
    par: int | None
    game_id: int

    @property
    def vs_par(self) -> int | None:
        return None if self.par is None else self.total - self.par


BEST_DAYS_SHOWN = 5


def best_days(user_id: int) -> list[BestDay]:
    """The player's best finished ranked daily results, best first."""
    return player_daily(user_id)[1]


def player_daily(
    user_id: int, now: dt.datetime | None = None, *, current=None
) -> tuple[Streaks, list[BestDay]]:
    """The player page's daily section: the streaks and the best finished results. The person's ranked
    attempts are read once per change of theirs (or of a day's par) and kept (`core.versions`); the
    streaks are counted from them at every view (the current one depends on today). `current`: the
    versions the page read already."""

    def compute() -> list[tuple]:
        par = DailySeed.objects.filter(date=OuterRef("date")).values("par")[:1]
        return list(
            DailyAttempt.objects.filter(user_id=user_id, ranked=True, game__players__seat=0)
            .annotate(total=F("game__players__total"), par=Subquery(par))
            .values_list("date", "total", "game__status", "par", "game_id")
        )

    names = [versions.user(user_id), versions.DAILY]
    mine = {n: current[n] for n in names} if current and all(n in current for n in names) else None
    rows = versions.cached(f"daily:player:{user_id}", names, compute, versions=mine)
    finished = [r for r in rows if r[2] == Game.Status.FINISHED]
    finished.sort(key=lambda r: (-r[1], r[0]))
    best = [
        BestDay(date, total, par, game_id) for date, total, _s, par, game_id in finished[:BEST_DAYS_SHOWN]
    ]
    return _streaks([r[0] for r in rows], now), best


@dataclass(frozen=True)
class AllTimeRow:
    rank: int
    name: str
    days: int
    average: float
    vs_par: float
    is_me: bool


@dataclass(frozen=True)
class _Average:
    user_id: int
    name: str
    days: int
    average: float
    vs_par: float
    opted_in: bool
    standing: str | None


def _all_time_averages(ended: dt.date, min_days: int) -> list[_Average]:
    """Everyone's averages over the days that have ended, best against par first (then more days)."""
    for date in DailySeed.objects.filter(par__isnull=True, date__lte=ended).values_list("date", flat=True):
        if DailyAttempt.objects.filter(date=date, ranked=True).exists():
            day_par(date)
    pars = dict(DailySeed.objects.filter(par__isnull=False, date__lte=ended).values_list("date", "par"))
    rows = DailyAttempt.objects.filter(
        ranked=True, game__status=Game.Status.FINISHED, game__players__seat=0, date__in=list(pars)
    )
    per_user: dict[int, list[tuple[int, int]]] = {}
    people: dict[int, tuple] = {}
    for uid, name, opted_in, standing, date, total in rows.values_list(
        "user_id",
        "user__username",
        "user__profile__leaderboard_opt_in",
        "user__profile__standing",
        "date",
        "game__players__total",
    ):
        per_user.setdefault(uid, []).append((total, pars[date]))
        people[uid] = (name, bool(opted_in), standing)
    table = []
    for uid, results in per_user.items():
        if len(results) < min_days:
            continue
        n = len(results)
        name, opted_in, standing = people[uid]
        vs, avg = sum(t - p for t, p in results) / n, sum(t for t, _p in results) / n
        table.append(_Average(uid, name, n, avg, vs, opted_in, standing))
    table.sort(key=lambda r: (-r.vs_par, -r.days))
    return table


def all_time(
    *,
    user_ids=None,
    viewer_id: int | None = None,
    min_days: int = ALL_TIME_MIN_DAYS,
    opted_in: bool = False,
    limit: int | None = None,
) -> list[AllTimeRow]:
    """Average score against par over every finished ranked attempt of days with a par (days that have
    ended are given theirs when read), players with at least `min_days`, best average against par first;
    of `user_ids` (a set of ids) when given, of those who opted in to the site-wide boards with
    `opted_in`; with `limit`, the first `limit` and the viewer's own row. Everyone's averages are worked
    out once per day gone by, finished attempt of a day gone, par or change of who shows on the boards
    (`core.versions`); each table is cut from them."""
    return _all_time(user_ids, viewer_id, min_days, opted_in, limit)[0]


def _all_time(user_ids, viewer_id, min_days, opted_in, limit, current=None) -> tuple[list[AllTimeRow], dict]:
    ended = today() - dt.timedelta(days=1)
    current = current or versions.read([versions.DAILY, versions.PEOPLE])
    table = versions.cached(
        f"daily:all-time:{ended.isoformat()}:{min_days}",
        [],
        lambda: _all_time_averages(ended, min_days),
        versions=current,
    )
    rows = shown(table, viewer_id)
    if user_ids is not None:
        rows = [r for r in rows if r.user_id in user_ids]
    if opted_in:
        rows = [r for r in rows if r.opted_in]
    out = [
        AllTimeRow(rank, r.name, r.days, round(r.average, 1), round(r.vs_par, 1), r.user_id == viewer_id)
        for rank, r in top(rows, ranks([r.vs_par for r in rows]), viewer_id, limit)
    ]
    return out, current


def all_time_tables(
    *, viewer_id: int | None, friend_ids: set[int]
) -> tuple[list, list, versions.Fragment, versions.Fragment | None]:
    """The all-time page for one viewer: the friends' table, the site-wide one (the first
    SITE_BOARD_SIZE and the viewer's own row), and where the site-wide table's markup is cached, and
    the friends' (per viewer and circle of friends)."""
    site, current = _all_time(None, viewer_id, ALL_TIME_MIN_DAYS, True, SITE_BOARD_SIZE)
    friends = []
    if viewer_id is not None:
        circle = {*friend_ids, viewer_id}
        friends = _all_time(circle, viewer_id, ALL_TIME_MIN_DAYS, False, None, current)[0]
    mine = viewer_id if any(r.is_me for r in site) else None
    ended = (today() - dt.timedelta(days=1)).isoformat()  # the days it counts: part of its key
    site_fragment = versions.fragment(f"daily:all-time-site:{ended}:{mine}", current)
    friends_fragment = None
    if viewer_id is not None:
        circle = ",".join(map(str, sorted(friend_ids)))
        friends_fragment = versions.fragment(f"daily:all-time-friends:{ended}:{viewer_id}:{circle}", current)
    return friends, site, site_fragment, friends_fragment
