"""Reads of the daily challenge. The one rule: a day's seed leaves this module only after the day ended."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import F, OuterRef, Subquery
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from accounts.selectors import off_board_ids
from daily.models import DailyAttempt, DailySeed
from daily.services import DAYS_AHEAD, day_end, day_par, today
from dicegame.analysis_store import ReviewError, analysis_for
from dicegame.charts import bar_chart
from dicegame.models import Game, Player
from dicegame.rules import share

REVEALED_SHOWN = 7  # past days listed with their seeds


@dataclass(frozen=True)
class Commitment:
    date: dt.date
    commitment: str
    seed: str | None  # None until the day has ended
    is_today: bool

    @property
    def revealed(self) -> bool:
        return self.seed is not None


def revealed_seed(row: DailySeed, now: dt.datetime | None = None) -> str | None:
    """The row's seed if its day has ended, else None."""
    return row.seed if (now or timezone.now()) >= day_end(row.date) else None


def commitments(now: dt.datetime | None = None) -> tuple[list[Commitment], list[Commitment]]:
    """(today and the days ahead with their commitments, the last REVEALED_SHOWN days with their seeds)."""
    now = now or timezone.now()
    first = today(now)
    rows = DailySeed.objects.filter(
        date__gte=first - dt.timedelta(days=REVEALED_SHOWN), date__lte=first + dt.timedelta(days=DAYS_AHEAD)
    ).only("date", "seed", "commitment")
    ahead, past = [], []
    for row in rows:
        item = Commitment(row.date, row.commitment, revealed_seed(row, now), row.date == first)
        (past if item.revealed else ahead).append(item)
    past.reverse()  # newest first
    return ahead, past


# -- a day's results -----------------------------------------------------------------------------------

HISTOGRAM_BIN = 25  # points per bar of the day's histogram
ALL_TIME_MIN_DAYS = 3  # days played before a player enters the all-time table
# The share line (one symbol per box, no dice, no points) is the tournaments' too: dicegame.rules.share.
SHARE_WELL, SHARE_SCORED, SHARE_ZERO = share.SHARE_WELL, share.SHARE_SCORED, share.SHARE_ZERO
share_symbols = share.share_symbols


def _finished_ranked(date: dt.date, viewer_id: int | None = None):
    """The day's ranked attempts whose game is over, with the player's total; without the people off
    the boards for fair play (`accounts.selectors.off_board_ids`: someone under review still sees
    their own)."""
    return (
        DailyAttempt.objects.filter(
            date=date, ranked=True, game__status=Game.Status.FINISHED, game__players__seat=0
        )
        .exclude(user_id__in=off_board_ids(viewer_id=viewer_id))
        .annotate(total=F("game__players__total"))
    )


def played_count(date: dt.date) -> int:
    """How many accounts have started the day's ranked attempt."""
    return DailyAttempt.objects.filter(date=date, ranked=True).count()


def _rank(total: int, totals: list[int]) -> int:
    return 1 + sum(1 for t in totals if t > total)


@dataclass(frozen=True)
class BoardRow:
    rank: int
    name: str
    total: int
    vs_par: int | None
    is_me: bool


def leaderboard(date: dt.date, *, user_ids=None, viewer_id: int | None = None) -> list[BoardRow]:
    """The day's ranked results (of `user_ids`, a set or a queryset of ids, when given), best first;
    equal totals share a rank."""
    rows = _finished_ranked(date, viewer_id).select_related("user")
    if user_ids is not None:
        rows = rows.filter(user_id__in=user_ids)
    rows = sorted(rows, key=lambda a: (-a.total, a.started_at))
    par = day_par(date)
    totals = [a.total for a in rows]
    return [
        BoardRow(
            _rank(a.total, totals),
            a.user.get_username(),
            a.total,
            None if par is None else a.total - par,
            a.user_id == viewer_id,
        )
        for a in rows
    ]


@dataclass(frozen=True)
class DayResult:
    """The viewer's result of a day, beside everyone's and their friends'."""

    date: dt.date
    attempt: DailyAttempt
    total: int
    par: int | None
    rank: int | None  # among everyone's ranked results (where an unranked total would place)
    of: int
    friends_rank: int | None
    friends_of: int
    histogram: SafeString
    accuracy: float | None
    luck: float | None
    share_text: str
    boxes_line: str

    @property
    def vs_par(self) -> int | None:
        return None if self.par is None else self.total - self.par


def _histogram(totals: list[int], mine: int) -> SafeString:
    top = max([*totals, mine])
    bins = top // HISTOGRAM_BIN + 1
    counts = [0] * bins
    for t in totals:
        counts[t // HISTOGRAM_BIN] += 1
    bars = [(f"{i * HISTOGRAM_BIN}", float(c)) for i, c in enumerate(counts)]
    # charts.bar_chart escapes every text it writes (the labels here are numbers anyway).
    return mark_safe(
        bar_chart(
            bars,
            title=_("The day's totals"),
            desc=_("How many players scored each range of totals; your range is highlighted."),
            highlight=mine // HISTOGRAM_BIN,
        )
    )


def day_result(
    attempt: DailyAttempt, *, friend_ids: set[int], share_url: str = "", detailed: bool = True
) -> DayResult:
    """The results screen of a finished attempt. Not `detailed` (the game's own end card): the places,
    the par and the share text only, without the analysis (accuracy, luck) and the histogram, so the
    end of the game never waits for an analysis."""

    game = attempt.game
    me = Player.objects.get(game=game, seat=0)
    ranked = list(_finished_ranked(attempt.date, attempt.user_id).values_list("user_id", "total"))
    totals = [t for _u, t in ranked]
    # Unranked (a guest's, a second try), or off the boards: placed where the total would be.
    counted = attempt.ranked and any(u == attempt.user_id for u, _t in ranked)
    everyone = totals if counted else [*totals, me.total]
    # Among friends: the account and its friends (a guest has none to be placed among).
    circle = {*friend_ids, attempt.user_id} if attempt.user_id else set()
    friends_totals = [t for u, t in ranked if u in circle]
    if circle and not counted:
        friends_totals.append(me.total)
    accuracy = luck = None
    if detailed:
        try:
            seat = analysis_for(game).data["seats"]["0"]
            accuracy, luck = seat.get("accuracy"), seat.get("luck")
        except ReviewError:
            pass
    par = day_par(attempt.date)
    line = share_symbols(me.boxes)
    par_text = "" if par is None else " " + _("(par %(par)d)") % {"par": par}
    share = "\n".join(
        part
        for part in (
            _("Penta daily %(date)s: %(total)d") % {"date": attempt.date.isoformat(), "total": me.total}
            + par_text,
            line,
            share_url,
        )
        if part
    )
    return DayResult(
        date=attempt.date,
        attempt=attempt,
        total=me.total,
        par=par,
        rank=_rank(me.total, everyone),
        of=len(everyone),
        friends_rank=_rank(me.total, friends_totals) if friends_totals else None,
        friends_of=len(friends_totals),
        histogram=_histogram(everyone, me.total) if detailed else mark_safe(""),
        accuracy=accuracy,
        luck=luck,
        share_text=share,
        boxes_line=line,
    )


# -- a player's streaks and best days, and the all-time table --------------------------------------------


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


def player_daily(user_id: int, now: dt.datetime | None = None) -> tuple[Streaks, list[BestDay]]:
    """The player page's daily section in one query: the streaks and the best finished results."""
    par = DailySeed.objects.filter(date=OuterRef("date")).values("par")[:1]
    rows = (
        DailyAttempt.objects.filter(user_id=user_id, ranked=True, game__players__seat=0)
        .annotate(total=F("game__players__total"), par=Subquery(par))
        .values_list("date", "total", "game__status", "par", "game_id")
    )
    rows = list(rows)
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


def all_time(*, user_ids=None, viewer_id: int | None = None, min_days: int = ALL_TIME_MIN_DAYS):
    """Average score against par over every finished ranked attempt of days with a par (days that have
    ended are given theirs when read), players with at least `min_days`, best average against par first."""
    ended = today() - dt.timedelta(days=1)
    for date in DailySeed.objects.filter(par__isnull=True, date__lte=ended).values_list("date", flat=True):
        if DailyAttempt.objects.filter(date=date, ranked=True).exists():
            day_par(date)
    rows = DailyAttempt.objects.filter(
        ranked=True, game__status=Game.Status.FINISHED, game__players__seat=0
    ).exclude(user_id__in=off_board_ids(viewer_id=viewer_id))
    if user_ids is not None:
        rows = rows.filter(user_id__in=user_ids)
    pars = dict(DailySeed.objects.filter(par__isnull=False, date__lte=ended).values_list("date", "par"))
    rows = rows.filter(date__in=list(pars))
    per_user: dict[int, list[tuple[int, int]]] = {}
    names: dict[int, str] = {}
    for uid, name, date, total in rows.values_list(
        "user_id", "user__username", "date", "game__players__total"
    ):
        per_user.setdefault(uid, []).append((total, pars[date]))
        names[uid] = name
    table = []
    for uid, results in per_user.items():
        if len(results) < min_days:
            continue
        n = len(results)
        table.append((sum(t - p for t, p in results) / n, sum(t for t, _p in results) / n, n, uid))
    table.sort(key=lambda r: (-r[0], -r[2]))
    out = []
    for vs, avg, n, uid in table:
        rank = 1 + sum(1 for other in table if other[0] > vs)
        out.append(AllTimeRow(rank, names[uid], n, round(avg, 1), round(vs, 1), uid == viewer_id))
    return out
