"""A player's statistics (who may see them, totals, boxes, accuracy over time) and head-to-head records.

Every page here issues a bounded number of SQL queries whatever the number of games: the statistics
are aggregated in the database (the sheet's boxes are read with JSON key lookups), and the per-game
accuracy is read from the small `GameAnalysis.summary`, never from the whole analysis.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Avg, Count, Exists, F, IntegerField, Max, OuterRef, Q, Sum
from django.db.models.expressions import ExpressionWrapper
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from dicegame import charts
from dicegame.analysis_store import analyse_pending
from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.records import AT_TABLE, STAND_IN_TURN_LIMIT, counted_seats, stand_in_turns
from dicegame.review.cache import cached
from dicegame.review.replay import label_name
from dicegame.rules.scoring import UPPER_BONUS_THRESHOLD, UPPER_BOXES, Box
from dicegame.strategy import analysis as A

# Average points per box under optimal play (the hard bot), and the standard error of each average:
# 20,000 solo games of `dicegame.strategy.simulate.play_game` with Bot("hard") and the dice seed
# simulate.seed_from_number(2026), games 0..19999 (see `optimal_box_averages` to recompute them). That
# run's mean total was 254.81 (upper bonus in 67.6% of games, 50 in the Penta box in 34.4%, Penta
# bonuses 10.0 points a game).
# Exact values would need the distribution over every sheet state, not just its expectation; a
# simulation this size pins each average to within about 0.1 point, far below what a player's own
# averages over their games can resolve.
OPTIMAL_BOX_GAMES = 20_000
OPTIMAL_BOX_AVERAGES: dict[str, tuple[float, float]] = {
    "ONES": (1.878, 0.009),
    "TWOS": (5.268, 0.014),
    "THREES": (8.541, 0.019),
    "FOURS": (12.14, 0.023),
    "FIVES": (15.664, 0.027),
    "SIXES": (19.195, 0.033),
    "THREE_OF_A_KIND": (21.697, 0.04),
    "FOUR_OF_A_KIND": (12.995, 0.078),
    "FULL_HOUSE": (22.536, 0.053),
    "SMALL_STRAIGHT": (29.469, 0.028),
    "LARGE_STRAIGHT": (32.536, 0.11),
    "CHANCE": (22.005, 0.018),
    "PENTA": (17.205, 0.168),
}

HISTOGRAM_BUCKET = 25  # points per bar of the histogram of totals
TREND_BUCKETS = 12  # points of the "accuracy over time" and "luck over time" charts

# The computer players' accuracy (analysis.accuracy): 300 solo games each on the dice seed
# simulate.seed_from_number(2026), games 0..299, each analysed (`bench/review_costs.py --calibrate 300`):
# median, lower and upper quartile, mean loss per turn. Shown on the statistics page as the yardstick.
BOT_ACCURACY: dict[str, tuple[float, float, float, float]] = {
    "hard": (100.0, 100.0, 100.0, 0.0),
    "medium": (85.7, 79.2, 90.2, 0.77),
    "easy": (38.5, 30.3, 46.4, 4.452),
}
STATS_CATCH_UP = 10  # un-analysed finished games analysed per view of a player's page


# -- who may see a player's statistics ----------------------------------------------------------------


def player_visible(*, viewer_id: int | None, target) -> bool:
    """A player's statistics: themselves, their friends, and everyone if they opted in to the
    site-wide leaderboard."""
    from accounts.models import Profile
    from accounts.selectors import are_friends

    if viewer_id is not None and viewer_id == target.pk:
        return True
    if Profile.objects.filter(user=target, leaderboard_opt_in=True).exists():
        return True
    return viewer_id is not None and are_friends(a=viewer_id, b=target.pk)


def opted_in(user_id: int) -> bool:
    from accounts.models import Profile

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
    return Player.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED)


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


@dataclass(frozen=True)
class HeadToHead:
    user_id: int
    username: str
    games: int
    wins: int
    losses: int
    shared: int
    my_average: float | None
    their_average: float | None


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
    key: str = ""  # the cache key: changes with every new finished or analysed game of the player

    @property
    def label_counts(self) -> list[tuple[str, str, int]]:
        return [(label, label_name(label), self.counts.get(label, 0)) for label in A.LABELS]

    @property
    def not_counted(self) -> int:
        return self.games - self.counted


def player_stats(*, user_id: int, catch_up: int = STATS_CATCH_UP) -> PlayerStats:
    """Everything on a player's page, in a fixed number of queries (plus, when some of the player's
    finished games have no analysis yet, a fixed number more to analyse up to `catch_up` of the newest).

    The statistics change only when a game of the player finishes or is analysed, so they are cached
    under a key made of exactly that (one cheap query): a repeated view costs two queries."""
    seats = _finished_seats(user_id)
    if catch_up:
        pending_ids = list(
            seats.exclude(game__analysis__version=A.ANALYSIS_VERSION)
            .order_by("-game__finished_at", "-game_id")
            .values_list("game_id", flat=True)[:catch_up]
        )
        analyse_pending(pending_ids)
    state = seats.aggregate(
        n=Count("pk"),
        last=Max("game__finished_at"),
        last_id=Max("game_id"),
        analysed=Count("pk", filter=Q(game__analysis__version=A.ANALYSIS_VERSION)),
    )
    last = state["last"].timestamp() if state["last"] else 0
    key = (
        f"penta:stats:{A.ANALYSIS_VERSION}:{get_language()}:{user_id}:"
        f"{state['n']}:{state['last_id']}:{last}:{state['analysed']}"
    )
    stats = cached(key, lambda: _player_stats(seats))
    stats.key = key
    return stats


def _player_stats(seats) -> PlayerStats:
    stats = PlayerStats()

    # A win: the best total among the people still at the table (a seat that left is a loss; computer
    # players never leave). Shared: another seat still at the table has the same total.
    at_table = Player.objects.filter(AT_TABLE, game_id=OuterRef("game_id")).exclude(pk=OuterRef("pk"))
    beaten = Exists(at_table.filter(total__gt=OuterRef("total")))
    tied = Exists(at_table.filter(total=OuterRef("total")))
    win = ~Q(game__kind=Game.Kind.SOLO) & AT_TABLE & ~Q(beaten)
    counted = Q(stand_in_turns__lte=STAND_IN_TURN_LIMIT)
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


def bot_accuracy() -> list[dict]:
    """The computer players' typical accuracy, for the statistics page."""
    labels = {"easy": _("easy"), "medium": _("medium"), "hard": _("hard")}  # as labels.bot_name says
    return [
        {
            "strength": k,
            "name": _("Computer (%(strength)s)") % {"strength": labels[k]},
            "median": m,
            "low": lo,
            "high": hi,
            "loss": loss,
        }
        for k, (m, lo, hi, loss) in BOT_ACCURACY.items()
    ]


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


def head_to_head(*, user_id: int, other_ids: Iterable[int]) -> list[HeadToHead]:
    """The user's record against each of these players over the finished games they both played.

    A game one of the two left is a loss for the one who left and a win for the other; a game both
    left is neither. The averages leave out a player's games that do not count for records.

    Four queries whatever the number of games, each reading rows by an index, and the pairing done here:
    correlated subqueries per game pair ("my total in this game", "did I leave it") made SQLite scan all
    of the user's seats for every game, quadratic in the history (30 s at 10,000 games)."""
    other_ids = list(other_ids)
    if not other_ids:
        return []
    mine: dict[int, dict] = {}
    for row in (
        Player.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED)
        .order_by("game_id", "seat")
        .values("game_id", "total", "left_at", "stand_in")
    ):
        game = mine.setdefault(row["game_id"], {"total": row["total"], "left": False, "stand_ins": 0})
        game["left"] |= row["left_at"] is not None or row["stand_in"]  # one seat's total, any seat's leaving
    for game_id, n in (
        Turn.objects.filter(player__user_id=user_id, stand_in=True)
        .order_by()
        .values("game_id")
        .annotate(n=Count("pk"))
        .values_list("game_id", "n")
    ):
        if game_id in mine:
            mine[game_id]["stand_ins"] = n
    theirs = (
        Player.objects.filter(
            user_id__in=other_ids,
            game__status=Game.Status.FINISHED,
            game_id__in=Player.objects.filter(user_id=user_id).values("game_id"),
        )
        .annotate(their_stand_ins=stand_in_turns())
        .values("user_id", "game_id", "total", "left_at", "stand_in", "their_stand_ins")
    )
    tally: dict[int, dict] = {}
    for row in theirs:
        me = mine.get(row["game_id"])
        if me is None:
            continue
        t = tally.setdefault(
            row["user_id"], {"games": 0, "wins": 0, "losses": 0, "shared": 0, "my": [], "their": []}
        )
        they_left = row["left_at"] is not None or row["stand_in"]
        both_stay = not me["left"] and not they_left
        t["games"] += 1
        t["wins"] += (both_stay and me["total"] > row["total"]) or (not me["left"] and they_left)
        t["losses"] += (both_stay and me["total"] < row["total"]) or (me["left"] and not they_left)
        t["shared"] += both_stay and me["total"] == row["total"]
        if me["stand_ins"] <= STAND_IN_TURN_LIMIT:
            t["my"].append(me["total"])
        if row["their_stand_ins"] <= STAND_IN_TURN_LIMIT:
            t["their"].append(row["total"])
    out = []
    for user in get_user_model().objects.filter(pk__in=other_ids).order_by("username"):
        t = tally.get(user.pk)
        out.append(
            HeadToHead(
                user.pk,
                user.get_username(),
                t["games"] if t else 0,
                t["wins"] if t else 0,
                t["losses"] if t else 0,
                t["shared"] if t else 0,
                sum(t["my"]) / len(t["my"]) if t and t["my"] else None,
                sum(t["their"]) / len(t["their"]) if t and t["their"] else None,
            )
        )
    return out


def recent_games(*, user_id: int, only_kind: str | None = None, limit: int = 10) -> list[Player]:
    """The user's newest finished seats, each with `stand_in_turns` (see `counts_for_records`)."""
    seats = (
        _finished_seats(user_id)
        .select_related("game")
        .annotate(stand_in_turns=stand_in_turns())
        .order_by("-game__finished_at", "-game_id")
    )
    if only_kind:
        seats = seats.filter(game__kind=only_kind)
    return list(seats[:limit])


# -- optimal play's averages per box -----------------------------------------------------------------


def optimal_box_averages(
    games: int = OPTIMAL_BOX_GAMES, seed: str | None = None
) -> dict[str, tuple[float, float]]:
    """Recompute OPTIMAL_BOX_AVERAGES: box -> (average points, standard error) over `games` solo games
    of the hard bot (about 17 ms a game)."""
    import math

    from dicegame.strategy import Bot
    from dicegame.strategy.simulate import play_game, seed_from_number

    seed = seed or seed_from_number(2026)
    bot = Bot("hard")
    sums = dict.fromkeys((b.name for b in Box), 0.0)
    squares = dict.fromkeys((b.name for b in Box), 0.0)
    for g in range(games):
        for box, points in play_game(bot, seed, g).boxes.items():
            sums[box.name] += points
            squares[box.name] += points * points
    out = {}
    for name, s in sums.items():
        mean = s / games
        sd = math.sqrt(max(0.0, squares[name] / games - mean * mean))
        out[name] = (round(mean, 3), round(sd / math.sqrt(games), 3))
    return out
