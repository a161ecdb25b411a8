"""Reads about ratings: a person's rating, its history as a chart, a game's rating changes, the board, the
refunds a person got and why a game's results counted for less."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.core.exceptions import ObjectDoesNotExist
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core import charts, versions
from ratings.models import PROVISIONAL_RD, PlayerRating, RatingChange, RatingRefund

HISTORY_POINTS = 200  # the chart shows the last 200 rated games


@dataclass(frozen=True)
class Shown:
    """A rating as the pages show it: rounded, with its deviation and the provisional mark."""

    rating: int
    rd: int
    provisional: bool
    games: int


def shown(row: PlayerRating | None, now: dt.datetime | None = None) -> Shown | None:
    if row is None:
        return None
    rating = row.current(now)  # the deviation widened by the weeks without a game
    return Shown(round(rating.rating), round(rating.rd), rating.rd > PROVISIONAL_RD, row.games)


def rating_of_user(user) -> Shown | None:
    """The user's rating, None before their first rated game. Uses `user.rating` as select_related
    left it (no query then), else reads it."""
    if user is None:
        return None
    try:
        return shown(user.rating)
    except ObjectDoesNotExist:
        return None


def rating_history(*, user_id: int) -> list[RatingChange]:
    """The last rated games, oldest first, in one query: each change carries `user.rating`, the
    current rating (there is none without a change)."""
    changes = (
        RatingChange.objects.filter(user_id=user_id)
        .select_related("user__rating")
        .order_by("-created_at", "-id")[:HISTORY_POINTS]
    )
    return list(reversed(changes))


def history_chart(changes: list[RatingChange]) -> str:
    """The rating after each rated game (and the start before the first), a server-rendered SVG."""
    if not changes:
        return ""
    points = [(0, changes[0].rating_before)] + [(i, c.rating_after) for i, c in enumerate(changes, start=1)]
    n = len(changes)
    step = max(1, round(n / 6))
    ticks = [(i, str(i)) for i in range(0, n + 1, step)]
    return charts.line_chart(
        [charts.Series(_("Rating"), points, "series-0")],
        title=_("Rating after each rated game"),
        desc=_("From %(start)d to %(end)d over %(n)d rated games.")
        % {"start": round(changes[0].rating_before), "end": round(changes[-1].rating_after), "n": n},
        x_max=n,
        x_ticks=ticks,
        y_label=_("Rating"),
    )


@dataclass(frozen=True)
class PlayerSection:
    """The player page's rating section as it is cached: the rating as stored (its deviation is
    widened to now at each view, `shown_now`), the last changes with their notes, the chart."""

    rating: BoardRating | None
    changes: list[RatingChange]
    chart: str
    refunded: int | None


def player_section(*, user_id: int, current=None) -> PlayerSection:
    """The rating section of a player page, worked out once per version of the person (a rated game
    finished, a refund: `core.versions`) and language; `current`: the versions the page read."""

    def compute() -> PlayerSection:
        changes = rating_history(user_id=user_id)
        latest = changes[-1].user.rating if changes else None
        shown_changes = changes[::-1][:10]
        for change in shown_changes:
            change.notes = "; ".join(discount_notes(change))
        # A refund gives back a loss in a rated game, so without a rated game there is none to read.
        refunds = refunds_of(user_id) if changes else []
        return PlayerSection(
            rating=BoardRating(
                round(latest.rating),
                latest.games,
                "",
                latest.rating,
                latest.rd,
                latest.volatility,
                latest.updated_at,
            )
            if latest
            else None,
            changes=shown_changes,
            chart=history_chart(changes),
            refunded=round(sum(r.points for r in refunds)) if refunds else None,
        )

    name = versions.user(user_id)
    mine = {name: current[name]} if current and name in current else None
    return versions.cached(f"ratings:section:{get_language()}:{user_id}", [name], compute, versions=mine)


def shown_now(value: BoardRating, now: dt.datetime | None = None) -> Shown:
    """A cached rating as the pages show it now (`shown`)."""
    return shown(
        PlayerRating(
            rating=value.rating,
            rd=value.rd,
            volatility=value.volatility,
            games=value.games,
            updated_at=value.updated_at,
        ),
        now,
    )


def game_rating_changes(*, game_id: int) -> dict[int, RatingChange]:
    """What a finished game did to its people's ratings, by user id (empty for a casual game)."""
    return {c.user_id: c for c in RatingChange.objects.filter(game_id=game_id)}


@dataclass(frozen=True)
class BoardRating:
    """A rating as a board keeps it (boards are cached): the value shown, and what the provisional mark
    is worked out from at each view (`rating_provisional`)."""

    value: int  # rounded
    games: int
    username: str
    rating: float
    rd: float
    volatility: float
    updated_at: dt.datetime | None


def rating_board_values(user_ids) -> dict[int, BoardRating]:
    """user id -> BoardRating for those of `user_ids` with a rating, in one query."""
    rows = (
        PlayerRating.objects.filter(user_id__in=user_ids)
        .select_related("user")
        .only("user_id", "rating", "rd", "volatility", "games", "updated_at", "user__username")
    )
    return {
        r.user_id: BoardRating(
            round(r.rating), r.games, r.user.username, r.rating, r.rd, r.volatility, r.updated_at
        )
        for r in rows
    }


def rating_provisional(value: BoardRating, now: dt.datetime | None = None) -> bool:
    """Whether the rating is provisional now: its deviation widened by the weeks without a game."""
    row = PlayerRating(
        rating=value.rating, rd=value.rd, volatility=value.volatility, updated_at=value.updated_at
    )
    return row.current(now).rd > PROVISIONAL_RD


def refunds_of(user_id: int) -> list[RatingRefund]:
    """The rating losses given back to the person (games against an account marked for unfair play),
    oldest first. The rating history stays as the games left it; the refunds are on top of it."""
    return list(RatingRefund.objects.filter(user_id=user_id).order_by("created_at", "id"))


def discount_notes(change: RatingChange, names: dict[int, str] | None = None) -> list[str]:
    """Why the game's results counted for less for this person, one line per opponent (the fair-play
    review passes the opponents' names by user id; without them the lines name nobody)."""
    notes = []
    for d in change.discounts:
        if d.get("abort"):
            why = _("left before playing enough of their own turns: no result")
        else:
            reasons = []
            if "pair_game" in d:
                reasons.append(
                    _("the same two people's rated game number %(n)d in 24 hours") % {"n": d["pair_game"]}
                )
            if d.get("newcomer"):
                reasons.append(_("a newcomer's result"))
            why = _("counted ×%(weight)s: %(reasons)s") % {
                "weight": f"{d['weight']:g}",
                "reasons": ", ".join(reasons),
            }
        name = (names or {}).get(d["opponent"])
        notes.append(_("against %(name)s: %(why)s") % {"name": name, "why": why} if name else why)
    return notes
