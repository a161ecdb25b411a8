"""A finished game measured against optimal play, decision by decision. Pure: no Django.

A seat's turns are replayed on its scoresheet (Scoresheet.place). In every turn the player makes up to
three decisions:

- after roll 1 and after roll 2, what to hold: the values of the dice held going into the next roll
  (from that roll's `held` flags); if the turn ended before the third roll, "hold all five" (stop);
- after the last roll, the box.

Each decision is looked up in `Strategy.evaluate` for the sheet before the turn, the dice at that
moment and the rolls left. Its cost is the expected final total of the best choice minus that of the
player's choice (>= 0), and the value of the position after it is the player's choice's expected final
total. Costs are labelled by THRESHOLDS. Every decision is analysed and shown; those the person did not
make do not count (in the accuracy, in fair play): the box the auto-commit wrote, and every decision of
a turn the computer played for an absent player. The holds of an auto-committed turn were the person's,
and count (`counts`).

Luck against skill. With V(position) the expected final total under optimal play (points already
scored included), every roll has a luck value: V just after the roll (its best choice) minus V just
before it (the average over the roll's outcomes: the turn's start value for the first roll, the value of
the hold that led to it for the others). Every decision has its loss (best minus chosen). Along a seat's
line these telescope, so for every seat whose sheet is complete, exactly (to float rounding):

    final total = V(start) + total luck - total loss

The accuracy (0-100) maps the counted loss per turn: see `accuracy`. Optimal play on the seat's own dice
(the same seed and slots) is `optimal_line`.

The result is JSON-ready (it is stored): see `analyse_game`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dicegame.rules.dice import die_value
from dicegame.rules.scoring import Box, IllegalPlacement, Scoresheet
from dicegame.rules.turn import MAX_ROLLS
from dicegame.strategy.decisions import Choice, Strategy
from dicegame.strategy.turn import ranked

# Bump when the stored form or the way decisions are measured changes: stored analyses of another
# version are recomputed. 2: luck per roll, luck/loss/accuracy per seat, optimal play on the seat's dice.
# 3: the holds of an auto-committed turn count (only its box does not); the optimal line's ties broken
# by TIE (docs/fair-dice.md).
ANALYSIS_VERSION = 3

# Accuracy = 100 * exp(-L / ACCURACY_SCALE), L the expected points lost per counted turn. Per turn (not
# per decision, not per game) so that it compares across games: every game has 13 turns, a player who
# stops rolling early makes fewer decisions but as many turns, and turns the computer played for an
# absent player are left out of both the loss and the count. The scale is 1 / ln(1.25): losing 1 point
# a turn (13 a game) is 80. On it the computer players score (300 solo games each, seed 2026,
# `bench/review_costs.py --calibrate 300`): hard 100, medium 85.7 (median; quartiles 79.2-90.2, 0.77
# points a turn), easy 38.5 (30.3-46.4, 4.45 points a turn): a wide, readable spread
# (`review.stats.BOT_ACCURACY`).
ACCURACY_SCALE = 4.48

# Labels by the expected final points a decision gives up (upper bounds, exclusive). Penta's optimal
# expected total is about 250 points with a standard deviation near 60: a swing of 2 points is barely
# visible over many games, 6 points (the worth of a Three in the upper section) is a clear error.
BEST = "best"
INACCURACY = "inaccuracy"
MISTAKE = "mistake"
BLUNDER = "blunder"
LABELS = (BEST, INACCURACY, MISTAKE, BLUNDER)
THRESHOLDS = ((BEST, 0.01), (INACCURACY, 2.0), (MISTAKE, 6.0))  # then BLUNDER
ALTERNATIVES = 3  # the best choices stored with each decision


class AnalysisError(ValueError):
    """The turn log cannot be replayed (dice, holds or boxes that the rules do not allow)."""


def accuracy(loss: float, turns: int) -> float | None:
    """0-100 from the counted loss and turns; 100 is optimal play. None with no counted turn."""
    if turns <= 0:
        return None
    return round(100.0 * math.exp(-max(0.0, loss) / turns / ACCURACY_SCALE), 1)


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
    uncounted: int = 0  # decisions the person did not make: auto-committed boxes, stand-in turns
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    turns: int = 0  # counted turns
    luck: float = 0.0  # every roll's luck, counted or not
    total_loss: float = 0.0  # every decision's loss, counted or not (the identity needs them all)
    box_loss: dict[str, float] = field(default_factory=dict)  # counted loss by the box the turn wrote

    def add(self, cost: float, label: str, counted: bool) -> None:
        self.total_loss += cost
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
            "turns": self.turns,
            "luck": round(self.luck, 4),
            "total_loss": round(self.total_loss, 4),
            "accuracy": accuracy(self.loss, self.turns),
            "box_loss": {b: round(v, 4) for b, v in self.box_loss.items()},
        }


def counts(turn: TurnLog, kind: str) -> bool:
    """Whether a decision of this kind ("keep" or "box") in this turn was the person's own: not in a turn
    the computer played for them (stand-in), and not the box the auto-commit wrote."""
    if turn.stand_in:
        return False
    return not (kind == "box" and turn.auto_committed)


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


def keep_choices(
    strategy: Strategy,
    sheet: Scoresheet,
    dice: tuple[int, ...],
    rolls_left: int,
    chosen: tuple[int, ...] | None = None,
) -> list[Choice]:
    """`Strategy.evaluate` for a hold, with holding all five valued as what it is in the game: stopping
    and writing now. (The table values holding all five with two rolls left as keeping the last roll in
    hand, which only matters when stopping is a mistake: it would hide that mistake's cost and break the
    luck identity.)"""
    choices = strategy.evaluate(sheet, dice, rolls_left)
    if rolls_left < 2:
        return choices  # with one roll left, holding all five is worth exactly the best box
    # Revaluing can only move holding all five down the list: it matters only if it is among the
    # choices stored (best first) or the one played.
    if chosen is not None and len(chosen) != 5 and all(len(c.keep) != 5 for c in choices[:ALTERNATIVES]):
        return choices
    stop = strategy.evaluate(sheet, dice, 0)[0].expected_total
    choices = [Choice(expected_total=stop, keep=c.keep) if len(c.keep) == 5 else c for c in choices]
    key = ranked([c.expected_total for c in choices])
    order = sorted(range(len(choices)), key=lambda i: -key[i])  # stable: the ties keep evaluate's order
    return [choices[i] for i in order]


def analyse_turn(strategy: Strategy, sheet: Scoresheet, turn: TurnLog) -> tuple[list[dict], Scoresheet]:
    """The decisions of one turn and the sheet after it. Each decision also carries `luck`: the luck of
    the roll it answers (V after the roll minus V before it), or None for the box written after
    holding all five (no roll came between)."""
    rolls = list(turn.rolls)
    if not 1 <= len(rolls) <= MAX_ROLLS:
        raise AnalysisError(f"turn {turn.number}: {len(rolls)} rolls")
    try:
        box = Box[turn.box]
    except KeyError:
        raise AnalysisError(f"turn {turn.number}: no box {turn.box!r}") from None
    decisions = []
    try:
        before = strategy.expected_total(sheet)  # V before the first roll: the average over its outcomes
        for k, roll in enumerate(rolls, start=1):
            dice = tuple(roll["dice"])
            if k == len(rolls) and k == MAX_ROLLS:
                break
            held_next = rolls[k]["held"] if k < len(rolls) else [True] * 5
            keep = _keep_of(dice, held_next)
            choices = keep_choices(strategy, sheet, dice, MAX_ROLLS - k, keep)
            chosen = next((c for c in choices if c.keep == keep), None)
            if chosen is None:
                raise AnalysisError(f"turn {turn.number}: holding {keep} after roll {k} is not possible")
            decisions.append(
                _decision(
                    choices,
                    chosen,
                    kind="keep",
                    roll=k,
                    dice=dice,
                    held_next=held_next,
                    counted=counts(turn, "keep"),
                )
            )
            decisions[-1]["luck"] = _luck(choices[0].expected_total - before)
            before = chosen.expected_total  # V before the next roll: the hold's value
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
                counted=counts(turn, "box"),
            )
        )
        # After a third roll the box answers that roll; after holding all five no roll came between.
        decisions[-1]["luck"] = _luck(choices[0].expected_total - before) if len(rolls) == MAX_ROLLS else None
        after = sheet.place(box, final)
    except (IllegalPlacement, ValueError, KeyError, TypeError, IndexError) as exc:
        if isinstance(exc, AnalysisError):
            raise
        raise AnalysisError(f"turn {turn.number}: {exc}") from exc
    return decisions, after


def _luck(value: float) -> float:
    return 0.0 if abs(value) < 1e-9 else value


def analyse_game(
    turns: Iterable[TurnLog],
    seats: Iterable[int],
    strategy: Strategy | None = None,
    *,
    seed: str | None = None,
    game: int | str | None = None,
) -> dict:
    """Every seat's decisions, values and summary.

    Returns {"version", "thresholds", "turns": [{number, round, seat, box, points, bonus, auto_committed,
    stand_in, rolls, decisions: [...]}] in turn order, "seats": {seat: {"start": expected total before
    the first turn, "values": [[x, value], ...] (x: rounds played, fractions for the holds),
    "final": total, "summary": {...}, "luck", "total_loss", "adjusted": V(start) - total loss,
    "accuracy", "lines": [[x, cumulative luck, cumulative loss], ...], "optimal": optimal_line(...)
    when `seed` and `game` are given}}}. Seats are keyed by str(seat) (JSON object keys). Each turn's
    rolls carry their `luck`.
    """
    strategy = strategy or Strategy.shared()
    seats = sorted(set(seats))
    sheets = {s: Scoresheet() for s in seats}
    start = strategy.expected_total(Scoresheet())
    out_seats = {
        s: {
            "start": round(start, 4),
            "values": [[0, round(start, 4)]],
            "lines": [[0, 0.0, 0.0]],
            "summary": SeatSummary(),
        }
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
        summary = seat["summary"]
        # A turn counts in the accuracy when the person played it (an auto-committed turn's holds were
        # theirs).
        counted = not turn.stand_in
        for d in decisions:
            x = played + 1 if d["kind"] == "box" else played + d["roll"] / MAX_ROLLS
            seat["values"].append([round(x, 4), d["chosen"]["value"]])
            summary.luck += d["luck"] or 0.0
            summary.add(d["cost"], d["label"], d["counted"])
            seat["lines"].append([round(x, 4), round(summary.luck, 4), round(summary.total_loss, 4)])
        if counted:
            summary.turns += 1
            summary.box_loss[turn.box] = summary.box_loss.get(turn.box, 0.0) + sum(
                d["cost"] for d in decisions if d["counted"]
            )
        luck = [d["luck"] for d in decisions if d["luck"] is not None]
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
                    {"dice": list(r["dice"]), "held": [bool(h) for h in r["held"]], "luck": round(v, 4)}
                    for r, v in zip(turn.rolls, luck, strict=True)
                ],
                "decisions": decisions,
            }
        )
    for s, seat in out_seats.items():
        summary = seat["summary"]
        seat["final"] = sheets[s].total
        seat["luck"] = round(summary.luck, 4)
        seat["total_loss"] = round(summary.total_loss, 4)
        seat["adjusted"] = round(start - summary.total_loss, 4)
        seat["accuracy"] = accuracy(summary.loss, summary.turns)
        seat["complete"] = sheets[s].is_complete
        if seed is not None and game is not None:
            seat["optimal"] = optimal_line(strategy, seed, game, seat=s, seat_count=len(seats))
        seat["summary"] = summary.to_dict()
        if "optimal" in seat:
            seat["summary"]["optimal_total"] = seat["optimal"]["total"]
    return {
        "version": ANALYSIS_VERSION,
        "thresholds": [[label, bound] for label, bound in THRESHOLDS],
        "turns": out_turns,
        "seats": {str(s): seat for s, seat in out_seats.items()},
    }


def slot_turn(round_: int, seat: int, seat_count: int) -> int:
    """The turn number (the dice slot) of a seat's turn in a round: seats take turns in seat order."""
    return (round_ - 1) * seat_count + seat + 1


def held_positions(dice: Sequence[int], keep: Sequence[int]) -> list[bool]:
    """Which dice the optimal player holds for `keep`: for each kept value, the leftmost dice showing it
    (docs/fair-dice.md, so anyone can replay the line)."""
    wanted = {v: list(keep).count(v) for v in set(keep)}
    held = []
    for v in dice:
        held.append(wanted.get(v, 0) > 0)
        if held[-1]:
            wanted[v] -= 1
    return held


def optimal_line(strategy: Strategy, seed: str, game: int | str, *, seat: int, seat_count: int) -> dict:
    """The optimal player on this seat's own dice: its 13 turns at the seat's slots (turn numbers
    slot_turn(round, seat, seat_count), rolls 1-3, dice 1-5 of the game's seed), holding the leftmost
    dice of each best keep and stopping when the best keep is all five.

    {"total", "turns": [{"round", "number", "rolls": [{"dice", "held"}], "box", "points", "bonus",
    "total"}]}: the same shape as the game's own turns, so the replay can show either line."""
    sheet = Scoresheet()
    turns = []
    for rnd in range(1, len(Box) + 1):
        number = slot_turn(rnd, seat, seat_count)
        dice = tuple(die_value(seed, game, number, 1, i) for i in range(1, 6))
        rolls = [{"dice": list(dice), "held": [False] * 5}]
        for k in (2, 3):
            keep = strategy.best_keep(sheet, dice, MAX_ROLLS + 1 - k)
            if len(keep) == 5:
                break
            held = held_positions(dice, keep)
            dice = tuple(dice[i] if held[i] else die_value(seed, game, number, k, i + 1) for i in range(5))
            rolls.append({"dice": list(dice), "held": held})
        best = strategy.evaluate(sheet, dice, 0)[0]  # the legal box and its points, from the rules' tables
        box = best.box
        after = Scoresheet({**sheet.boxes, box: best.points}, sheet.penta_bonus + sheet.bonus_for(dice))
        turns.append(
            {
                "round": rnd,
                "number": number,
                "rolls": rolls,
                "box": box.name,
                "points": after.boxes[box],
                "bonus": after.penta_bonus - sheet.penta_bonus,
                "total": after.total,
            }
        )
        sheet = after
    return {"total": sheet.total, "turns": turns}


def summaries(data: Mapping) -> dict[str, dict]:
    """The small per-seat part of an analysis (stored beside it for statistics): seat -> summary."""
    return {s: seat["summary"] for s, seat in data.get("seats", {}).items()}
