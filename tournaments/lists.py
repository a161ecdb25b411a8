"""The tournaments' lists: the weekly tournament (and the home page's card), the viewer's own, those
open for entry, the past ones with their winners, the rounds waiting for the viewer, and a player's
results in rated tournaments (the player page)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone

from accounts.selectors import friend_ids
from tournaments.eligibility import rated_min_players
from tournaments.models import Entry, Round, RoundGame, Tournament
from tournaments.selectors import OPEN, UPCOMING, RoundView, entry_open, round_view

# -- lists ------------------------------------------------------------------------------------------------


def with_entry_close(queryset):
    """Annotates `entry_closes_at` (the first round's close) and `first_settled`."""
    first = Round.objects.filter(tournament=OuterRef("pk"), number=1)
    return queryset.annotate(
        entry_closes_at=Subquery(first.values("closes_at")[:1]),
        first_settled=Subquery(first.values("settled_at")[:1]),
    )


def weekly(now: dt.datetime | None = None) -> Tournament | None:
    """The weekly tournament to announce: the one in play, else the next to start."""
    now = now or timezone.now()
    running = Tournament.objects.filter(
        weekly_of__isnull=False, starts_at__lte=now, finished_at__isnull=True, cancelled_at__isnull=True
    )
    found = running.order_by("-starts_at").first()
    if found is None:
        found = (
            Tournament.objects.filter(weekly_of__isnull=False, starts_at__gt=now)
            .order_by("starts_at")
            .first()
        )
    return found


def mine(user_id: int) -> list[Tournament]:
    """The viewer's tournaments not yet over (entered or made), soonest first."""
    return list(
        with_entry_close(
            Tournament.objects.filter(Q(entries__user_id=user_id) | Q(creator_id=user_id))
            .filter(finished_at__isnull=True, cancelled_at__isnull=True)
            .distinct()
        ).order_by("starts_at", "pk")
    )


def open_to(user_id: int | None, now: dt.datetime | None = None, limit: int = 30) -> list[Tournament]:
    """Tournaments the viewer may enter now and has not: the public ones, and their friends'."""
    now = now or timezone.now()
    visible = Q(access=Tournament.Access.PUBLIC)
    if user_id is not None:
        visible |= Q(creator_id__in=friend_ids(user_id=user_id))
    found = with_entry_close(
        Tournament.objects.filter(visible, finished_at__isnull=True, cancelled_at__isnull=True)
    ).filter(entry_closes_at__gt=now, first_settled__isnull=True)
    if user_id is not None:
        found = found.exclude(entries__user_id=user_id).exclude(creator_id=user_id)
    return list(found.order_by("entry_closes_at")[:limit])


@dataclass(frozen=True)
class Past:
    tournament: Tournament
    winners: list[str]
    entrants: int


def past(user_id: int | None, limit: int = 20) -> list[Past]:
    """Finished tournaments, newest first, with their winners: the public ones and the viewer's own."""
    visible = Q(access=Tournament.Access.PUBLIC)
    if user_id is not None:
        visible |= Q(entries__user_id=user_id) | Q(creator_id=user_id)
    found = list(
        Tournament.objects.filter(visible, finished_at__isnull=False)
        .distinct()
        .order_by("-finished_at", "-pk")[:limit]
    )
    winners: dict[int, list[str]] = {}
    for tid, name in Entry.objects.filter(tournament__in=found, place=1).values_list(
        "tournament_id", "user__username"
    ):
        winners.setdefault(tid, []).append(name)
    return [Past(t, sorted(winners.get(t.pk, [])), t.entrant_count) for t in found]


# -- a player's results (the player page) ------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerResult:
    tournament: Tournament
    place: int
    of: int
    average: float  # the matchpoint average, a percentage


@dataclass(frozen=True)
class PlayerTournaments:
    played: int
    best: PlayerResult | None
    average: float | None
    recent: list[PlayerResult]


RECENT_SHOWN = 5


def player_results(user_id: int) -> PlayerTournaments:
    """The player's places in finished rated tournaments that at least `rated_min_players` played (placed
    only: they started a round's game and were not off the boards when the table was written; "of N"
    counts the placed), their best and their matchpoint average."""
    ranked = Entry.objects.filter(tournament=OuterRef("tournament"), place__isnull=False)
    rows = (
        Entry.objects.filter(
            user_id=user_id,
            place__isnull=False,
            tournament__rated=True,
            tournament__finished_at__isnull=False,
        )
        .annotate(of=Subquery(ranked.values("tournament").annotate(n=Count("pk")).values("n")[:1]))
        .filter(of__gte=rated_min_players())
        .select_related("tournament")
        .order_by("-tournament__finished_at")
    )
    results = [
        PlayerResult(e.tournament, e.place, e.of or 0, (e.score or 0) / e.tournament.rounds) for e in rows
    ]
    if not results:
        return PlayerTournaments(0, None, None, [])
    best = min(results, key=lambda r: (r.place, -r.of, -r.average))
    average = sum(r.average for r in results) / len(results)
    return PlayerTournaments(len(results), best, average, results[:RECENT_SHOWN])


# -- the home page's card ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    tournament: Tournament
    open_round: RoundView | None
    next_round: RoundView | None
    entry_open: bool
    entered: bool
    my_game: str  # the round in play: "" (not started), "playing" or "finished"


def weekly_card(*, user_id: int | None, now: dt.datetime | None = None) -> Card | None:
    """The weekly tournament as the home page announces it, with the viewer's part in it."""
    now = now or timezone.now()
    t = weekly(now)
    if t is None:
        return None
    rounds = list(Round.objects.filter(tournament=t).order_by("number"))
    views = [round_view(r, now) for r in rounds]
    open_view = next((v for v in views if v.state == OPEN), None)
    entry = Entry.objects.filter(tournament=t, user_id=user_id).first() if user_id else None
    my_game = ""
    if entry is not None and open_view is not None:
        g = RoundGame.objects.filter(entry=entry, round__number=open_view.number).first()
        my_game = "" if g is None else "finished" if g.finished_at else "playing"
    return Card(
        tournament=t,
        open_round=open_view,
        next_round=next((v for v in views if v.state == UPCOMING), None),
        entry_open=entry_open(t, rounds, now),
        entered=entry is not None and entry.withdrawn_at is None,
        my_game=my_game,
    )


@dataclass(frozen=True)
class RoundToPlay:
    tournament: Tournament
    number: int
    closes_at: dt.datetime
    game_id: int | None  # the game started, to resume; None: not started yet


def rounds_to_play(*, user_id: int, now: dt.datetime | None = None, limit: int = 5) -> list[RoundToPlay]:
    """The viewer's rounds open now that they have not finished (the weekly's is on its own card),
    the one closing first first."""
    now = now or timezone.now()
    open_rounds = Round.objects.filter(
        settled_at__isnull=True,
        opens_at__lte=now,
        closes_at__gt=now,
        tournament__cancelled_at__isnull=True,
        tournament__weekly_of__isnull=True,
        tournament__entries__user_id=user_id,
        tournament__entries__withdrawn_at__isnull=True,
    ).select_related("tournament")
    started = {
        rg.round_id: rg
        for rg in RoundGame.objects.filter(entry__user_id=user_id, round__in=[r.pk for r in open_rounds])
    }
    out = []
    for r in open_rounds.order_by("closes_at")[: limit * 2]:
        rg = started.get(r.pk)
        if rg is not None and rg.finished_at is not None:
            continue
        out.append(RoundToPlay(r.tournament, r.number, r.closes_at, rg.game_id if rg else None))
    return out[:limit]
