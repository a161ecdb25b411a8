"""A finished game's decisions in chances: for every hold and box, the chance of winning it left, the
chance the move best to win would have left, and that move. Pure: no Django.

The decisions are the analysis's (`analysis.analyse_turn`): after each roll but a third, the dice held
going into the next roll (all five when the turn stopped there), then the box. Each is weighed with
`winner.WinPlay` against the aim at that moment: finishing first against the other seats' sheets as
they stood (a game of 2-4 seats), or beating as much of a field as possible (the daily challenge, a
tournament round: `winner.against_field`). Positions the tables cannot judge get None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS

from .analysis import TurnLog
from .winner import Aim, Option, WinPlay

AimFor = Callable[[int, dict[int, Scoresheet]], Aim | None]


def _keep_of(dice: Sequence[int], held: Sequence[bool]) -> tuple[int, ...]:
    return tuple(sorted(v for v, h in zip(dice, held, strict=True) if h))


def _choice(option: Option) -> dict:
    if option.box is not None:
        return {"box": option.box.name, "points": option.points}
    return {"keep": list(option.keep)}


def _decision(options: list[Option], chosen: Option) -> dict:
    best = options[0]
    return {
        "chance": round(chosen.chance, 6),
        "best": round(best.chance, 6),
        "best_choice": _choice(best),
        "cost": round(max(0.0, best.chance - chosen.chance), 6),
    }


def decision_chances(play: WinPlay, turns: Iterable[TurnLog], seats: Iterable[int], aim_for: AimFor) -> dict:
    """{str(turn number): {"start": chance before the turn's first roll, "decisions": [{"chance",
    "best", "best_choice", "cost"}, ...]}} for the turns that could be judged, in the analysis's order
    of decisions."""
    sheets = {s: Scoresheet() for s in seats}
    out: dict[str, dict] = {}
    for turn in sorted(turns, key=lambda t: t.number):
        sheet = sheets[turn.seat]
        aim = aim_for(turn.seat, sheets)
        box = Box[turn.box]
        final = tuple(turn.rolls[-1]["dice"])
        if play.can_judge(sheet, aim):
            out[str(turn.number)] = _turn(play, sheet, turn, aim, box, final)
        sheets[turn.seat] = sheet.place(box, final)
    return out


def _turn(play: WinPlay, sheet: Scoresheet, turn: TurnLog, aim: Aim, box: Box, final) -> dict:
    rolls = list(turn.rolls)
    decisions = []
    for k, roll in enumerate(rolls, start=1):
        if k == len(rolls) and k == MAX_ROLLS:
            break
        dice = tuple(roll["dice"])
        held = rolls[k]["held"] if k < len(rolls) else [True] * 5
        keep = _keep_of(dice, held)
        options = play.keep_options(sheet, dice, MAX_ROLLS - k, aim)
        chosen = next(o for o in options if o.keep == keep)
        decisions.append(_decision(options, chosen))
    options = play.box_options(sheet, final, aim)
    chosen = next(o for o in options if o.box is box)
    decisions.append(_decision(options, chosen))
    return {"start": round(play.start_chance(sheet, aim), 6), "decisions": decisions}


def mattered_most(by_turn: dict, count: int = 5) -> list[tuple[int, int, float]]:
    """The decisions that cost the most chance, largest first: (turn number, decision index, cost)."""
    costs = [
        (int(number), i, d["cost"])
        for number, turn in by_turn.items()
        for i, d in enumerate(turn["decisions"])
        if d["cost"] > 0.0005
    ]
    costs.sort(key=lambda c: (-c[2], c[0], c[1]))
    return costs[:count]
