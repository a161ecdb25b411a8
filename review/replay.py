"""The review page of one finished game: the step-by-step replay, the final sheets, the value chart."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core import charts
from dicegame.labels import box_label, keep_label
from dicegame.models import Game, GameAnalysis, Player
from dicegame.records import not_counted_reason, secret_until
from dicegame.rules.scoring import UPPER_BONUS, UPPER_BONUS_THRESHOLD, Box, Scoresheet
from dicegame.strategy import analysis as A
from winprob import live as winprob_live
from winprob import review as winprob_review

SEAT_CLASSES = 4  # css classes series-0..3


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
    def luck(self) -> float | None:
        """The luck of the roll this decision answers (None: a box written after holding all five)."""
        return self.decision.get("luck")

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
    def luck(self) -> float:
        return round(sum(r.get("luck") or 0.0 for r in self.turn["rolls"]), 4)

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
    figures: dict | None = None  # the analysis's seat: start, luck, total_loss, adjusted, accuracy, optimal

    @property
    def start(self) -> float:
        return self.figures["start"]

    @property
    def luck(self) -> float | None:
        """None while the game's dice are secret (`Review.results_secret_until`)."""
        return self.figures.get("luck")

    @property
    def total_loss(self) -> float:
        return self.figures["total_loss"]

    @property
    def adjusted(self) -> float:
        """Luck-adjusted score: V(start) minus what the choices gave up, i.e. what they were worth on
        average dice."""
        return self.figures["adjusted"]

    @property
    def accuracy(self) -> float | None:
        return self.figures.get("accuracy")

    @property
    def optimal_total(self) -> int | None:
        optimal = self.figures.get("optimal")
        return optimal["total"] if optimal else None

    @property
    def not_counted(self) -> bool:
        """A person's seat whose game will never count for their records (dicegame.records' one rule; a
        round whose dice are still secret is not in the records yet, which the page says apart)."""
        return not self.player.is_bot and bool(
            not_counted_reason(game=self.player.game, stand_in_turns=self.stand_in_turns)
        )

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
    luck_chart: SafeString = field(default_factory=lambda: mark_safe(""))
    line: str = "own"  # "optimal": the replay shows the optimal player's turn on the same dice
    optimal_turn: OptimalTurn | None = None
    # A daily challenge's optimal line shows dice at slots the player never saw, which are everyone's
    # dice of the day: until the day ends only its total (the par) is shown.
    optimal_secret_until: datetime | None = None
    # A tournament round still open (dicegame.records.secret_until): until it closes the review shows the
    # player's own play only, neither the par nor the luck of the round's dice.
    results_secret_until: datetime | None = None
    # Every seat's chance of winning through the game (winprob), its largest swings, or "on its way".
    win_chart: SafeString = field(default_factory=lambda: mark_safe(""))
    win_swings: list = field(default_factory=list)
    win_pending: bool = False

    @property
    def line_query(self) -> str:
        return "&line=optimal" if self.line == "optimal" else ""

    @property
    def current_turn_first_step(self) -> int | None:
        if not self.step:
            return None
        return next(t.first_step for t in self.turns if t.turn["number"] == self.step.turn["number"])

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


@dataclass(frozen=True)
class OptimalTurn:
    """The optimal player's turn on a seat's own dice (the same round, the seat's slots of the seed)."""

    turn: dict  # as analysis.optimal_line stores it: round, number, rolls, box, points, bonus, total
    own_total: int  # the seat's own total after its turn of this round
    optimal_total: int  # the optimal player's final total on these dice

    @property
    def box_label(self) -> str:
        return box_label(self.turn["box"])

    @property
    def rolls(self) -> list[list[dict]]:
        """Each roll's dice: value, and whether it was held from the roll before."""
        return [
            [{"value": v, "held": bool(h)} for v, h in zip(r["dice"], r["held"], strict=True)]
            for r in self.turn["rolls"]
        ]


def parse_line(raw: str | None) -> str:
    return "optimal" if raw == "optimal" else "own"


def parse_step(raw: str | None, count: int) -> int:
    """The replay position from ?step=: a bad or out-of-range value is clamped, never an error."""
    try:
        n = int(str(raw).strip())
    except (TypeError, ValueError):
        return 0
    return max(0, min(n, count - 1)) if count else 0


def game_review(
    *, game: Game, stored: GameAnalysis, step: str | int | None, line: str | None = None
) -> Review:
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
            data["seats"][str(p.seat)],
        )
        for p in players
    ]
    results_secret = secret_until(game)
    if results_secret is not None:
        hidden = [without_the_dice(s.figures) for s in seats]
        seats = [replace(s, figures=h, summary=h["summary"]) for s, h in zip(seats, hidden, strict=True)]
    line_kind = parse_line(line)
    optimal_turn = None
    if current is not None:
        optimal = data["seats"][str(current.player.seat)].get("optimal")
        rnd = current.turn["round"]
        if optimal and 1 <= rnd <= len(optimal["turns"]):
            own = sum(
                (t["points"] or 0) + (t["bonus"] or 0)
                for t in data["turns"]
                if t["seat"] == current.player.seat and t["number"] <= current.turn["number"]
            )
            upper = sum(
                t["points"] or 0
                for t in data["turns"]
                if t["seat"] == current.player.seat
                and t["number"] <= current.turn["number"]
                and Box[t["box"]].is_upper
            )
            own += UPPER_BONUS if upper >= UPPER_BONUS_THRESHOLD else 0
            optimal_turn = OptimalTurn(optimal["turns"][rnd - 1], own, optimal["total"])
    seed_secret_until = game.seed_secret_until
    if seed_secret_until is not None or results_secret is not None:
        optimal_turn = None
    if optimal_turn is None:
        line_kind = "own"
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
        # Outside the replay: no marker to keep in step.
        luck_chart=luck_chart(data, players) if results_secret is None else mark_safe(""),
        line=line_kind,
        optimal_turn=optimal_turn,
        optimal_secret_until=seed_secret_until,
        results_secret_until=results_secret,
        **_win_course(game, players),
    )


# What an analysis's seat says about the dice rather than the player's play: the luck (in total, and
# through the game), the optimal line on the seat's dice and its total (a round's par).
DICE_FIGURES = ("luck", "lines", "optimal")
DICE_SUMMARY = ("luck", "optimal_total")


def without_the_dice(seat: dict) -> dict:
    """An analysis's seat (`analysis.analyse_game`'s "seats" entry) less what the dice decided, for a
    game whose dice are still secret (dicegame.records.secret_until): what is left is the player's own
    play (the points lost to choices, the accuracy, the values of the positions they reached)."""
    kept = {k: v for k, v in seat.items() if k not in DICE_FIGURES}
    if "summary" in seat:
        kept["summary"] = {k: v for k, v in seat["summary"].items() if k not in DICE_SUMMARY}
    return kept


def _win_course(game: Game, players: list[Player]) -> dict:
    """The winning chances through the game (winprob.review): stored once worked out (in the
    background, when the game ended); a review that finds none asks for it and says so."""

    if game.kind == Game.Kind.SOLO or not winprob_review.has_course(game, len(players)):
        return {}
    course = winprob_review.stored(game)
    if course is None:
        return {"win_pending": winprob_live.schedule_course(game)}
    return {
        "win_chart": mark_safe(winprob_review.win_chart(course.data, players, SEAT_CLASSES)),
        "win_swings": winprob_review.swing_labels(course.data, players),
    }


def luck_chart(data: dict, players: list[Player], *, marker_x: float | None = None) -> SafeString:
    """Per seat, the luck so far (solid) and the points lost to choices so far (dashed) through the game."""
    series = []
    for p in players:
        seat = data["seats"][str(p.seat)]
        css = f"series-{p.seat % SEAT_CLASSES}"
        series.append(
            charts.Series(
                _("%(name)s: luck") % {"name": p.display_name}, [(x, lk) for x, lk, _l in seat["lines"]], css
            )
        )
        series.append(
            charts.Series(
                _("%(name)s: lost to choices") % {"name": p.display_name},
                [(x, -lo) for x, _lk, lo in seat["lines"]],
                f"{css} dashed",
            )
        )
    svg = charts.line_chart(
        series,
        title=_("Luck and choices through the game"),
        desc=_(
            "For every player, the luck of the dice so far (solid line: the expected final total the rolls "
            "added or took away) and the expected points lost to choices so far (dashed line, drawn below "
            "zero), from the first roll to the last box."
        ),
        x_max=13,
        x_ticks=[(r, str(r)) for r in range(0, 14)],
        y_label=_("Points"),
        marker_x=marker_x,
        y_floor=0,
    )
    return mark_safe(svg)


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
