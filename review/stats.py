"""A player's statistics: who may see them, totals, boxes, accuracy and luck over time, recent games
(head to head is `review.head_to_head`; the yardsticks, `review.yardsticks`).

Every page here issues a bounded number of SQL queries whatever the number of games: the statistics
are aggregated in the database (the sheet's boxes are read with JSON key lookups), and the per-game
accuracy is read from the small `GameAnalysis.summary`, never from the whole analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Avg, Count, Exists, F, IntegerField, Max, OuterRef, Q, Sum
from django.db.models.expressions import ExpressionWrapper
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import audiences, may_see_games_of
from analysis.store import analyse_pending
from core import charts, versions
from dicegame.labels import box_label
from dicegame.models import Game, Player
from dicegame.records import (
    AT_TABLE,
    COUNTS,
    counted_seats,
    counts_for_records,
    revealed_seats,
    stand_in_turns,
)
from dicegame.rules.scoring import UPPER_BONUS_THRESHOLD, UPPER_BOXES, Box
from dicegame.strategy import analysis as A
from review.replay import label_name
from review.yardsticks import OPTIMAL_BOX_AVERAGES

HISTOGRAM_BUCKET = 25  # points per bar of the histogram of totals
TREND_BUCKETS = 12  # points of the "accuracy over time" and "luck over time" charts

STATS_CATCH_UP = 10  # un-analysed finished games analysed per view of a player's page


# -- who may see a player's statistics ----------------------------------------------------------------


def player_visible(*, viewer_id: int | None, target, friend_ids=None) -> bool:
    """A player's statistics: themselves; else whoever their choice lets in (everyone, their friends,
    only them: accounts.selectors.may_see_games_of), never someone a block stands between them and
    (`friend_ids`: the viewer's friends, when the caller has read them)."""
    audience = audiences([target.pk])[target.pk]
    return may_see_games_of(
        viewer_id=viewer_id, target_id=target.pk, audience=audience, friend_ids=friend_ids
    )


def opted_in(user_id: int) -> bool:
    return Profile.objects.filter(user_id=user_id, leaderboard_opt_in=True).exists()


# -- a player's statistics ---------------------------------------------------------------------------


def _box_points(box: Box):
    return Cast(KT(f"boxes__{box.name}"), IntegerField())


def _upper_sum():
    expr = _box_points(UPPER_BOXES[0])
    for box in UPPER_BOXES[1:]:
        expr = expr + _box_points(box)
    return ExpressionWrapper(expr, output_field=IntegerField())


def _finished_seats(user_id: int):
    """The person's finished seats, less those whose dice are still secret (a tournament round still
    open, `dicegame.records.secret_until`): those are in no figure of the page until the round closes."""
    return revealed_seats(Player.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED))


@dataclass(frozen=True)
class KindStats:
    kind: str
    label: str
    games: int
    wins: int
    shared_wins: int
    average: float | None
    best: int | None
    counted: int = 0  # the games that count for records (see STAND_IN_TURN_LIMIT)


@dataclass(frozen=True)
class BoxStats:
    box: Box
    label: str
    average: float | None
    optimal: float

    @property
    def difference(self) -> float | None:
        return None if self.average is None else self.average - self.optimal


@dataclass
class PlayerStats:
    games: int = 0
    counted: int = 0  # of `games`, those that count for records (see STAND_IN_TURN_LIMIT)
    average: float | None = None
    best: int | None = None
    wins: int = 0
    shared_wins: int = 0
    upper_bonus_rate: float | None = None
    penta_rate: float | None = None
    pentas: int = 0
    by_kind: list[KindStats] = field(default_factory=list)
    boxes: list[BoxStats] = field(default_factory=list)
    histogram: SafeString = field(default_factory=lambda: mark_safe(""))
    trend: SafeString = field(default_factory=lambda: mark_safe(""))  # accuracy over time
    trend_points: list[tuple[str, float]] = field(default_factory=list)
    luck_trend: SafeString = field(default_factory=lambda: mark_safe(""))
    luck_points: list[tuple[str, float]] = field(default_factory=list)
    box_loss_chart: SafeString = field(default_factory=lambda: mark_safe(""))
    box_loss: list[tuple[str, str, float]] = field(
        default_factory=list
    )  # (box, label, loss per game), worst first
    accuracy: float | None = None  # mean of the per-game accuracies
    luck: float | None = None  # mean luck per game
    luck_games: int = 0
    analysed: int = 0
    pending: int = 0
    loss: float | None = None  # average loss per decision over the analysed games
    decisions: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    key: str = ""  # what names the player's cached figures (core.versions adds their version)
    fragment: versions.Fragment | None = None  # where the page's markup of them is cached

    @property
    def label_counts(self) -> list[tuple[str, str, int]]:
        return [(label, label_name(label), self.counts.get(label, 0)) for label in A.LABELS]

    @property
    def not_counted(self) -> int:
        return self.games - self.counted


def player_stats(*, user_id: int, catch_up: int = STATS_CATCH_UP, current=None) -> PlayerStats:
    """Everything on a player's page, in a fixed number of queries (plus, when some of the player's
    finished games have no analysis yet, a fixed number more to analyse up to `catch_up` of the newest).

    The statistics change only when a game of the player finishes or is analysed: they are worked out
    once per version of the player (`core.versions`; `current`, when the caller has read it) and
    cached, so a repeated view reads no game. `key` names them (head to head and the recent games are
    cached under it too)."""
    names = [versions.user(user_id)]
    current = current if current is not None else versions.read(names)
    seats = _finished_seats(user_id)
    base = f"review:stats:{A.ANALYSIS_VERSION}:{get_language()}:{user_id}"
    known = versions.peek(base, current)
    # Finished games are analysed as they end: only figures that are missing or count some games
    # without an analysis look for them.
    if catch_up and (known is None or known.pending):
        pending_ids = list(
            counted_seats(seats)
            .exclude(game__analysis__version=A.ANALYSIS_VERSION)
            .order_by("-game__finished_at", "-game_id")
            .values_list("game_id", flat=True)[:catch_up]
        )
        if analyse_pending(pending_ids):  # the player's version moved on: the figures count them now
            current = versions.read(names)

    def compute() -> PlayerStats:
        stats = _player_stats(seats)
        stats.key = base
        stats.fragment = versions.fragment(base, current)
        return stats

    # Shared by the requests that read it (core.versions): not to be changed after this.
    return versions.cached(base, names, compute, versions=current)


def _player_stats(seats) -> PlayerStats:
    stats = PlayerStats()

    # A win: the best total among the people still at the table (a seat that left is a loss; computer
    # players never leave). Shared: another seat still at the table has the same total.
    at_table = Player.objects.filter(AT_TABLE, game_id=OuterRef("game_id")).exclude(pk=OuterRef("pk"))
    beaten = Exists(at_table.filter(total__gt=OuterRef("total")))
    tied = Exists(at_table.filter(total=OuterRef("total")))
    win = ~Q(game__kind=Game.Kind.SOLO) & AT_TABLE & ~Q(beaten)
    counted = COUNTS  # the one rule of the records (dicegame.records)
    kinds = {
        row["game__kind"]: row
        for row in seats.alias(stand_in_turns=stand_in_turns())
        .values("game__kind")
        .annotate(
            games=Count("pk"),
            counted=Count("pk", filter=counted),
            wins=Count("pk", filter=win & ~Q(tied)),
            shared_wins=Count("pk", filter=win & Q(tied)),
            average=Avg("total", filter=counted),
            best=Max("total", filter=counted),
        )
    }
    for kind, label in Game.Kind.choices:
        row = kinds.get(kind)
        stats.by_kind.append(
            KindStats(
                kind,
                str(label),
                row["games"] if row else 0,
                row["wins"] if row else 0,
                row["shared_wins"] if row else 0,
                row["average"] if row else None,
                row["best"] if row else None,
                row["counted"] if row else 0,
            )
        )
    stats.games = sum(k.games for k in stats.by_kind)
    stats.counted = sum(k.counted for k in stats.by_kind)
    stats.wins = sum(k.wins for k in stats.by_kind)
    stats.shared_wins = sum(k.shared_wins for k in stats.by_kind)

    # Totals, rates, boxes and accuracy: only the games that count for records.
    seats = counted_seats(seats)
    agg = seats.aggregate(
        average=Avg("total"),
        best=Max("total"),
        bonus=Count("pk", filter=GreaterThanOrEqual(_upper_sum(), UPPER_BONUS_THRESHOLD)),
        penta50=Count("pk", filter=Q(boxes__PENTA=50)),
        penta_bonus=Sum("penta_bonus"),
        **{f"box_{b.name}": Avg(_box_points(b)) for b in Box},
    )
    stats.average, stats.best = agg["average"], agg["best"]
    if stats.counted:
        stats.upper_bonus_rate = agg["bonus"] / stats.counted
        stats.penta_rate = agg["penta50"] / stats.counted
    stats.pentas = agg["penta50"] + (agg["penta_bonus"] or 0) // 100
    stats.boxes = [
        BoxStats(b, box_label(b), agg[f"box_{b.name}"], OPTIMAL_BOX_AVERAGES[b.name][0]) for b in Box
    ]

    bucket = ExpressionWrapper(F("total") / HISTOGRAM_BUCKET, output_field=IntegerField())
    counts = dict(
        seats.annotate(bucket=bucket).values("bucket").annotate(n=Count("pk")).values_list("bucket", "n")
    )
    if counts:
        lo, hi = min(counts), max(counts)
        bars = [
            (f"{b * HISTOGRAM_BUCKET}–{(b + 1) * HISTOGRAM_BUCKET - 1}", counts.get(b, 0))
            for b in range(lo, hi + 1)
        ]
        stats.histogram = mark_safe(
            charts.bar_chart(
                bars,
                title=_("Totals"),
                desc=_("How many games ended with a total in each range of %(n)d points.")
                % {"n": HISTOGRAM_BUCKET},
            )
        )

    rows = list(
        seats.filter(game__analysis__version=A.ANALYSIS_VERSION)
        .order_by("game__finished_at", "game_id")
        .values_list("seat", "game__finished_at", "game__analysis__summary")
    )
    stats.pending = stats.counted - len(rows)
    _accuracy(stats, rows)
    return stats


def game_accuracy(s: dict) -> float | None:
    """A game's accuracy from its stored summary (summaries of version 1 had no turns: none)."""
    if s.get("accuracy") is not None:
        return s["accuracy"]
    return A.accuracy(s["loss"], s["turns"]) if s.get("turns") else None


def _buckets(items: list[tuple[Any, float]]) -> list[tuple[str, float]]:
    """(finished_at, value) in time order -> TREND_BUCKETS points: each group's mean, dated by its end."""
    n = len(items)
    buckets = min(TREND_BUCKETS, n)
    points = []
    for b in range(buckets):
        chunk = items[b * n // buckets : (b + 1) * n // buckets]
        when = chunk[-1][0]
        points.append((when.strftime("%Y-%m-%d") if when else "", sum(v for _w, v in chunk) / len(chunk)))
    return points


def _trend_chart(points: list[tuple[str, float]], *, name: str, title: str, desc: str, y_label: str, **kw):
    ticks = [(i, label) for i, (label, _v) in enumerate(points)]
    if len(ticks) > 6:
        ticks = ticks[:: -(-len(ticks) // 6)]
    return mark_safe(
        charts.line_chart(
            [charts.Series(name, list(enumerate(v for _l, v in points)), "series-0")],
            title=title,
            desc=desc,
            x_max=max(1, len(points) - 1),
            x_ticks=ticks,
            y_label=y_label,
            **kw,
        )
    )


def _accuracy(stats: PlayerStats, rows: list[tuple[int, Any, dict]]) -> None:
    per_game = []
    accuracies: list[tuple[Any, float]] = []
    lucks: list[tuple[Any, float]] = []
    box_loss: dict[str, float] = {}
    counts = dict.fromkeys(A.LABELS, 0)
    for seat, finished_at, summary in rows:
        s = (summary or {}).get(str(seat))
        if not s or not s["decisions"]:
            continue
        per_game.append((finished_at, s["loss"], s["decisions"]))
        for label in A.LABELS:
            counts[label] += s["counts"].get(label, 0)
        acc = game_accuracy(s)
        if acc is not None:
            accuracies.append((finished_at, acc))
        if s.get("luck") is not None:
            lucks.append((finished_at, s["luck"]))
        for box, loss in (s.get("box_loss") or {}).items():
            box_loss[box] = box_loss.get(box, 0.0) + loss
    stats.analysed = len(rows)
    stats.counts = counts
    if not per_game:
        return
    stats.decisions = sum(g[2] for g in per_game)
    stats.loss = sum(g[1] for g in per_game) / stats.decisions
    n = len(per_game)
    if accuracies:
        stats.accuracy = sum(v for _w, v in accuracies) / len(accuracies)
        stats.trend_points = _buckets(accuracies)
        stats.trend = _trend_chart(
            stats.trend_points,
            name=_("Accuracy"),
            title=_("Accuracy over time"),
            desc=_(
                "The player's analysed games in order, in %(n)d groups of about equal size: the mean "
                "accuracy of each group (100 is optimal play)."
            )
            % {"n": len(stats.trend_points)},
            y_label=_("Accuracy"),
        )
    if lucks:
        stats.luck = sum(v for _w, v in lucks) / len(lucks)
        stats.luck_games = len(lucks)
        stats.luck_points = _buckets(lucks)
        stats.luck_trend = _trend_chart(
            stats.luck_points,
            name=_("Luck per game"),
            title=_("Luck over time"),
            desc=_(
                "The player's analysed games in order, in %(n)d groups of about equal size: the mean luck "
                "of the dice per game in each group, in expected points (0 is average dice)."
            )
            % {"n": len(stats.luck_points)},
            y_label=_("Luck (points)"),
            y_floor=0,
        )
    if box_loss:
        stats.box_loss = sorted(
            ((b, box_label(b), v / n) for b, v in box_loss.items() if b in Box.__members__),
            key=lambda r: -r[2],
        )
        stats.box_loss_chart = mark_safe(
            charts.hbar_chart(
                [(label, round(v, 2)) for _b, label, v in stats.box_loss],
                title=_("Where the points are lost"),
                desc=_(
                    "For each box, the expected points lost per game in the turns that ended in it (holds "
                    "and the box itself), worst first."
                ),
            )
        )


def recent_games(*, user_id: int, only_kind: str | None = None, limit: int = 10) -> list[Player]:
    """The user's newest finished seats, each with `stand_in_turns` and `counts` (whether it counts for
    the records: `dicegame.records.counts_for_records`)."""
    seats = (
        _finished_seats(user_id)
        .select_related("game")
        .annotate(stand_in_turns=stand_in_turns())
        .order_by("-game__finished_at", "-game_id")
    )
    if only_kind:
        seats = seats.filter(game__kind=only_kind)
    seats = list(seats[:limit])
    for seat in seats:
        seat.counts = counts_for_records(game=seat.game, stand_in_turns=seat.stand_in_turns)
    return seats
