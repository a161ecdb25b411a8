"""A seat's decisions as the fair-play model reads them (`fairplay.model.Decision`), from a stored
analysis or from a simulated game: the best choices' values, the choice taken, and whether it is what
a rule of thumb takes (the medium computer's choice, the points-now choice). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy.analysis import ALTERNATIVES
from dicegame.strategy.bots import greedy_policy, heuristic_strategy
from dicegame.strategy.decisions import Choice
from fairplay.model import Decision


def habits(sheet: Scoresheet, dice: tuple[int, ...], rolls_left: int) -> tuple[object, object]:
    """What the rules of thumb take here: (the medium computer's choice, the points-now choice), each a
    Box after the last roll or the sorted dice to hold before it."""
    if rolls_left == 0:
        return heuristic_strategy().best_box(sheet, dice), greedy_policy().best_box(sheet, dice)
    return heuristic_strategy().best_keep(sheet, dice, rolls_left), greedy_policy().best_keep(
        sheet, dice, rolls_left
    )


def target(choice: Choice):
    return choice.box if choice.box is not None else choice.keep


def from_choices(
    choices: Sequence[Choice], k: int, seconds: float | None, sheet: Scoresheet, dice, rolls_left: int
) -> Decision:
    """The decision of taking choices[k] (the optimal strategy's choices, best first)."""
    thumb, greedy = habits(sheet, tuple(dice), rolls_left)
    taken = target(choices[k])
    top = tuple(c.expected_total for c in choices[:ALTERNATIVES])
    return Decision(
        top,
        k if k < ALTERNATIVES else None,
        choices[k].expected_total,
        seconds,
        thumb=taken == thumb,
        greedy=taken == greedy,
    )


def _taken(choice: Mapping):
    return Box[choice["box"]] if "box" in choice else tuple(choice["keep"])


def from_analysis(
    data: Mapping, seat: int, seconds: Mapping[int, Sequence[float | None]] | None = None
) -> list[Decision]:
    """The counted decisions of one seat of a stored analysis (`strategy.analysis.analyse_game`),
    replaying its sheet for the rules of thumb. `seconds` maps a turn's number to one time (or None)
    per decision of that turn, in order."""
    sheet = Scoresheet()
    out = []
    for turn in data["turns"]:
        if turn["seat"] != seat:
            continue
        times = (seconds or {}).get(turn["number"], ())
        for i, d in enumerate(turn["decisions"]):
            dice = tuple(d["dice"])
            rolls_left = 0 if d["kind"] == "box" else 3 - d["roll"]
            taken = _taken(d["chosen"])
            if d.get("counted", True):
                thumb, greedy = habits(sheet, dice, rolls_left)
                alternatives = d["alternatives"]
                chosen = next((k for k, a in enumerate(alternatives) if _taken(a) == taken), None)
                out.append(
                    Decision(
                        tuple(float(a["value"]) for a in alternatives),
                        chosen,
                        float(d["chosen"]["value"]),
                        times[i] if i < len(times) else None,
                        thumb=taken == thumb,
                        greedy=taken == greedy,
                    )
                )
            if d["kind"] == "box":
                sheet = sheet.place(taken, dice)
    return out


def decision_seconds(
    roll_times: Sequence[float], chosen_at: float | None, completed_at: float | None
) -> list:
    """One time per decision of a turn, in the analysis's order, from the server's clock: a hold is
    timed from its roll to the next roll; the box from the last roll to when it was chosen (or written).
    A stop (holding all five) is timed with its box. None where a time is unknown."""
    if not roll_times:
        return []
    out: list[float | None] = []
    n = len(roll_times)
    for k in range(1, n + 1):
        if k == n == 3:
            break
        out.append(roll_times[k] - roll_times[k - 1] if k < n else None)
    end = chosen_at if chosen_at is not None else completed_at
    out.append(end - roll_times[-1] if end is not None else None)
    return [max(0.0, t) if t is not None else None for t in out]
