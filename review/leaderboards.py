"""Leaderboards among friends and site-wide: rating, best total, recent average, most Pentas, accuracy."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Max, Q, Sum, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.selectors import off_board_sets, opted_in_ids
from core import versions
from dicegame.models import Game, Player
from dicegame.records import counted_seats
from dicegame.strategy import analysis as A
from ratings.selectors import BoardRating, rating_board_values, rating_provisional
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
    rating: BoardRating | None = None  # on the rating board: what the provisional mark is worked out from


@dataclass(frozen=True)
class Board:
    key: str
    title: str
    unit: str
    rows: list[BoardRow]
    # Where its table's markup is cached: once per change of its people, for every viewer not on it.
    fragment: versions.Fragment | None = None
    # Where its table's markup is cached: once per change of its people, for every viewer not on it.
    fragment: versions.Fragment | None = None


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
    """Rating, best total, average over the last 20 games, most Pentas, best accuracy, among these users
    (ids: the viewer and their friends), over the games that count for records (`dicegame.records`: no
    hints, not local, the computer played at most STAND_IN_TURN_LIMIT of the person's turns).

    Worked out once per change of any of these people's games (their versions, `core.versions`)
    or of who is off the boards, per language, and shared by whoever asks for the same people; the
    viewer's own rows are marked at each view."""
    ids = sorted({uid for uid in user_ids if uid is not None})
    names = [*(versions.user(uid) for uid in ids), versions.PEOPLE]
    return _boards(f"people:{','.join(map(str, ids))}", ids, names, viewer_id)


def site_leaderboards(*, viewer_id: int | None) -> list[Board]:
    """The same boards among everyone who opted in to the site-wide boards: worked out once per finished
    game of anyone, analysis, rating refund or change of who shows on the boards (`core.versions`),
    and shared by every viewer."""
    return _boards("site", opted_in_ids(), [versions.SITE, versions.PEOPLE], viewer_id)


def _boards(scope: str, user_ids, names: list[str], viewer_id: int | None) -> list[Board]:
    """People off the boards for fair play (`accounts.selectors.off_board_ids`) are left out, except
    for someone under review looking at their own rows: only such a viewer gets boards of their own."""
    current = versions.read(names)
    review, marked = versions.cached(
        "accounts:off-board",
        [versions.PEOPLE],
        off_board_sets,
        versions={versions.PEOPLE: current[versions.PEOPLE]},
    )
    kept = viewer_id if viewer_id in review else None
    off = sorted(marked | (review - {kept}))
    key = f"review:boards:{A.ANALYSIS_VERSION}:{get_language()}:{scope}:{kept}"

    def compute() -> list[Board]:
        finished = Player.objects.filter(user_id__in=user_ids, game__status=Game.Status.FINISHED).exclude(
            user_id__in=off
        )
        # The one rule of the records (dicegame.records), as the statistics and the end of a game count.
        return [_rating_board(user_ids, off), *_leaderboards(counted_seats(finished), None)]

    boards = versions.cached(key, names, compute, versions=current)
    now = timezone.now()
    out = []
    for board in boards:
        rows = []
        for row in board.rows:
            is_me = row.user_id == viewer_id
            # The deviation widens with the weeks without a game: marked as of now.
            provisional = row.provisional if row.rating is None else rating_provisional(row.rating, now)
            if is_me != row.is_me or provisional != row.provisional:  # the shared row as it is, else a copy
                row = replace(row, is_me=is_me, provisional=provisional)
            rows.append(row)
        mine = viewer_id if any(row.is_me for row in rows) else None
        # The provisional marks are in the markup: its key names them.
        marks = "".join("1" if row.provisional else "0" for row in rows)
        fragment = versions.fragment(f"{key}:{board.key}:{mine}:{marks}", current)
        out.append(replace(board, rows=rows, fragment=fragment))
    return out


def _rating_board(user_ids, off: list[int]) -> Board:
    """The Glicko-2 ratings of these users (those with a rated game). A rating changes only when one of
    its rated games finishes (or a refund), which their versions count."""
    values = {u: v for u, v in rating_board_values(user_ids).items() if u not in set(off)}
    names = {u: v.username for u, v in values.items()}
    rows = _ranked({u: (v.value, v.games) for u, v in values.items()}, names, None)
    return Board(
        "rating",
        _("Rating"),
        _("rating"),
        [replace(row, rating=values[row.user_id]) for row in rows],
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
