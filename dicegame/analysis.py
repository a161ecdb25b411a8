"""A finished game measured against optimal play, decision by decision. Pure: no Django.

A seat's turns are replayed on its scoresheet (Scoresheet.place). In every turn the player makes up to
three decisions:

- after roll 1 and after roll 2, what to hold: the values of the dice held going into the next roll
  (from that roll's `held` flags); if the turn ended before the third roll, "hold all five" (stop);
- after the last roll, the box.

Each decision is looked up in `Strategy.evaluate` for the sheet before the turn, the dice at that
moment and the rolls left. Its cost is the expected final total of the best choice minus that of the
player's choice (>= 0), and the value of the position after it is the player's choice's expected final
total. Costs are labelled by THRESHOLDS. Turns written by the auto-commit or played by the computer for
an absent player are analysed and shown but do not count in the seat's accuracy.

The result is JSON-ready (it is stored): see `analyse_game`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dicegame.scoring import Box, IllegalPlacement, Scoresheet
from dicegame.strategy import Choice, Strategy

# Bump when the stored form or the way decisions are measured changes: stored analyses of another
# version are recomputed.
ANALYSIS_VERSION = 1

# Labels by the expected final points a decision gives up (upper bounds, exclusive). Penta's optimal
# expected total is about 250 points with a standard deviation near 60: a swing of 2 points is barely
# visible over many games, 6 points (the worth of a Three in the upper section) is a clear error.
BEST = "best"
INACCURACY = "inaccuracy"
MISTAKE = "mistake"
BLUNDER = "blunder"
LABELS = (BEST, INACCURACY, MISTAKE, BLUNDER)
THRESHOLDS = ((BEST, 0.01), (INACCURACY, 2.0), (MISTAKE, 6.0))  # then BLUNDER
MAX_ROLLS = 3
ALTERNATIVES = 3  # the best choices stored with each decision


class AnalysisError(ValueError):
    """The turn log cannot be replayed (dice, holds or boxes that the rules do not allow)."""


def label_for(cost: float) -> str:
    for label, bound in THRESHOLDS:
        if cost < bound:
            return label
    return BLUNDER


@dataclass(frozen=True)
class TurnLog:
    """One completed turn as the analysis needs it (built from a Turn row or an export)."""

    number: int
    round: int
    seat: int
    rolls: Sequence[Mapping]  # [{"dice": [5 faces], "held": [5 bools]}, ...]
    box: str
    points: int | None = None
    bonus: int = 0
    auto_committed: bool = False
    stand_in: bool = False


@dataclass
class SeatSummary:
    loss: float = 0.0
    decisions: int = 0  # counted decisions
    uncounted: int = 0  # decisions in auto-committed and stand-in turns
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))

    def add(self, cost: float, label: str, counted: bool) -> None:
        if not counted:
            self.uncounted += 1
            return
        self.loss += cost
        self.decisions += 1
        self.counts[label] += 1

    def to_dict(self) -> dict:
        return {
            "loss": round(self.loss, 4),
            "decisions": self.decisions,
            "uncounted": self.uncounted,
            "avg_loss": round(self.loss / self.decisions, 4) if self.decisions else None,
            "counts": dict(self.counts),
        }


def _keep_of(dice: Sequence[int], held_next: Sequence[bool]) -> tuple[int, ...]:
    return tuple(sorted(v for v, h in zip(dice, held_next, strict=True) if h))


def _choice_json(choice: Choice) -> dict:
    if choice.box is not None:
        return {"box": choice.box.name, "points": choice.points, "value": round(choice.expected_total, 4)}
    return {"keep": list(choice.keep), "value": round(choice.expected_total, 4)}


def _decision(
    choices: list[Choice], chosen: Choice, *, kind: str, roll: int, dice, held_next, counted: bool
) -> dict:
    best = choices[0]
    cost = max(0.0, best.expected_total - chosen.expected_total)
    if cost < 1e-9:
        cost = 0.0
    return {
        "kind": kind,
        "roll": roll,
        "dice": list(dice),
        "held_next": list(held_next),
        "chosen": _choice_json(chosen),
        "best": _choice_json(best),
        "alternatives": [_choice_json(c) for c in choices[:ALTERNATIVES]],
        "cost": round(cost, 4),
        "label": label_for(cost),
        "counted": counted,
    }


def analyse_turn(strategy: Strategy, sheet: Scoresheet, turn: TurnLog) -> tuple[list[dict], Scoresheet]:
    """The decisions of one turn and the sheet after it."""
    rolls = list(turn.rolls)
    if not 1 <= len(rolls) <= MAX_ROLLS:
        raise AnalysisError(f"turn {turn.number}: {len(rolls)} rolls")
    try:
        box = Box[turn.box]
    except KeyError:
        raise AnalysisError(f"turn {turn.number}: no box {turn.box!r}") from None
    counted = not (turn.auto_committed or turn.stand_in)
    decisions = []
    try:
        for k, roll in enumerate(rolls, start=1):
            dice = tuple(roll["dice"])
            if k == len(rolls) and k == MAX_ROLLS:
                break
            held_next = rolls[k]["held"] if k < len(rolls) else [True] * 5
            keep = _keep_of(dice, held_next)
            choices = strategy.evaluate(sheet, dice, MAX_ROLLS - k)
            chosen = next((c for c in choices if c.keep == keep), None)
            if chosen is None:
                raise AnalysisError(f"turn {turn.number}: holding {keep} after roll {k} is not possible")
            decisions.append(
                _decision(
                    choices, chosen, kind="keep", roll=k, dice=dice, held_next=held_next, counted=counted
                )
            )
        final = tuple(rolls[-1]["dice"])
        choices = strategy.evaluate(sheet, final, 0)
        chosen = next((c for c in choices if c.box is box), None)
        if chosen is None:
            raise AnalysisError(f"turn {turn.number}: {box.name} is not a legal box for {final}")
        decisions.append(
            _decision(
                choices,
                chosen,
                kind="box",
                roll=len(rolls),
                dice=final,
                held_next=[False] * 5,
                counted=counted,
            )
        )
        after = sheet.place(box, final)
    except (IllegalPlacement, ValueError, KeyError, TypeError, IndexError) as exc:
        if isinstance(exc, AnalysisError):
            raise
        raise AnalysisError(f"turn {turn.number}: {exc}") from exc
    return decisions, after


def analyse_game(turns: Iterable[TurnLog], seats: Iterable[int], strategy: Strategy | None = None) -> dict:
    """Every seat's decisions, values and summary.

    Returns {"version", "thresholds", "turns": [{number, round, seat, box, points, bonus, auto_committed,
    stand_in, rolls, decisions: [...]}] in turn order, "seats": {seat: {"start": expected total before
    the first turn, "values": [[x, value], ...] (x: rounds played, fractions for the holds),
    "final": total, "summary": {...}}}}. Seats are keyed by str(seat) (JSON object keys).
    """
    strategy = strategy or Strategy.shared()
    seats = sorted(set(seats))
    sheets = {s: Scoresheet() for s in seats}
    start = strategy.expected_total(Scoresheet())
    out_seats = {
        s: {"start": round(start, 4), "values": [[0, round(start, 4)]], "summary": SeatSummary()}
        for s in seats
    }
    out_turns = []
    rounds_played = dict.fromkeys(seats, 0)
    for turn in sorted(turns, key=lambda t: t.number):
        if turn.seat not in sheets:
            raise AnalysisError(f"turn {turn.number}: no seat {turn.seat}")
        if sheets[turn.seat].is_complete:
            raise AnalysisError(f"turn {turn.number}: seat {turn.seat} has no box left")
        decisions, after = analyse_turn(strategy, sheets[turn.seat], turn)
        sheets[turn.seat] = after
        seat = out_seats[turn.seat]
        played = rounds_played[turn.seat]
        for d in decisions:
            x = played + 1 if d["kind"] == "box" else played + d["roll"] / MAX_ROLLS
            seat["values"].append([round(x, 4), d["chosen"]["value"]])
            seat["summary"].add(d["cost"], d["label"], d["counted"])
        rounds_played[turn.seat] = played + 1
        out_turns.append(
            {
                "number": turn.number,
                "round": turn.round,
                "seat": turn.seat,
                "box": turn.box,
                "points": turn.points,
                "bonus": turn.bonus,
                "auto_committed": turn.auto_committed,
                "stand_in": turn.stand_in,
                "rolls": [
                    {"dice": list(r["dice"]), "held": [bool(h) for h in r["held"]]} for r in turn.rolls
                ],
                "decisions": decisions,
            }
        )
    for s, seat in out_seats.items():
        seat["final"] = sheets[s].total
        seat["summary"] = seat["summary"].to_dict()
    return {
        "version": ANALYSIS_VERSION,
        "thresholds": [[label, bound] for label, bound in THRESHOLDS],
        "turns": out_turns,
        "seats": {str(s): seat for s, seat in out_seats.items()},
    }


def summaries(data: Mapping) -> dict[str, dict]:
    """The small per-seat part of an analysis (stored beside it for statistics): seat -> summary."""
    return {s: seat["summary"] for s, seat in data.get("seats", {}).items()}
