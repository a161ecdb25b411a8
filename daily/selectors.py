"""Reads of the daily challenge. The one rule: a day's seed leaves this module only after the day ended."""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.selectors import on_boards
from analysis.store import ReviewError, analysis_for
from core import versions
from core.charts import bar_chart
from daily.models import DailyAttempt, DailySeed
from daily.services import DAYS_AHEAD, attempt_of, day_end, day_par, today
from dicegame.models import Game, Player
from dicegame.rules import share
from dicegame.strategy import analysis as A

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
# The share line (one symbol per box, no dice, no points) is the tournaments' too: dicegame.rules.share.
SHARE_WELL, SHARE_SCORED, SHARE_ZERO = share.SHARE_WELL, share.SHARE_SCORED, share.SHARE_ZERO
share_symbols = share.share_symbols


@dataclass(frozen=True)
class Finished:
    """A finished ranked attempt of the day, as the day's cache keeps it: who (with what the boards ask
    of them: the site-wide opt-in, the fair-play standing), the total, when it started."""

    user_id: int
    name: str
    total: int
    started_at: dt.datetime
    opted_in: bool
    standing: str | None


@dataclass(frozen=True)
class DayResults:
    """What a day's page shows everyone: the dice commitment, how many have started their ranked
    attempt, the par, and every finished ranked result, best first (equal totals: the earlier start
    first)."""

    commitment: str | None
    played: int
    par: int | None
    rows: tuple[Finished, ...]


def day_results(date: dt.date) -> DayResults:
    """The day's results, computed once per change of the day (an attempt starts or finishes, its par
    is stored) or of who shows on the boards, and shared by every viewer (`core.versions`); each
    viewer's boards are cut from them (`leaderboard`)."""
    return _day(date)[0]


def page_versions(date: dt.date, user_id: int | None) -> dict[str, int | None]:
    """The versions a day's page is read under (the day's results and boards, the viewer's attempt), in
    one query: pass them as `known` to `day_boards` and `attempt_with_result`."""
    names = [versions.day(date), versions.PEOPLE]
    if user_id is not None:
        names.append(versions.user(user_id))
    return versions.read(names)


def _day(date: dt.date, known: dict | None = None) -> tuple[DayResults, dict]:
    stored_par = []

    def compute() -> DayResults:
        rows = (
            DailyAttempt.objects.filter(
                date=date, ranked=True, game__status=Game.Status.FINISHED, game__players__seat=0
            )
            .order_by("-game__players__total", "started_at", "pk")
            .values_list(
                "user_id",
                "user__username",
                "game__players__total",
                "started_at",
                "user__profile__leaderboard_opt_in",
                "user__profile__standing",
            )
        )
        seed = DailySeed.objects.filter(date=date).values("commitment", "par").first()
        par = None
        if seed is not None:
            par = seed["par"]
            if par is None:  # the day's first result: its par is worked out and stored now
                par = day_par(date)
                stored_par.append(par)
        return DayResults(
            commitment=seed["commitment"] if seed else None,
            played=DailyAttempt.objects.filter(date=date, ranked=True).count(),
            par=par,
            rows=tuple(Finished(u, n, t, s, bool(o), st) for u, n, t, s, o, st in rows),
        )

    names = [versions.day(date), versions.PEOPLE]
    key = f"daily:day:{date.isoformat()}"
    current = {n: known[n] for n in names} if known is not None else versions.read(names)
    day = versions.cached(key, [], compute, versions=current)
    if stored_par:  # storing the par moved the day's version on: the results are kept under the new one
        current = versions.read(names)
        day = versions.cached(key, [], lambda: day, versions=current)
    return day, current


def shown(rows, viewer_id: int | None) -> list:
    """Without the people off the boards for fair play (`accounts.selectors.on_boards`: someone under
    review still sees their own)."""
    return [r for r in rows if on_boards(user_id=r.user_id, standing=r.standing, viewer_id=viewer_id)]


def played_count(date: dt.date) -> int:
    """How many accounts have started the day's ranked attempt."""
    return day_results(date).played


def ranks(values: list) -> list[int]:
    """Each value's place among these values, sorted best first: equal values share a place."""
    out = []
    for i, value in enumerate(values):
        out.append(out[-1] if i and values[i - 1] == value else i + 1)
    return out


def _rank(total: int, totals: list[int]) -> int:
    ascending = sorted(totals)
    return 1 + len(ascending) - bisect.bisect_right(ascending, total)


@dataclass(frozen=True)
class BoardRow:
    rank: int
    name: str
    total: int
    vs_par: int | None
    is_me: bool


def top(rows: list, places: list[int], viewer_id: int | None, limit: int | None) -> list[tuple[int, object]]:
    """(rank, row) of the first `limit` rows, and the viewer's own row after them when it is further
    down (a board of everyone would grow with the site)."""
    ranked = list(zip(places, rows, strict=True))
    if limit is None or len(ranked) <= limit:
        return ranked
    return ranked[:limit] + [(rank, r) for rank, r in ranked[limit:] if r.user_id == viewer_id]


def leaderboard(
    date: dt.date,
    *,
    user_ids=None,
    viewer_id: int | None = None,
    opted_in: bool = False,
    limit: int | None = None,
    day: DayResults | None = None,
) -> list[BoardRow]:
    """The day's ranked results (of `user_ids`, a set of ids, when given; of those who opted in to the
    site-wide boards with `opted_in`), best first; equal totals share a rank. With `limit`, the first
    `limit` and the viewer's own row."""
    day = day or day_results(date)
    rows = shown(day.rows, viewer_id)
    if user_ids is not None:
        rows = [r for r in rows if r.user_id in user_ids]
    if opted_in:
        rows = [r for r in rows if r.opted_in]
    par = day.par
    return [
        BoardRow(rank, r.name, r.total, None if par is None else r.total - par, r.user_id == viewer_id)
        for rank, r in top(rows, ranks([r.total for r in rows]), viewer_id, limit)
    ]


SITE_BOARD_SIZE = 50  # the site-wide tables show the first 50, and the viewer's own row


@dataclass(frozen=True)
class DayBoards:
    """A day's page for one viewer: everyone's figures, the viewer's boards, and where the site-wide
    board's markup is cached (`core.versions.Fragment`: once per change of the day, for every viewer
    who is not on it)."""

    commitment: str | None
    played: int
    friends: list[BoardRow]
    site: list[BoardRow]
    site_fragment: versions.Fragment
    results: DayResults
    # The viewer's friends' board, cached as markup per viewer and circle of friends (None: no board).
    friends_fragment: versions.Fragment | None = None


def day_boards(
    date: dt.date,
    *,
    viewer_id: int | None,
    friend_ids: set[int],
    boards_open: bool,
    known: dict | None = None,
) -> DayBoards:
    """(`known`: the `page_versions` of the date, when the caller read them.)"""
    day, current = _day(date, known)
    friends = site = []
    if boards_open:
        if viewer_id is not None:
            friends = leaderboard(date, user_ids={*friend_ids, viewer_id}, viewer_id=viewer_id, day=day)
        site = leaderboard(date, opted_in=True, viewer_id=viewer_id, limit=SITE_BOARD_SIZE, day=day)
    mine = viewer_id if any(r.is_me for r in site) else None
    fragment = versions.fragment(f"daily:site-board:{date.isoformat()}:{mine}", current)
    circle = ",".join(map(str, sorted(friend_ids)))
    friends_fragment = (
        versions.fragment(f"daily:friends-board:{date.isoformat()}:{viewer_id}:{circle}", current)
        if boards_open and viewer_id is not None
        else None
    )
    return DayBoards(day.commitment, day.played, friends, site, fragment, day, friends_fragment)


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
    highlight = mine // HISTOGRAM_BIN

    def draw() -> str:
        bars = [(f"{i * HISTOGRAM_BIN}", float(c)) for i, c in enumerate(counts)]
        # charts.bar_chart escapes every text it writes (the labels here are numbers anyway).
        return bar_chart(
            bars,
            title=_("The day's totals"),
            desc=_("How many players scored each range of totals; your range is highlighted."),
            highlight=highlight,
        )

    # Drawn once per picture: everyone whose total falls in the same bar of the same day sees this one.
    key = f"daily:histogram:{get_language()}:{highlight}:{counts}"
    return mark_safe(versions.cached(key, [], draw, versions={}))


_RESULT = {
    "total": "game__players__total",
    "boxes": "game__players__boxes",
    "game__analysis__version": "game__analysis__version",
    "game__analysis__summary": "game__analysis__summary",
}


def attempt_with_result(actor, date: dt.date, known: dict | None = None) -> DailyAttempt | None:
    """The actor's attempt of the day (`daily.services.attempt_of`) with, in the same query, what its
    results screen reads of the game (`day_result`): the total, the boxes, the analysis's summary.

    A person's is kept under the versions of the day and the person: the attempt's start moves both,
    its game's end and its analysis the person's (core.versions), and nothing else changes what
    is read here (the game's moves in between show on the game's page, not this one). A guest's is
    read every time: a guest has no version. (`known`: the `page_versions` of the date and the actor,
    when the caller read them.)"""

    def read() -> DailyAttempt | None:
        attempts = DailyAttempt.objects.filter(game__players__seat=0).annotate(
            **{f"result_{name.replace('__', '_')}": F(path) for name, path in _RESULT.items()}
        )
        return attempt_of(actor, date, attempts)

    if actor.user_id is None:
        return read()
    names = [versions.day(date), versions.user(actor.user_id)]
    current = {n: known[n] for n in names} if known is not None else versions.read(names)
    return versions.cached(f"daily:attempt:{date.isoformat()}:{actor.user_id}", [], read, versions=current)


def day_result(
    attempt: DailyAttempt,
    *,
    friend_ids: set[int],
    share_url: str = "",
    detailed: bool = True,
    day: DayResults | None = None,
) -> DayResult:
    """The results screen of a finished attempt (`day`: the day's results, when the caller has them).
    Not `detailed` (the game's own end card): the places, the par and the share text only, without the
    analysis (accuracy, luck) and the histogram, so the end of the game never waits for an analysis."""

    game = attempt.game
    # The accuracy and luck are in the analysis's small summary: the whole analysis is not read.
    if hasattr(attempt, "result_total"):  # read with the attempt (attempt_with_result)
        me = {name: getattr(attempt, f"result_{name.replace('__', '_')}") for name in _RESULT}
    else:
        me = Player.objects.filter(game=game, seat=0).values(*_RESULT).get()
    accuracy = luck = None
    if detailed:
        summary = me["game__analysis__summary"]
        if me["game__analysis__version"] != A.ANALYSIS_VERSION:
            try:  # not analysed yet (or by an older version): it is, now
                summary = analysis_for(game).summary
            except ReviewError:
                summary = None
            # Storing it moved the day's version on: the results are read (and kept) under the new one.
            day = None
        seat = (summary or {}).get("0") or {}
        accuracy, luck = seat.get("accuracy"), seat.get("luck")
    day = day or day_results(attempt.date)
    ranked = [(r.user_id, r.total) for r in shown(day.rows, attempt.user_id)]
    totals = [t for _u, t in ranked]
    # Unranked (a guest's, a second try), or off the boards: placed where the total would be.
    counted = attempt.ranked and any(u == attempt.user_id for u, _t in ranked)
    everyone = totals if counted else [*totals, me["total"]]
    # Among friends: the account and its friends (a guest has none to be placed among).
    circle = {*friend_ids, attempt.user_id} if attempt.user_id else set()
    friends_totals = [t for u, t in ranked if u in circle]
    if circle and not counted:
        friends_totals.append(me["total"])
    par = day.par
    line = share_symbols(me["boxes"])
    par_text = "" if par is None else " " + _("(par %(par)d)") % {"par": par}
    share = "\n".join(
        part
        for part in (
            _("Penta daily %(date)s: %(total)d") % {"date": attempt.date.isoformat(), "total": me["total"]}
            + par_text,
            line,
            share_url,
        )
        if part
    )
    return DayResult(
        date=attempt.date,
        attempt=attempt,
        total=me["total"],
        par=par,
        rank=_rank(me["total"], everyone),
        of=len(everyone),
        friends_rank=_rank(me["total"], friends_totals) if friends_totals else None,
        friends_of=len(friends_totals),
        histogram=_histogram(everyone, me["total"]) if detailed else mark_safe(""),
        accuracy=accuracy,
        luck=luck,
        share_text=share,
        boxes_line=line,
    )
