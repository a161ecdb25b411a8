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

from django.db import IntegrityError
from django.utils.translation import gettext as _

from core import charts
from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import winprob as W

from . import process
from .models import GameWinCourse

COURSE_VERSION = 1
SAMPLES = 1000
SWINGS = 3


def has_course(game: Game, seats: int) -> bool:
    return game.is_finished and 2 <= seats <= 4


def compute(game: Game, *, in_child: bool = False) -> GameWinCourse | None:
    """Work out and store the course of a finished game of 2-4 seats (None: not such a game).
    `in_child`: the simulation in the niced child process (winprob.process), as the server does."""
    players = list(Player.objects.filter(game=game).order_by("seat"))
    if not has_course(game, len(players)):
        return None
    turns = list(
        Turn.objects.filter(game=game, completed_at__isnull=False)
        .exclude(box="")
        .order_by("number")
        .values("number", "round", "player_id", "box", "points", "bonus")
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
        "samples": SAMPLES,
        "chances": shown,
        "steps": rows,
        "swings": W.largest_swings(shown, [r["seat"] for r in rows], SWINGS),
    }
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
