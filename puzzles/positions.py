"""Puzzle positions, pure (no Django): the choices at a position, the themes of a puzzle, and the
positions of a finished game's analysis that make good puzzles.

A position is a sheet, five dice and the rolls left. Its choices are the ones the game offers there:
with rolls left, every set of fewer than five dice to keep before the next roll, and every legal box to
write the dice in now (holding all five is stopping, so it is the box it leads to); with no roll left,
every legal box. Each has its expected final total under optimal play (`Strategy.evaluate`; a box's
value does not depend on the rolls left), so the best of them is what `analysis.keep_choices` calls
best, and a player's loss at a position is the analysis's cost of the hold plus that of the box when
they stopped early.

Which positions make puzzles (`puzzle_candidates`), and why:

- CLEAR_MARGIN = 1.5: the best choice beats the second best by at least 1.5 expected final points. A
  puzzle is marked right or wrong, so the second best must be clearly worse: below about a point the
  two are a matter of taste even for strong players (the analysis calls a cost under 2 an
  "inaccuracy"), and the answer would feel arbitrary. 1.5 keeps most of the mistakes people make
  (measured in the report: more than half of the large losses clear it) while no accepted puzzle has
  a runner-up within a point and a half.
- LARGE_LOSS = 2.0: the player's own choice cost at least 2 points, the analysis's bound between an
  inaccuracy and a mistake: the pool is made of mistakes and blunders, the moments worth revisiting.
- only turns the person played: turns written by the auto-commit or played by the computer for an
  absent person are not their choices, and computer seats are never sources.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dicegame.rules.scoring import UPPER_BONUS_THRESHOLD, Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS
from dicegame.strategy import Strategy

CLEAR_MARGIN = 1.5
LARGE_LOSS = 2.0
TOP_SHOWN = 3  # the best choices the answer shows (and the player's own when it is not among them)
STORED_CHOICES = 5  # the best choices kept with a puzzle

THEMES = ("upper", "straights", "penta", "endgame")
ENDGAME_OPEN = 3  # at most this many open boxes (the box written by the move included) is the endgame


@dataclass(frozen=True)
class Option:
    """One choice at a position: exactly one of `keep` (sorted values, fewer than five) and `box`."""

    value: float  # expected final total when taken, then optimal play
    keep: tuple[int, ...] | None = None
    box: Box | None = None
    points: int | None = None

    @property
    def key(self) -> str:
        """A stable name: "keep:4,4", "keep:" (roll all five), "box:FOURS"."""
        if self.box is not None:
            return f"box:{self.box.name}"
        return "keep:" + ",".join(str(v) for v in self.keep)

    def to_json(self) -> dict:
        if self.box is not None:
            return {"box": self.box.name, "points": self.points, "value": round(self.value, 4)}
        return {"keep": list(self.keep), "value": round(self.value, 4)}

    @classmethod
    def from_json(cls, data: Mapping) -> Option:
        if data.get("box"):
            return cls(value=data["value"], box=Box[data["box"]], points=data["points"])
        return cls(value=data["value"], keep=tuple(data["keep"]))


def options(strategy: Strategy, sheet: Scoresheet, dice: Iterable[int], rolls_left: int) -> list[Option]:
    """Every choice at the position, best first (ties: keeps before boxes, then evaluate's order)."""
    dice = tuple(dice)
    boxes = [
        Option(value=c.expected_total, box=c.box, points=c.points) for c in strategy.evaluate(sheet, dice, 0)
    ]
    if rolls_left == 0:
        return boxes
    keeps = [
        Option(value=c.expected_total, keep=c.keep)
        for c in strategy.evaluate(sheet, dice, rolls_left)
        if len(c.keep) < 5
    ]
    merged = keeps + boxes
    merged.sort(key=lambda o: -round(o.value, 9))  # stable
    return merged


def _is_run_part(values: tuple[int, ...]) -> bool:
    """Distinct values that fit inside one run of five (1-5 or 2-6)."""
    return len(set(values)) == len(values) and max(values) - min(values) <= 4


def themes(sheet: Scoresheet, dice: Iterable[int], rolls_left: int, best: Option) -> list[str]:
    """The themes of a puzzle, from the position and its best choice alone (several may apply):

    - "upper": the upper bonus is still open and reachable (less than 63 so far, and the open upper
      boxes could still bring it there at five dice each), and the best choice is about the upper
      section: it writes an upper box, or keeps only dice of one face whose upper box is open;
    - "straights": a straight box is open and the best choice writes it, or keeps three or more
      distinct values that fit in one run of five;
    - "penta": the best choice writes the Penta box, or keeps three or more of a kind while the Penta
      box is open or holds 50 (a further Penta earns the 100 bonus);
    - "endgame": at most three boxes are open.
    """
    del dice, rolls_left  # the themes follow from the sheet and the best choice
    found = []
    open_boxes = set(sheet.open_boxes)
    upper_open = [b for b in open_boxes if b.is_upper]
    reachable = sheet.upper_total < UPPER_BONUS_THRESHOLD and (
        sheet.upper_total + sum(5 * b.face for b in upper_open) >= UPPER_BONUS_THRESHOLD
    )
    keep = best.keep or ()
    counts = Counter(keep)
    writes_upper = best.box is not None and best.box.is_upper
    keeps_one_open_face = len(counts) == 1 and Box.upper(keep[0]) in open_boxes
    if reachable and (writes_upper or keeps_one_open_face):
        found.append("upper")
    straights_open = {Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT} & open_boxes
    keeps_a_run = len(keep) >= 3 and _is_run_part(keep)
    if straights_open and (best.box in straights_open or keeps_a_run):
        found.append("straights")
    penta_live = Box.PENTA in open_boxes or sheet.penta_box_full
    if best.box is Box.PENTA or (penta_live and counts and max(counts.values()) >= 3):
        found.append("penta")
    if len(open_boxes) <= ENDGAME_OPEN:
        found.append("endgame")
    return found


@dataclass(frozen=True)
class Candidate:
    """A position of a finished game where a person's choice lost a lot and the best was clear."""

    seat: int
    turn_number: int
    round: int
    sheet: Scoresheet
    dice: tuple[int, ...]  # sorted
    rolls_left: int
    choices: tuple[Option, ...]  # best first, STORED_CHOICES of them
    chosen: Option
    loss: float
    margin: float  # best minus second best

    @property
    def best(self) -> Option:
        return self.choices[0]

    @property
    def key(self) -> str:
        return position_key(self.sheet, self.dice, self.rolls_left)


def position_key(sheet: Scoresheet, dice: Iterable[int], rolls_left: int) -> str:
    """Equal positions have equal keys: the written boxes with their points, the Penta bonus, the dice
    (as a multiset) and the rolls left."""
    boxes = ".".join(f"{b.value}:{p}" for b, p in sheet.boxes.items())
    return f"{boxes}|{sheet.penta_bonus}|{''.join(str(d) for d in sorted(dice))}|{rolls_left}"


def _position_losses(turn: Mapping) -> list[tuple[Mapping, float]]:
    """The turn's decision points as (decision, the player's loss there): a hold of fewer than five,
    or the box (after stopping early, the stop's cost is part of the box position's loss)."""
    out = []
    stop_cost = 0.0
    for d in turn["decisions"]:
        if d["kind"] == "keep" and len(d["chosen"]["keep"]) == 5:
            stop_cost = d["cost"]  # the box decision that follows is made at the same position
            continue
        out.append((d, d["cost"] + (stop_cost if d["kind"] == "box" else 0.0)))
    return out


def puzzle_candidates(
    data: Mapping,
    people: Iterable[int],
    strategy: Strategy | None = None,
    *,
    margin: float = CLEAR_MARGIN,
    loss: float = LARGE_LOSS,
) -> list[Candidate]:
    """The puzzles of one analysed game (`analysis.analyse_game`'s result): the positions of the seats
    in `people` (not the computer's seats) whose player lost at least `loss` and whose best choice
    beats the second best by at least `margin`, in turn order, each position once."""
    strategy = strategy or Strategy.shared()
    people = set(people)
    sheets: dict[int, Scoresheet] = {}
    found: list[Candidate] = []
    seen: set[str] = set()
    for turn in sorted(data["turns"], key=lambda t: t["number"]):
        seat = turn["seat"]
        sheet = sheets.get(seat, Scoresheet())
        played_by_person = seat in people and not (turn["auto_committed"] or turn["stand_in"])
        for d, lost in _position_losses(turn) if played_by_person else ():
            if lost < loss - 1e-6:
                continue
            rolls_left = MAX_ROLLS - d["roll"]
            dice = tuple(sorted(d["dice"]))
            choices = options(strategy, sheet, dice, rolls_left)
            if len(choices) < 2 or choices[0].value - choices[1].value < margin:
                continue
            chosen_json = d["chosen"]
            want = (
                f"box:{chosen_json['box']}"
                if d["kind"] == "box"
                else "keep:" + ",".join(str(v) for v in chosen_json["keep"])
            )
            chosen = next((o for o in choices if o.key == want), None)
            if chosen is None:  # cannot happen for a replayable log; skip rather than guess
                continue
            candidate = Candidate(
                seat=seat,
                turn_number=turn["number"],
                round=turn["round"],
                sheet=sheet,
                dice=dice,
                rolls_left=rolls_left,
                choices=tuple(choices[:STORED_CHOICES]),
                chosen=chosen,
                loss=choices[0].value - chosen.value,
                margin=choices[0].value - choices[1].value,
            )
            if candidate.key not in seen:
                seen.add(candidate.key)
                found.append(candidate)
        sheets[seat] = sheet.place(Box[turn["box"]], tuple(turn["rolls"][-1]["dice"]))
    return found
