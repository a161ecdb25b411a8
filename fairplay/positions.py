"""A seat's decisions as the fair-play model reads them (`fairplay.model.Decision`), from a stored
analysis: the best choices' values, the choice taken, its kind, and which of the panel's rules of thumb
(`fairplay.habits`) take it; and each decision's time from the turn's clock. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dicegame.rules.scoring import Box, Scoresheet
from fairplay import model as M
from fairplay.habits import agreeing
from fairplay.model import BOX, HOLD_FIRST, HOLD_SECOND, Decision


def kind_of(kind: str, roll: int) -> int:
    """The model's kind of a decision: a hold after the first or the second roll, or a box."""
    if kind == "box":
        return BOX
    return HOLD_FIRST if roll == 1 else HOLD_SECOND


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
                alternatives = d["alternatives"]
                chosen = next((k for k, a in enumerate(alternatives) if _taken(a) == taken), None)
                values = tuple(float(a["value"]) for a in alternatives)
                informative = len(values) > 1 and values[0] - values[1] >= M.MARGIN
                out.append(
                    Decision(
                        values,
                        chosen,
                        float(d["chosen"]["value"]),
                        times[i] if i < len(times) else None,
                        kind=kind_of(d["kind"], d["roll"]),
                        # The panel is asked only where the answer can matter.
                        rules=agreeing(sheet, dice, rolls_left, taken) if informative else 0,
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
