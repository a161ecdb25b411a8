"""Reviewing past games: the stored analysis, the replay, a player's statistics, leaderboards, exports.

Reads and the one write (storing an analysis). The analysis itself is `dicegame.analysis` (pure); the
charts are `dicegame.charts` (pure SVG). Access checks stay in the views' callers: a game is reviewed
only through `selectors.game_for_viewer`, a player's statistics only after `player_visible`.

Every page here issues a bounded number of SQL queries whatever the number of games: the statistics
are aggregated in the database (the sheet's boxes are read with JSON key lookups), and the per-game
accuracy is read from the small `GameAnalysis.summary`, never from the whole analysis.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Exists, F, IntegerField, Max, OuterRef, Q, Subquery, Sum, Window
from django.db.models.expressions import ExpressionWrapper
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, RowNumber
from django.db.models.lookups import GreaterThanOrEqual
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from dicegame import analysis as A
from dicegame import charts
from dicegame.labels import box_label
from dicegame.models import Game, GameAnalysis, Player, Turn
from dicegame.scoring import UPPER_BONUS_THRESHOLD, UPPER_BOXES, Box, Scoresheet
from dicegame.services import Actor

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
TREND_BUCKETS = 12  # points of the "average loss per decision over time" chart
STATS_CACHE_SECONDS = 24 * 3600  # the key changes with every new finished or analysed game anyway
STATS_CATCH_UP = 10  # un-analysed finished games analysed per view of a player's page
LEADERBOARD_SIZE = 20
LEADERBOARD_RECENT = 20  # "average over the last 20 games"
LEADERBOARD_MIN_GAMES = 5  # for the averages and the accuracy board
SEAT_CLASSES = 4  # css classes series-0..3

# -- fairness of records -----------------------------------------------------------------------------
# Turns the computer played for an absent person (Turn.stand_in: a turn timer ran out, or the computer
# kept the seat) are optimal play, not the person's. A game in which it played more than this many of a
# person's 13 turns does not count for their best total, averages, accuracy or any leaderboard (it still
# counts as played). Two: one missed turn, or a single two-turn absence (a phone call, a dropped
# connection), is bad luck and changes a total by a few points; three or more is a real share of the game
# (two accounts that leave a 30-second room get 13 optimal turns each, 297 points, and must not top a
# leaderboard with them).
STAND_IN_TURN_LIMIT = 2


def stand_in_turns():
    """An expression for a seat (a Player queryset): how many of its turns the computer played for it."""
    return Coalesce(
        Subquery(
            Turn.objects.filter(player_id=OuterRef("pk"), stand_in=True)
            .order_by()
            .values("player_id")
            .annotate(n=Count("pk"))
            .values("n")[:1]
        ),
        0,
    )


def counted_seats(seats):
    """These seats (a Player queryset) less those whose game does not count for the person's records."""
    seats = seats.exclude(game__kind=Game.Kind.LOCAL)  # played on one device: never rated (dicegame.local)
    return seats.alias(stand_in_turns=stand_in_turns()).filter(stand_in_turns__lte=STAND_IN_TURN_LIMIT)


# A person left a finished game when they resigned (left_at), or when the computer still kept their seat
# at the end: the game is a loss for them against everyone still at the table.
LEFT = Q(left_at__isnull=False) | Q(stand_in=True)
AT_TABLE = Q(left_at__isnull=True, stand_in=False)


def seat_left(player: Player) -> bool:
    return player.left_at is not None or player.stand_in


def counts_for_records(player: Player) -> bool:
    """For a seat annotated with `stand_in_turns` (stand_in_turns())."""
    return player.stand_in_turns <= STAND_IN_TURN_LIMIT


def records_rule() -> str:
    """The rule in plain words, shown wherever records are."""
    return _(
        "A game in which the computer played more than %(n)d of a player's turns for them counts as "
        "played, but not for their best total, averages, accuracy or leaderboards. A game a player left "
        "counts as a loss against those still at the table."
    ) % {"n": STAND_IN_TURN_LIMIT}


class ReviewError(Exception):
    """A review request that cannot be answered; `status` is the HTTP status."""

    def __init__(self, message: str, *, status: int = 409):
        super().__init__(message)
        self.message = message
        self.status = status


# -- the stored analysis -----------------------------------------------------------------------------


def _turn_logs(turns: Iterable[dict], seat_of: dict[int, int]) -> list[A.TurnLog]:
    return [
        A.TurnLog(
            number=t["number"],
            round=t["round"],
            seat=seat_of[t["player_id"]],
            rolls=t["rolls"] or [],
            box=t["box"],
            points=t["points"],
            bonus=t["bonus"],
            auto_committed=t["auto_committed"],
            stand_in=t["stand_in"],
        )
        for t in turns
    ]


_TURN_FIELDS = ("game_id", "player_id", "number", "round", "rolls", "box", "points", "bonus")
_TURN_FLAGS = ("auto_committed", "stand_in")


def _completed_turns(game_ids: Iterable[int]) -> dict[int, list[dict]]:
    by_game: dict[int, list[dict]] = {}
    rows = (
        Turn.objects.filter(game_id__in=list(game_ids), completed_at__isnull=False)
        .order_by("game_id", "number")
        .values(*_TURN_FIELDS, *_TURN_FLAGS)
    )
    for row in rows:
        by_game.setdefault(row["game_id"], []).append(row)
    return by_game


def compute_analysis(game: Game, players: list[Player], turns: list[dict]) -> dict:
    seat_of = {p.pk: p.seat for p in players}
    return A.analyse_game(_turn_logs(turns, seat_of), [p.seat for p in players])


def _store(game: Game, data: dict) -> GameAnalysis:
    summary = A.summaries(data)
    try:
        with transaction.atomic():
            obj, created = GameAnalysis.objects.get_or_create(
                game=game, defaults={"version": A.ANALYSIS_VERSION, "data": data, "summary": summary}
            )
    except IntegrityError:  # a concurrent first view stored it between our get and create
        obj, created = GameAnalysis.objects.get(game=game), False
    if not created and obj.version != A.ANALYSIS_VERSION:
        obj.version, obj.data, obj.summary = A.ANALYSIS_VERSION, data, summary
        obj.save(update_fields=["version", "data", "summary"])
    return obj


def analysis_for(game: Game) -> GameAnalysis:
    """The game's analysis: read if stored (and current), else computed now and stored. Finished
    games only (ReviewError 409 otherwise); a log that cannot be replayed is ReviewError 422."""
    if not game.is_finished:
        raise ReviewError(_("This game is not finished yet: it can be reviewed once it is over."))
    stored = GameAnalysis.objects.filter(game=game).first()
    if stored is not None and stored.version == A.ANALYSIS_VERSION:
        return stored
    players = list(game.players.all())
    turns = _completed_turns([game.pk]).get(game.pk, [])
    try:
        data = compute_analysis(game, players, turns)
    except A.AnalysisError as exc:
        raise ReviewError(
            _("This game's log cannot be replayed, so it cannot be analysed (%(reason)s).") % {"reason": exc},
            status=422,
        ) from exc
    return _store(game, data)


def analyse_pending(game_ids: list[int]) -> int:
    """Analyse these finished games (those without a current analysis) in a few queries; a game whose
    log cannot be replayed is skipped. Returns how many were stored."""
    if not game_ids:
        return 0
    games = list(
        Game.objects.filter(pk__in=game_ids, status=Game.Status.FINISHED)
        .exclude(analysis__version=A.ANALYSIS_VERSION)
        .prefetch_related("players")
    )
    turns = _completed_turns(g.pk for g in games)
    fresh, stale = [], []
    stale_ids = set(
        GameAnalysis.objects.filter(game__in=games).values_list("game_id", flat=True)
    )  # older versions
    for game in games:
        try:
            data = compute_analysis(game, list(game.players.all()), turns.get(game.pk, []))
        except A.AnalysisError:
            continue
        row = GameAnalysis(game=game, version=A.ANALYSIS_VERSION, data=data, summary=A.summaries(data))
        (stale if game.pk in stale_ids else fresh).append(row)
    GameAnalysis.objects.bulk_create(fresh, ignore_conflicts=True)
    for row in stale:
        GameAnalysis.objects.filter(game=row.game).update(
            version=row.version, data=row.data, summary=row.summary
        )
    return len(fresh) + len(stale)


# -- the review page ---------------------------------------------------------------------------------


def keep_label(keep: list[int] | tuple[int, ...]) -> str:
    if not keep:
        return _("Reroll all five")
    if len(keep) == 5:
        return _("Hold all five: write now")
    return _("Hold %(dice)s") % {"dice": " ".join(str(v) for v in keep)}


def choice_label(choice: dict) -> str:
    if "box" in choice:
        return _("%(box)s (%(points)s)") % {"box": box_label(choice["box"]), "points": choice["points"]}
    return keep_label(choice["keep"])


# Lazy: built once at import, translated at each use in the viewer's language.
LABEL_NAMES = {
    A.BEST: gettext_lazy("best"),
    A.INACCURACY: gettext_lazy("inaccuracy"),
    A.MISTAKE: gettext_lazy("mistake"),
    A.BLUNDER: gettext_lazy("blunder"),
}


def label_name(label: str) -> str:
    return str(LABEL_NAMES.get(label, label))


def thresholds() -> list[dict]:
    """The labels and their bounds, for the legend."""
    bounds = [b for _l, b in A.THRESHOLDS]
    out = []
    lower = 0.0
    for label in A.LABELS:
        upper = bounds.pop(0) if bounds else None
        out.append({"label": label, "name": label_name(label), "lower": lower, "upper": upper})
        lower = upper if upper is not None else lower
    return out


@dataclass(frozen=True)
class Alternative:
    label: str
    value: float
    cost: float
    chosen: bool


@dataclass(frozen=True)
class Step:
    index: int
    turn: dict
    decision: dict
    player: Player
    is_first_of_turn: bool

    @property
    def kind(self) -> str:
        return self.decision["kind"]

    @property
    def roll(self) -> int:
        return self.decision["roll"]

    @property
    def dice(self) -> list[dict]:
        """The dice of this roll: value, held from the roll before, kept for the next roll."""
        d = self.decision
        before = self.turn["rolls"][d["roll"] - 1]["held"]
        keep_flags = d["held_next"] if d["kind"] == "keep" else [False] * 5
        return [
            {"index": i + 1, "value": v, "held_before": bool(before[i]), "kept": bool(keep_flags[i])}
            for i, v in enumerate(d["dice"])
        ]

    @property
    def chosen_label(self) -> str:
        return choice_label(self.decision["chosen"])

    @property
    def best_label(self) -> str:
        return choice_label(self.decision["best"])

    @property
    def cost(self) -> float:
        return self.decision["cost"]

    @property
    def label(self) -> str:
        return self.decision["label"]

    @property
    def label_name(self) -> str:
        return label_name(self.label)

    @property
    def counted(self) -> bool:
        return self.decision["counted"]

    @property
    def value(self) -> float:
        return self.decision["chosen"]["value"]

    @property
    def best_value(self) -> float:
        return self.decision["best"]["value"]

    @property
    def alternatives(self) -> list[Alternative]:
        best = self.best_value
        alts = [
            Alternative(
                choice_label(c), c["value"], max(0.0, best - c["value"]), c == self.decision["chosen"]
            )
            for c in self.decision["alternatives"]
        ]
        if not any(a.chosen for a in alts):
            alts.append(Alternative(self.chosen_label, self.value, self.cost, True))
        return alts


@dataclass(frozen=True)
class TurnRow:
    turn: dict
    player: Player
    first_step: int
    cost: float
    worst: str

    @property
    def box_label(self) -> str:
        return box_label(self.turn["box"])

    @property
    def roll_log(self) -> list[list[tuple[int, bool]]]:
        """Each roll as (face, held from the roll before) pairs."""
        return [list(zip(r["dice"], r["held"], strict=True)) for r in self.turn["rolls"]]


@dataclass(frozen=True)
class SeatReview:
    player: Player
    sheet: Scoresheet
    summary: dict
    css: str
    stand_in_turns: int = 0  # turns the computer played for this seat's absent person

    @property
    def not_counted(self) -> bool:
        """A person's seat whose game does not count for their records (STAND_IN_TURN_LIMIT)."""
        return not self.player.is_bot and self.stand_in_turns > STAND_IN_TURN_LIMIT

    @property
    def counts(self) -> list[tuple[str, str, int]]:
        return [(label, label_name(label), self.summary["counts"].get(label, 0)) for label in A.LABELS]


@dataclass(frozen=True)
class Review:
    game: Game
    seats: list[SeatReview]
    rows: list[dict]  # the final scoresheets, box by box
    steps: list[Step]
    turns: list[TurnRow]
    step: Step | None
    chart: SafeString
    thresholds: list[dict]

    @property
    def step_count(self) -> int:
        return len(self.steps)

    @property
    def prev_index(self) -> int | None:
        return self.step.index - 1 if self.step and self.step.index > 0 else None

    @property
    def next_index(self) -> int | None:
        return self.step.index + 1 if self.step and self.step.index + 1 < len(self.steps) else None

    @property
    def prev_turn_index(self) -> int | None:
        if not self.step:
            return None
        firsts = [t.first_step for t in self.turns if t.first_step < self.step.index]
        return firsts[-1] if firsts else None

    @property
    def next_turn_index(self) -> int | None:
        if not self.step:
            return None
        return next((t.first_step for t in self.turns if t.first_step > self.step.index), None)

    @property
    def step_sheet(self) -> list[dict]:
        """The current seat's sheet before this turn, box by box, with this decision's box marked."""
        if not self.step:
            return []
        seat = self.step.player.seat
        before: dict[str, int] = {}
        for t in self.steps_turns():
            if t["number"] >= self.step.turn["number"]:
                break
            if t["seat"] == seat:
                before[t["box"]] = t["points"]
        chosen = self.step.decision["chosen"].get("box")
        best = self.step.decision["best"].get("box")
        return [
            {
                "label": box_label(b),
                "points": before.get(b.name),
                "chosen": chosen == b.name,
                "best": best == b.name and chosen != b.name,
            }
            for b in Box
        ]

    def steps_turns(self) -> list[dict]:
        return [t.turn for t in self.turns]


def parse_step(raw: str | None, count: int) -> int:
    """The replay position from ?step=: a bad or out-of-range value is clamped, never an error."""
    try:
        n = int(str(raw).strip())
    except (TypeError, ValueError):
        return 0
    return max(0, min(n, count - 1)) if count else 0


def game_review(*, game: Game, stored: GameAnalysis, step: str | int | None) -> Review:
    data = stored.data
    players = list(game.players.all())
    by_seat = {p.seat: p for p in players}
    steps: list[Step] = []
    turns: list[TurnRow] = []
    for turn in data["turns"]:
        player = by_seat[turn["seat"]]
        first = len(steps)
        worst = A.BEST
        for i, d in enumerate(turn["decisions"]):
            steps.append(Step(len(steps), turn, d, player, i == 0))
            if A.LABELS.index(d["label"]) > A.LABELS.index(worst):
                worst = d["label"]
        turns.append(TurnRow(turn, player, first, round(sum(d["cost"] for d in turn["decisions"]), 4), worst))
    index = parse_step(step, len(steps))
    current = steps[index] if steps else None
    marker = None
    if current is not None:
        seat_values = data["seats"][str(current.player.seat)]["values"]
        offset = sum(1 for s in steps[: current.index] if s.player.seat == current.player.seat)
        marker = seat_values[offset + 1][0] if offset + 1 < len(seat_values) else None
    stand_ins = {p.seat: 0 for p in players}
    for turn in data["turns"]:
        stand_ins[turn["seat"]] += bool(turn.get("stand_in"))
    seats = [
        SeatReview(
            p,
            p.sheet,
            data["seats"][str(p.seat)]["summary"],
            f"series-{p.seat % SEAT_CLASSES}",
            stand_ins[p.seat],
        )
        for p in players
    ]
    rows = [
        {"label": box_label(b), "is_upper": b.is_upper, "cells": [s.sheet.boxes.get(b) for s in seats]}
        for b in Box
    ]
    return Review(
        game=game,
        seats=seats,
        rows=rows,
        steps=steps,
        turns=turns,
        step=current,
        chart=value_chart(data, players, marker_x=marker),
        thresholds=thresholds(),
    )


def value_chart(data: dict, players: list[Player], *, marker_x: float | None = None) -> SafeString:
    series = [
        charts.Series(
            p.display_name,
            [(x, y) for x, y in data["seats"][str(p.seat)]["values"]],
            f"series-{p.seat % SEAT_CLASSES}",
        )
        for p in players
    ]
    svg = charts.line_chart(
        series,
        title=_("Expected final total through the game"),
        desc=_(
            "For every player, the expected final total with optimal play from the position after each "
            "decision, from the first roll to the last box."
        ),
        x_max=13,
        x_ticks=[(r, str(r)) for r in range(0, 14)],
        y_label=_("Expected total"),
        marker_x=marker_x,
    )
    return mark_safe(svg)


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
    trend: SafeString = field(default_factory=lambda: mark_safe(""))
    trend_points: list[tuple[str, float]] = field(default_factory=list)
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


def cached(key: str, compute):
    """The value stored under `key`, or computed and stored (the keys name what the value depends on)."""
    key = "penta:review:" + hashlib.sha256(key.encode()).hexdigest()  # safe for any cache backend
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, STATS_CACHE_SECONDS)
    return value


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


def _accuracy(stats: PlayerStats, rows: list[tuple[int, Any, dict]]) -> None:
    per_game = []
    counts = dict.fromkeys(A.LABELS, 0)
    for seat, finished_at, summary in rows:
        s = (summary or {}).get(str(seat))
        if not s or not s["decisions"]:
            continue
        per_game.append((finished_at, s["loss"], s["decisions"]))
        for label in A.LABELS:
            counts[label] += s["counts"].get(label, 0)
    stats.analysed = len(rows)
    stats.counts = counts
    if not per_game:
        return
    total_loss = sum(g[1] for g in per_game)
    stats.decisions = sum(g[2] for g in per_game)
    stats.loss = total_loss / stats.decisions
    n = len(per_game)
    buckets = min(TREND_BUCKETS, n)
    points = []
    for b in range(buckets):
        chunk = per_game[b * n // buckets : (b + 1) * n // buckets]
        loss = sum(g[1] for g in chunk) / sum(g[2] for g in chunk)
        when = chunk[-1][0]
        points.append((when.strftime("%Y-%m-%d") if when else "", loss))
    stats.trend_points = points
    ticks = [(i, label) for i, (label, _v) in enumerate(points)]
    if len(ticks) > 6:
        ticks = ticks[:: -(-len(ticks) // 6)]
    stats.trend = mark_safe(
        charts.line_chart(
            [
                charts.Series(
                    _("Average loss per decision"), list(enumerate(v for _l, v in points)), "series-0"
                )
            ],
            title=_("Average loss per decision over time"),
            desc=_(
                "The player's analysed games in order, in %(n)d groups of about equal size: the "
                "expected points lost per decision in each group (lower is better)."
            )
            % {"n": buckets},
            x_max=max(1, buckets - 1),
            x_ticks=ticks,
            y_label=_("Points lost per decision"),
            y_floor=0,
        )
    )


def head_to_head(*, user_id: int, other_ids: Iterable[int]) -> list[HeadToHead]:
    """The user's record against each of these players over the finished games they both played.

    A game one of the two left is a loss for the one who left and a win for the other; a game both
    left is neither. The averages leave out a player's games that do not count for records."""
    other_ids = list(other_ids)
    if not other_ids:
        return []
    mine = Player.objects.filter(game_id=OuterRef("game_id"), user_id=user_id)
    my_stand_ins = Coalesce(
        Subquery(
            Turn.objects.filter(game_id=OuterRef("game_id"), player__user_id=user_id, stand_in=True)
            .order_by()
            .values("game_id")
            .annotate(n=Count("pk"))
            .values("n")[:1]
        ),
        0,
    )
    both_stay = Q(my_left=False) & AT_TABLE
    rows = (
        Player.objects.filter(
            user_id__in=other_ids,
            game__status=Game.Status.FINISHED,
            game_id__in=Player.objects.filter(user_id=user_id).values("game_id"),
        )
        .annotate(my_total=Subquery(mine.values("total")[:1]))
        .alias(
            my_left=Exists(mine.filter(LEFT)),
            my_stand_ins=my_stand_ins,
            their_stand_ins=stand_in_turns(),
        )
        .values("user_id", "user__username")
        .annotate(
            games=Count("pk"),
            wins=Count("pk", filter=(both_stay & Q(my_total__gt=F("total"))) | (Q(my_left=False) & LEFT)),
            losses=Count(
                "pk", filter=(both_stay & Q(my_total__lt=F("total"))) | (Q(my_left=True) & AT_TABLE)
            ),
            shared=Count("pk", filter=both_stay & Q(my_total=F("total"))),
            my_average=Avg("my_total", filter=Q(my_stand_ins__lte=STAND_IN_TURN_LIMIT)),
            their_average=Avg("total", filter=Q(their_stand_ins__lte=STAND_IN_TURN_LIMIT)),
        )
        .order_by("user__username")
    )
    found = {r["user_id"]: r for r in rows}
    out = []
    for user in get_user_model().objects.filter(pk__in=other_ids).order_by("username"):
        r = found.get(user.pk)
        out.append(
            HeadToHead(
                user.pk,
                user.get_username(),
                r["games"] if r else 0,
                r["wins"] if r else 0,
                r["losses"] if r else 0,
                r["shared"] if r else 0,
                r["my_average"] if r else None,
                r["their_average"] if r else None,
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


# -- leaderboards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    username: str
    value: float
    games: int
    is_me: bool


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
    (a list or a queryset of ids). Games with the optimal-play hints shown do not count, nor games in
    which the computer played more than STAND_IN_TURN_LIMIT of the person's turns.

    Cached under a key naming what the boards depend on (one cheap query): the users' counted games
    and analyses, the viewer and the language."""
    seats = counted_seats(
        Player.objects.filter(user_id__in=user_ids, game__status=Game.Status.FINISHED, game__hints_used=False)
    )
    state = seats.aggregate(
        n=Count("pk"),
        users=Count("user_id", distinct=True),
        last_id=Max("game_id"),
        last=Max("game__finished_at"),
        analysed=Count("pk", filter=Q(game__analysis__version=A.ANALYSIS_VERSION)),
    )
    who = ",".join(map(str, sorted(user_ids))) if isinstance(user_ids, list | tuple | set) else "site"
    key = (
        f"penta:boards:{A.ANALYSIS_VERSION}:{get_language()}:{viewer_id}:{who}:"
        f"{state['n']}:{state['users']}:{state['last_id']}:{state['last']}:{state['analysed']}"
    )
    return cached(key, lambda: _leaderboards(seats, viewer_id))


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
        if s and s["decisions"]:
            acc = accuracy.setdefault(uid, [0.0, 0, 0])
            acc[0] += s["loss"]
            acc[1] += s["decisions"]
            acc[2] += 1
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
            _("points lost per decision"),
            _ranked(
                {
                    u: (round(a[0] / a[1], 3), a[2])
                    for u, a in accuracy.items()
                    if a[2] >= LEADERBOARD_MIN_GAMES
                },
                names,
                viewer_id,
                low_first=True,
            ),
        ),
    ]


def opted_in_ids():
    from accounts.models import Profile

    return Profile.objects.filter(leaderboard_opt_in=True).values("user_id")


# -- exports -----------------------------------------------------------------------------------------


def game_export(*, game: Game) -> dict:
    """A finished game as JSON-ready data: seats, every roll, hold and box, the seed, the analysis."""
    if not game.is_finished:
        raise ReviewError(_("This game is not finished yet: its dice seed is still secret."))
    stored = analysis_for(game)
    players = list(game.players.all())
    turns = _completed_turns([game.pk]).get(game.pk, [])
    # Seats are numbered from 1, as people read them (and as the CSV export numbers them).
    seat_of = {p.pk: p.seat + 1 for p in players}
    return {
        "format": "penta-game/2",
        "game": game.pk,
        "kind": game.kind,
        "created_at": game.created_at.isoformat(),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "seed": game.seed,
        "seed_commitment": game.seed_commitment,
        "dice_recipe": "HMAC-SHA256(seed, 'penta/v1/{game}/{turn}/{roll}/{die}/{attempt}'), see README",
        "hints_used": game.hints_used,
        "players": [
            {
                "seat": p.seat + 1,
                "name": p.display_name,
                "computer": p.bot_strength or None,
                "boxes": p.boxes,
                "penta_bonus": p.penta_bonus,
                "total": p.total,
                "rank": p.rank,
            }
            for p in players
        ],
        "turns": [
            {
                "number": t["number"],
                "round": t["round"],
                "seat": seat_of[t["player_id"]],
                "rolls": t["rolls"],
                "box": t["box"],
                "points": t["points"],
                "bonus": t["bonus"],
                "auto_committed": t["auto_committed"],
                "stand_in": t["stand_in"],
            }
            for t in turns
        ],
        "analysis": {
            "version": stored.version,
            "thresholds": stored.data.get("thresholds"),
            "seats": {str(int(seat) + 1): v for seat, v in (stored.data.get("seats") or {}).items()},
            "decisions": [
                {
                    "turn": t["number"],
                    **{k: d[k] for k in ("kind", "roll", "chosen", "best", "cost", "label")},
                }
                for t in stored.data.get("turns", [])
                for d in t["decisions"]
            ],
        },
    }


CSV_HEADER = [
    "game",
    "created_at",
    "finished_at",
    "kind",
    "status",
    "seat",
    "players",
    "opponents",
    "total",
    "rank",
    "result",
    "upper_total",
    "upper_bonus",
    "penta_bonus",
    *(b.name.lower() for b in Box),
    "hints_used",
    "counts_for_records",  # 0: more than STAND_IN_TURN_LIMIT turns played by the computer, or not finished
]


def _csv_cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula is prefixed with an apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _seat_filter(actor: Actor) -> Q:
    q = Q(pk__in=[])
    if actor.user_id is not None:
        q |= Q(user_id=actor.user_id)
    if actor.guest_key:
        q |= Q(guest_key=actor.guest_key, user__isnull=True)
    return q


def history_csv(*, actor: Actor) -> Iterator[str]:
    """The actor's games, oldest first, as CSV lines (streamed: any number of games). Cancelled and
    expired rooms were never played and are left out. Computer players are named in the language active
    now (the lines are written after the view has returned)."""
    return _history_csv(actor, get_language())


def _history_csv(actor: Actor, language: str | None) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow(CSV_HEADER)
    yield flush()
    mine = Player.objects.filter(_seat_filter(actor)).exclude(
        game__status__in=[Game.Status.CANCELLED, Game.Status.EXPIRED]
    )
    seats = (
        mine.select_related("game")
        .annotate(
            players=Subquery(
                Player.objects.filter(game_id=OuterRef("game_id"))
                .values("game_id")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
            stand_in_turns=stand_in_turns(),
        )
        .order_by("game__created_at", "game_id")
    )
    opponents: dict[int, list[Player]] = {}
    others = (
        Player.objects.filter(game_id__in=mine.values("game_id"))
        .exclude(_seat_filter(actor))
        .order_by("game_id", "seat")
        .only("game_id", "seat", "name", "bot_strength", "total", "left_at", "stand_in")
    )
    for other in others.iterator(chunk_size=5000):
        opponents.setdefault(other.game_id, []).append(other)
    for p in seats.iterator(chunk_size=2000):
        sheet = p.sheet
        game = p.game
        others = opponents.get(game.pk, [])
        at_table = [o for o in others if not seat_left(o)]
        place = 1 + sum(1 for o in at_table if o.total > p.total)
        if not game.is_finished:
            with translation.override(language):
                result = str(game.get_status_display())
        elif p.left_at is not None and game.kind != Game.Kind.FRIENDS:
            result = "resigned"
        elif not others:
            result = "finished"
        elif seat_left(p):
            result = "left"  # a loss against everyone still at the table
        elif place == 1:
            result = "win"
        else:
            result = f"place {place}"
        with translation.override(language):
            names = "; ".join(o.display_name for o in others)
        writer.writerow(
            [
                game.pk,
                game.created_at.isoformat(),
                game.finished_at.isoformat() if game.finished_at else "",
                game.kind,
                game.status,
                p.seat + 1,
                p.players,
                _csv_cell(names),
                p.total,
                p.rank if p.rank is not None else "",
                result,
                sheet.upper_total,
                sheet.upper_bonus,
                sheet.penta_bonus,
                *(sheet.boxes.get(b, "") for b in Box),
                int(game.hints_used),
                int(game.is_finished and p.stand_in_turns <= STAND_IN_TURN_LIMIT),
            ]
        )
        yield flush()


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
