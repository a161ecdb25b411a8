"""Leaderboards among friends and site-wide: rating, best total, recent average, most Pentas, accuracy."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Max, Q, Sum, Window
from django.db.models.functions import RowNumber
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.selectors import off_board_ids
from dicegame.models import Game, Player
from dicegame.records import counted_seats
from dicegame.strategy import analysis as A
from ratings.selectors import rating_board_values
from review.cache import cached
from review.stats import game_accuracy

LEADERBOARD_SIZE = 20
LEADERBOARD_RECENT = 20  # "average over the last 20 games"
LEADERBOARD_MIN_GAMES = 5  # for the averages and the accuracy board


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    username: str
    value: float
    games: int
    is_me: bool
    provisional: bool = False  # a rating still uncertain (ratings.models.PROVISIONAL_RD)


@dataclass(frozen=True)
class Board:
    key: str
    title: str
    unit: str
    rows: list[BoardRow]


def _ranked(values: dict[int, tuple[float, int]], names: dict[int, str], me: int | None, *, low_first=False):
    order = sorted(
        values.items(), key=lambda kv: (kv[1][0] if low_first else -kv[1][0], names.get(kv[0], ""))
    )
    rows, rank, last = [], 0, None
    for i, (uid, (value, games)) in enumerate(order[:LEADERBOARD_SIZE], start=1):
        if value != last:
            rank, last = i, value
        rows.append(BoardRow(rank, uid, names.get(uid, "?"), value, games, uid == me))
    return rows


def leaderboards(*, user_ids, viewer_id: int | None) -> list[Board]:
    """Best total, average over the last 20 games, most Pentas, best accuracy, among these users
    (a list or a queryset of ids), over the games that count for records (`dicegame.records`: no
    hints, not local, the computer played at most STAND_IN_TURN_LIMIT of the person's turns).

    Cached under a key naming what the boards depend on (one cheap query): the users' finished games
    and analyses, the viewer and the language. The key counts the finished seats before the records
    filter: whether a finished game counts never changes after it finished, and the filter's per-seat
    subquery made the key cost as much as the boards (120 ms at 10,000 games).

    People off the boards for fair play (`accounts.selectors.off_board_ids`) are left out; who they are
    is part of the key, so a flag or a clearance shows at once."""
    off = sorted(off_board_ids(viewer_id=viewer_id).values_list("user_id", flat=True))
    finished = Player.objects.filter(user_id__in=user_ids, game__status=Game.Status.FINISHED).exclude(
        user_id__in=off
    )
    # The one rule of the records (dicegame.records), as the statistics and the end of a game count.
    seats = counted_seats(finished)
    state = finished.aggregate(
        n=Count("pk"),
        users=Count("user_id", distinct=True),
        last_id=Max("game_id"),
        last=Max("game__finished_at"),
        analysed=Count("pk", filter=Q(game__analysis__version=A.ANALYSIS_VERSION)),
    )
    who = ",".join(map(str, sorted(user_ids))) if isinstance(user_ids, list | tuple | set) else "site"
    key = (
        f"penta:boards:{A.ANALYSIS_VERSION}:{get_language()}:{viewer_id}:{who}:"
        f"{state['n']}:{state['users']}:{state['last_id']}:{state['last']}:{state['analysed']}:"
        f"off{','.join(map(str, off))}"
    )
    return cached(key, lambda: [_rating_board(user_ids, viewer_id, off), *_leaderboards(seats, viewer_id)])


def _rating_board(user_ids, viewer_id: int | None, off: list[int]) -> Board:
    """The Glicko-2 ratings of these users (those with a rated game). A rating changes only when one of
    its rated games finishes, which the boards' cache key counts."""
    values = {u: v for u, v in rating_board_values(user_ids).items() if u not in set(off)}
    names = {u: v[3] for u, v in values.items()}
    rows = _ranked({u: (v[0], v[1]) for u, v in values.items()}, names, viewer_id)
    return Board(
        "rating",
        _("Rating"),
        _("rating"),
        [replace(row, provisional=values[row.user_id][2]) for row in rows],
    )


def _leaderboards(seats, viewer_id: int | None) -> list[Board]:
    overall = {
        r["user_id"]: r
        for r in seats.values("user_id").annotate(
            games=Count("pk"),
            best=Max("total"),
            penta50=Count("pk", filter=Q(boxes__PENTA=50)),
            penta_bonus=Sum("penta_bonus"),
        )
    }
    recent = Window(
        RowNumber(),
        partition_by=[F("user_id")],
        order_by=[F("game__finished_at").desc(), F("game_id").desc()],
    )
    last: dict[int, list[int]] = {}
    for uid, total in (
        seats.annotate(n=recent).filter(n__lte=LEADERBOARD_RECENT).values_list("user_id", "total")
    ):
        last.setdefault(uid, []).append(total)
    accuracy: dict[int, list[float]] = {}
    for uid, seat, summary in (
        seats.filter(game__analysis__version=A.ANALYSIS_VERSION)
        .annotate(n=recent)
        .filter(n__lte=LEADERBOARD_RECENT)
        .values_list("user_id", "seat", "game__analysis__summary")
    ):
        s = (summary or {}).get(str(seat))
        value = game_accuracy(s) if s and s["decisions"] else None
        if value is not None:
            acc = accuracy.setdefault(uid, [0.0, 0])
            acc[0] += value
            acc[1] += 1
    names = dict(get_user_model().objects.filter(pk__in=overall.keys()).values_list("pk", "username"))
    return [
        Board(
            "best",
            _("Best total"),
            _("points"),
            _ranked({u: (r["best"], r["games"]) for u, r in overall.items()}, names, viewer_id),
        ),
        Board(
            "recent",
            _("Average over the last %(n)d games") % {"n": LEADERBOARD_RECENT},
            _("points"),
            _ranked(
                {
                    u: (round(sum(t) / len(t), 1), len(t))
                    for u, t in last.items()
                    if len(t) >= LEADERBOARD_MIN_GAMES
                },
                names,
                viewer_id,
            ),
        ),
        Board(
            "pentas",
            _("Most Pentas"),
            _("Pentas"),
            _ranked(
                {
                    u: (r["penta50"] + (r["penta_bonus"] or 0) // 100, r["games"])
                    for u, r in overall.items()
                    if r["penta50"]
                },
                names,
                viewer_id,
            ),
        ),
        Board(
            "accuracy",
            _("Best accuracy (last %(n)d analysed games)") % {"n": LEADERBOARD_RECENT},
            _("accuracy (0-100)"),
            _ranked(
                {
                    u: (round(a[0] / a[1], 1), a[1])
                    for u, a in accuracy.items()
                    if a[1] >= LEADERBOARD_MIN_GAMES
                },
                names,
                viewer_id,
            ),
        ),
    ]
