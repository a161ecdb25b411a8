"""Puzzles for a test: positions (a sheet, a hold, a box) and a puzzle made from one."""

from __future__ import annotations

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from puzzles import positions as P
from puzzles.models import Puzzle


def keep(*values: int) -> P.Option:
    return P.Option(value=0.0, keep=tuple(values))


def box(b: Box) -> P.Option:
    return P.Option(value=0.0, box=b, points=0)


def sheet(boxes: dict[Box, int] | None = None, penta_bonus: int = 0) -> Scoresheet:
    return Scoresheet(boxes or {}, penta_bonus)


def ALL_BUT(*open_: Box) -> dict[Box, int]:
    """Every box written with 0 but these."""
    return {b: 0 for b in Box if b not in open_}


def make_puzzle(
    boxes: dict[Box, int] | None = None, dice=(1, 2, 3, 4, 6), rolls_left: int = 0, strategy=None
) -> Puzzle:
    s = sheet(boxes)
    choices = P.options(strategy or Strategy.shared(), s, dice, rolls_left)
    return Puzzle.objects.create(
        key=P.position_key(s, dice, rolls_left),
        boxes=s.to_dict()["boxes"],
        dice=sorted(dice),
        rolls_left=rolls_left,
        choices=[o.to_json() for o in choices[: P.STORED_CHOICES]],
        best_value=choices[0].value,
        margin=choices[0].value - choices[1].value,
        rating=1500.0,
        **{f"theme_{t}": t in P.themes(s, dice, rolls_left, choices[0]) for t in P.THEMES},
    )
