"""Every seat's chance of winning through a finished game, for its review: per turn, with the turns
that moved it most.

The course is worked out once and stored (`GameWinCourse`): after each written box only that seat's
position changes, so each seat's futures are played once per sheet it had (13 per seat), with 1,000
futures a seat (a standard error near 1.5 points, enough for a chart; the live bar uses 4,000). That is
about 0.6-2.5 s for a game of 2-4 seats: too slow for the page, so it runs on the process's worker
thread when the game ends (`winprob.live`), or when a review finds it missing; the review page never
waits for it (it says the chart is on its way).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from django.db import IntegrityError
from django.utils.translation import gettext as _

from core import charts
from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy, win_review, win_tables
from dicegame.strategy import winner as WN
from dicegame.strategy import winprob as W
from dicegame.strategy.analysis import TurnLog

from . import process
from .models import GameWinCourse

# 2: each decision's chance of winning, and the move best to win (`decisions`), where tables allow.
COURSE_VERSION = 2
SAMPLES = 1000
SWINGS = 3
W_TOTALS = WN.TOTALS
FIELD_MIN = 10  # fewer finished games on the same dice: the field is the expected-total play's totals


def has_course(game: Game, seats: int) -> bool:
    return game.is_finished and 2 <= seats <= 4


def has_field_course(game: Game) -> bool:
    """A finished game on shared dice (the daily challenge, a tournament round) whose window has closed:
    its decisions are weighed against the field that played the same dice."""
    return game.is_finished and game.on_shared_dice and game.seed_secret_until is None


def field_totals(game: Game) -> list[int]:
    """The final totals of the other finished games on the same dice."""
    same = Game.objects.filter(status=Game.Status.FINISHED).exclude(pk=game.pk)
    same = same.filter(dice_key=game.dice_key) if game.dice_key else same.filter(daily_date=game.daily_date)
    return list(Player.objects.filter(game__in=same, bot_strength="").values_list("total", flat=True))


def field_distribution(totals: list[int]) -> list[float] | None:
    """The field's chances by total (None: too few, and the decisions are weighed against the
    expected-total play's distribution of final totals instead)."""
    if len(totals) < FIELD_MIN:
        return None
    counts = np.bincount(np.minimum(totals, W_TOTALS - 1), minlength=W_TOTALS)
    return (counts / counts.sum()).tolist()


def compute(game: Game, *, in_child: bool = False) -> GameWinCourse | None:
    """Work out and store the course of a finished game of 2-4 seats, or the decisions of a game on
    shared dice against its field (None: neither). `in_child`: in the niced child process
    (winprob.process), as the server does."""
    players = list(Player.objects.filter(game=game).order_by("seat"))
    if not has_course(game, len(players)):
        if not (len(players) == 1 and has_field_course(game)):
            return None
        return _store(game, _field_course(game, players, in_child=in_child))
    turns = list(
        Turn.objects.filter(game=game, completed_at__isnull=False)
        .exclude(box="")
        .order_by("number")
        .values("number", "round", "player_id", "box", "points", "bonus", "rolls")
    )
    seat_of = {p.pk: p.seat for p in players}
    sheets = [Scoresheet() for _p in players]
    steps, rows = [], []
    for t in turns:
        seat = seat_of[t["player_id"]]
        boxes = dict(sheets[seat].boxes)
        boxes[Box[t["box"]]] = t["points"] or 0
        sheets[seat] = Scoresheet(boxes, sheets[seat].penta_bonus + (t["bonus"] or 0))
        steps.append((seat, sheets[seat]))
        rows.append({"seat": seat, "round": t["round"], "box": t["box"], "points": t["points"] or 0})
    if in_child and process.available():
        chances = process.course(len(players), steps, SAMPLES, game.pk)
    else:
        chances = W.course(Strategy.shared().values, len(players), steps, n=SAMPLES, seed=game.pk)
    # The last point is the result as the game ranked it (a seat that left ranks last, ties share).
    ranks = [p.rank for p in players]
    if all(r is not None for r in ranks):
        firsts = [r == 1 for r in ranks]
        chances[-1] = [f / sum(firsts) for f in firsts] if any(firsts) else chances[-1]
    # The swings are picked from the figures as stored and shown, so the ringed turns are the largest
    # moves a reader can see (two moves that differ beyond the 4th decimal would otherwise swap).
    shown = [[round(c, 4) for c in point] for point in chances]
    data = {
        "aim": "first",
        "samples": SAMPLES,
        "chances": shown,
        "steps": rows,
        "swings": W.largest_swings(shown, [r["seat"] for r in rows], SWINGS),
    }
    data["decisions"] = _decisions(turns, players, None, in_child=in_child)
    return _store(game, data)


def _field_course(game: Game, players: list[Player], *, in_child: bool) -> dict:
    turns = list(
        Turn.objects.filter(game=game, completed_at__isnull=False)
        .exclude(box="")
        .order_by("number")
        .values("number", "round", "player_id", "box", "points", "bonus", "rolls")
    )
    totals = field_totals(game)
    field = field_distribution(totals)
    data = {"aim": "field", "field": len(totals) if field is not None else 0}
    data["decisions"] = _decisions(turns, players, field or process.EXPECTED_TOTAL_FIELD, in_child=in_child)
    return data


def _decisions(turns: list[dict], players: list[Player], field, *, in_child: bool) -> dict:
    """Each decision's chance (win_review), where the win tables allow; {} without them."""
    if not win_tables.on_disk():
        return {}
    seat_of = {p.pk: p.seat for p in players}
    logs = [
        TurnLog(t["number"], t["round"], seat_of[t["player_id"]], t["rolls"] or [], t["box"]) for t in turns
    ]
    seats = [p.seat for p in players]
    if in_child and process.available():
        return process.decisions(logs, seats, field)
    play = _local_play()
    return win_review.decision_chances(play, logs, seats, process.aim_maker(play.outcomes, field))


@lru_cache(maxsize=1)
def _local_play() -> WN.WinPlay:
    return WN.WinPlay(Strategy.shared(), win_tables.shared())


def _store(game: Game, data: dict) -> GameWinCourse:
    try:
        course, _created = GameWinCourse.objects.update_or_create(
            game=game, defaults={"version": COURSE_VERSION, "data": data}
        )
    except IntegrityError:  # stored meanwhile by another process
        course = GameWinCourse.objects.get(game=game)
    return course


def stored(game: Game) -> GameWinCourse | None:
    course = GameWinCourse.objects.filter(game=game).first()
    return course if course is not None and course.version == COURSE_VERSION else None


def swing_labels(data: dict, players: list[Player]) -> list[dict]:
    """The marked turns, largest first: who, which round, what they wrote and how the chance moved."""
    by_seat = {p.seat: p for p in players}
    out = []
    for rank, i in enumerate(data["swings"], start=1):
        step = data["steps"][i - 1]
        seat = step["seat"]
        before, after = data["chances"][i - 1][seat], data["chances"][i][seat]
        out.append(
            {
                "rank": rank,
                "index": i,
                "seat": seat,
                "text": _(
                    "%(name)s, round %(round)s: %(points)s in %(box)s, "
                    "winning chance %(before)s%% → %(after)s%%"
                )
                % {
                    "name": by_seat[seat].display_name,
                    "round": step["round"],
                    "points": step["points"],
                    "box": box_label(step["box"]),
                    "before": round(before * 100),
                    "after": round(after * 100),
                },
            }
        )
    return out


def win_chart(data: dict, players: list[Player], seat_classes: int = 4) -> str:
    """SVG: every seat's winning chance (%) after each written box, the largest swings ringed and
    numbered as in the list beside the chart."""
    seats = len(players)
    chances = data["chances"]
    series = [
        charts.Series(
            p.display_name,
            [(i, point[p.seat] * 100) for i, point in enumerate(chances)],
            f"series-{p.seat % seat_classes}",
        )
        for p in players
    ]
    labels = swing_labels(data, players)
    marks = [(s["index"], chances[s["index"]][s["seat"]] * 100, str(s["rank"]), s["text"]) for s in labels]
    return charts.line_chart(
        series,
        title=_("Chance of winning through the game"),
        desc=_(
            "For every player, the chance of finishing first with optimal play from the position after "
            "each written box, from the start to the end; the numbered rings are the turns that moved it "
            "most."
        ),
        x_max=max(1, len(chances) - 1),
        x_ticks=[(r * seats, str(r)) for r in range(0, 14) if r * seats <= len(chances) - 1],
        y_label=_("Chance of winning (%)"),
        y_floor=0,
        marks=marks,
    )
