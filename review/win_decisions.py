"""The review in chances: each decision's cost in chance of winning beside its cost in points, the
decisions that mattered most (where the review opens), and the chance through the game, decision by
decision, as a chart.

The figures are worked out once, off the request, with the game's course of winning chances
(`winprob.review`: in the niced child, when the game ends, or when a review first finds them
missing), against the other seats' sheets (a game of 2-4 seats) or against the field that played the
same dice (the daily challenge, a tournament round, once its window has closed: the share of the field
beaten, which is what a place and the matchpoints count).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from core import charts
from dicegame.labels import box_label, keep_label
from dicegame.models import Game, Player
from dicegame.rules.turn import MAX_ROLLS
from dicegame.strategy.win_review import mattered_most
from winprob import live as winprob_live
from winprob import review as winprob_review

MATTERED = 5


def choice_words(choice: dict) -> str:
    if "box" in choice:
        return _("%(box)s (%(points)s)") % {"box": box_label(choice["box"]), "points": choice["points"]}
    return keep_label(choice["keep"])


@dataclass(frozen=True)
class StepChance:
    """One decision's figures: the chance (or share of the field) it left, the best move's, the cost."""

    chance: float
    best: float
    best_choice: str
    cost: float
    field: bool

    @property
    def percent(self) -> int:
        return round(self.chance * 100)

    @property
    def best_percent(self) -> int:
        return round(self.best * 100)

    @property
    def cost_points(self) -> float:
        """The cost in percentage points."""
        return round(self.cost * 100, 1)


@dataclass(frozen=True)
class Mattered:
    rank: int
    step: int
    text: str


def course_context(game: Game, players: list[Player], steps: list, seat_classes: int) -> dict:
    """What the review shows of the chances: the course's chart (winprob.review), each step's figures
    (`win_steps`: step index -> StepChance), the decisions that mattered most and their chart; or, while
    it is worked out, that it is on its way."""
    field_game = len(players) == 1 and winprob_review.has_field_course(game)
    if not field_game and (game.kind == Game.Kind.SOLO or not winprob_review.has_course(game, len(players))):
        return {}
    course = winprob_review.stored(game)
    if course is None:
        return {"win_pending": winprob_live.schedule_course(game)}
    out: dict = {}
    if course.data.get("aim", "first") == "first":
        out["win_chart"] = mark_safe(winprob_review.win_chart(course.data, players, seat_classes))
        out["win_swings"] = winprob_review.swing_labels(course.data, players)
    by_turn = course.data.get("decisions") or {}
    if not by_turn:
        return out
    field = course.data.get("aim") == "field"
    win_steps = _step_chances(by_turn, steps, field)
    mattered = _mattered(by_turn, steps, win_steps, field)
    out.update(
        win_steps=win_steps,
        win_field=field,
        win_field_size=course.data.get("field", 0),
        mattered=mattered,
        decision_chart=_chart(steps, win_steps, mattered, players, seat_classes, field),
    )
    return out


def _step_index(steps: list) -> dict[tuple[int, int], int]:
    """(turn number, decision index within the turn) -> the step's index in the replay."""
    out, within = {}, {}
    for step in steps:
        number = step.turn["number"]
        i = within.get(number, 0)
        within[number] = i + 1
        out[(number, i)] = step.index
    return out


def _step_chances(by_turn: dict, steps: list, field: bool) -> dict[int, StepChance]:
    index = _step_index(steps)
    out = {}
    for number, turn in by_turn.items():
        for i, d in enumerate(turn["decisions"]):
            step = index.get((int(number), i))
            if step is not None:
                out[step] = StepChance(
                    d["chance"], d["best"], choice_words(d["best_choice"]), d["cost"], field
                )
    return out


def _mattered(by_turn: dict, steps: list, win_steps: dict, field: bool) -> list[Mattered]:
    index = _step_index(steps)
    out = []
    for rank, (number, i, _cost) in enumerate(mattered_most(by_turn, MATTERED), start=1):
        at = index.get((number, i))
        if at is None:
            continue
        step, chance = steps[at], win_steps[at]
        values = {
            "name": step.player.display_name,
            "round": step.turn["round"],
            "choice": step.chosen_label,
            "chance": chance.percent,
            "best": chance.best_choice,
            "best_chance": chance.best_percent,
        }
        if field:
            text = _(
                "Round %(round)s: %(choice)s left %(chance)s%% of the field beaten; %(best)s would have "
                "left %(best_chance)s%%."
            )
        else:
            text = _(
                "%(name)s, round %(round)s: %(choice)s left %(chance)s%% to win; %(best)s would have "
                "left %(best_chance)s%%."
            )
        out.append(Mattered(rank, at, text % values))
    return out


def default_step(mattered: list[Mattered]) -> int | None:
    """Where the review opens when no step is asked for: the decision that mattered most."""
    return mattered[0].step if mattered else None


def _x(step) -> float:
    """The decision's place on the chart: rounds played, a hold a third of a round per roll."""
    d = step.decision
    return step.turn["round"] - 1 + (1.0 if d["kind"] == "box" else d["roll"] / MAX_ROLLS)


def _chart(steps, win_steps, mattered, players, seat_classes, field: bool) -> SafeString:
    series = []
    for p in players:
        points = [
            (_x(s), win_steps[s.index].chance * 100)
            for s in steps
            if s.player.seat == p.seat and s.index in win_steps
        ]
        series.append(charts.Series(p.display_name, points, f"series-{p.seat % seat_classes}"))
    marks = [(_x(steps[m.step]), win_steps[m.step].chance * 100, str(m.rank), m.text) for m in mattered]
    if field:
        title = _("Share of the field beaten through the game")
        desc = _(
            "After each decision, the share of the players of the same dice the final total is expected to "
            "beat when the rest is played to beat them; the numbered rings are the decisions that cost most."
        )
        y_label = _("Field beaten (%)")
    else:
        title = _("Chance of winning, decision by decision")
        desc = _(
            "For every player, the chance of finishing first after each of their decisions, the rest played "
            "to win; the numbered rings are the decisions that cost most."
        )
        y_label = _("Chance of winning (%)")
    svg = charts.line_chart(
        series,
        title=title,
        desc=desc,
        x_max=13,
        x_ticks=[(r, str(r)) for r in range(0, 14)],
        y_label=y_label,
        y_floor=0,
        marks=marks,
    )
    return mark_safe(svg)
