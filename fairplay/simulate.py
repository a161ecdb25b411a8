"""Simulated people playing as the server lets them, for calibrating the fair-play model
(`bench/fairplay.py`, the tests). Pure.

A person (`Player`) is a style of play (`fairplay.players`: the guides, the calculators, the biased,
judgement as noise on the true values), a pace (how long each decision takes), and habits of the table:
leaving the box after the last roll to the auto-commit, being away for a turn. An assisted person takes
the solver's choice on a share of the decisions, at a solver user's steady pace.

A turn is played against a `Table`, which applies the server's own rules with the server's own
functions: the 3-second auto-commit after the last roll writes `computer.auto_commit_box`; a turn whose
time runs out (a rated game's RATED_TURN_SECONDS) is played on by the computer (`computer.next_step`,
the hard computer) and marked as a stand-in turn; two such turns in a row and the computer keeps the
seat until the person takes it back. `SimTable` is the bulk path's table; the tests have one that plays
through the real services (`tests/support/fairplay.py`), on the same moves.

A game's decisions are then read exactly as the site reads a stored analysis (`analysis.analyse_game`,
`positions.from_analysis`, the decision times from the turn's clock by `positions.decision_seconds`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from dicegame.rules.dice import roll_dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS, RATED_TURN_SECONDS, ROUNDS
from dicegame.strategy import analysis as A
from dicegame.strategy.bots import Bot, greedy_policy, heuristic_strategy
from dicegame.strategy.computer import auto_commit_box, holds_for, next_step
from dicegame.strategy.decisions import Strategy
from fairplay import positions
from fairplay.model import Decision
from fairplay.players import View, boltzmann_index, target

# The server's (settings.PENTA_AUTO_COMMIT_SECONDS, PENTA_BOT_STEP_SECONDS): this module is pure.
AUTO_COMMIT_SECONDS = 3.0
BOT_STEP_SECONDS = 0.9


# -- paces ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HumanPace:
    """A person's time to decide: longer on close calls, shorter on obvious ones, spread by a factor of
    exp(spread). The box after the last roll is quicker (the page counts down the auto-commit's 3 s), so a
    slow one is sometimes written by the auto-commit. A small `spread` is a person with steady times."""

    hold: float = 3.0
    box: float = 1.6
    spread: float = 0.55

    def seconds(self, rng, view: View, final_box: bool) -> float:
        hard = 1.0 + 1.0 / (1.0 + max(0.0, view.margin))
        median = (self.box if final_box else self.hold) * hard
        return float(math.exp(rng.normal(math.log(median), self.spread)))


@dataclass(frozen=True)
class SolverPace:
    """Reading the dice into a solver and its answer back: steady whatever the position. `final_box`: the
    box after the last roll, confirmed at once (a solver user who waits for the auto-commit never needs
    it)."""

    median: float = 5.5
    final_box: float = 2.3
    spread: float = 0.2

    def seconds(self, rng, view: View, final_box: bool) -> float:
        return float(
            math.exp(rng.normal(math.log(self.final_box if final_box else self.median), self.spread))
        )


# -- the computers, as people playing like them -----------------------------------------------------------


@dataclass(frozen=True)
class Computer:
    """The medium or easy computer's choices, misjudged (as the model's own rules of thumb)."""

    strength: str
    noise: float = 1.0

    @property
    def label(self) -> str:
        return f"computer {self.strength}, noise {self.noise:g}"

    def _pick(self, rng, view: View):
        if self.strength == "easy":
            if rng.random() < min(1.0, self.noise / 4.0):
                c = view.choices
                return target(c[boltzmann_index(rng, [x.expected_total for x in c], 4.0)])
            g = greedy_policy()
            if view.rolls_left == 0:
                return g.best_box(view.sheet, view.sorted_dice)
            return g.best_keep(view.sheet, view.sorted_dice, view.rolls_left)
        own = heuristic_strategy().evaluate(view.sheet, view.sorted_dice, view.rolls_left)
        values = np.array([c.expected_total for c in own]) + rng.normal(0.0, self.noise, len(own))
        return target(own[int(values.argmax())])

    def keep(self, rng, view):
        return self._pick(rng, view)

    def box(self, rng, view):
        return self._pick(rng, view)


# -- people -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    """A person at the table. `solver`: the share of decisions taken from the solver (0: honest);
    `solver_holds_only`: the solver on holds only (boxes the person's own). `waits`: the box after the
    last roll is left to the auto-commit. `away`: the chance that a turn finds the person away."""

    style: object
    pace: object = field(default_factory=HumanPace)
    solver: float = 0.0
    waits: bool = False
    away: float = 0.0
    solver_pace: object = field(default_factory=SolverPace)
    name: str = ""

    @property
    def honest(self) -> bool:
        return self.solver == 0.0

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        parts = [self.style.label]
        if self.solver:
            parts.insert(0, f"solver on {self.solver:.0%}, else")
        if self.waits:
            parts.append("boxes left to the auto-commit")
        if self.away:
            parts.append(f"away {self.away:.0%} of turns")
        if isinstance(self.pace, HumanPace) and self.pace.spread < 0.3:
            parts.append("steady times")
        return ", ".join(parts)

    def decide(self, rng, view: View, final_box: bool = False) -> tuple[object, float]:
        """(the hold or the box, the seconds it took)."""
        if self.solver and rng.random() < self.solver:
            return target(view.choices[0]), self.solver_pace.seconds(rng, view, final_box)
        own = self.style.keep(rng, view) if view.rolls_left else self.style.box(rng, view)
        return own, self.pace.seconds(rng, view, final_box)


# -- the table: the server's rules for one seat -----------------------------------------------------------


class Table(Protocol):
    """One seat's turns as the server runs them. Each person's move comes `after` seconds of thought; the
    table first applies what the server's clock makes due by then (the auto-commit, the turn's time
    running out) and then the move, if the turn is still the person's to play."""

    turn_seconds: float | None

    def start(self, number: int, round_: int) -> bool: ...  # True: the computer keeps the seat

    def take_back(self) -> None: ...

    def roll(self, after: float, held: tuple[bool, ...]) -> tuple[int, ...] | None: ...

    def choose(self, after: float, box: Box) -> bool: ...

    def wait(self) -> None: ...

    def away(self) -> None: ...


class Dice(Protocol):
    def __call__(self, number: int, roll: int, previous, held) -> tuple[int, ...]: ...


def random_dice(rng: np.random.Generator) -> Dice:
    def roll(number, roll, previous, held):
        return tuple(
            previous[i] if previous is not None and held[i] else int(rng.integers(1, 7)) for i in range(5)
        )

    return roll


@dataclass
class TurnClock:
    """A turn's times as the server keeps them (seconds from the game's start): each roll, the box chosen
    by the person, the turn written."""

    roll_times: list[float] = field(default_factory=list)
    chosen_at: float | None = None
    completed_at: float | None = None


class SimTable:
    """The bulk path's table: the server's rules, dice from `dice`, the clock counted in seconds."""

    def __init__(self, strategy: Strategy, dice: Dice, turn_seconds: float | None = RATED_TURN_SECONDS):
        self.strategy = strategy
        self.dice = dice
        self.turn_seconds = turn_seconds
        self.sheet = Scoresheet()
        self.now = 0.0
        self.missed = 0
        self.kept = False  # the computer keeps the seat (two turns missed in a row)
        self.logs: list[A.TurnLog] = []
        self.clocks: dict[int, TurnClock] = {}

    def start(self, number: int, round_: int) -> bool:
        self.number, self.round = number, round_
        self.rolls: list[dict] = []
        self.current: tuple[int, ...] | None = None
        self.held = (False,) * 5
        self.stand_in = self.kept
        self.clock = self.clocks[number] = TurnClock()
        # As `kernel.start_turn`: a seat the computer keeps has no turn timer, its moves come at its pace.
        limited = self.turn_seconds is not None and not self.kept
        self.deadline = self.now + self.turn_seconds if limited else None
        self.auto_commit_at: float | None = None
        return self.kept

    def take_back(self) -> None:
        """As `rooms.seat_take_back` before the computer's first move: the turn is the person's again."""
        self.kept = False
        self.stand_in = False
        self.missed = 0
        if self.turn_seconds is not None:
            self.deadline = self.now + self.turn_seconds

    def _settle(self, at: float) -> bool:
        """What the clock makes due by `at` (as `clock._apply_due`): True if the turn was written."""
        if self.auto_commit_at is not None and self.auto_commit_at <= at:
            self.now = self.auto_commit_at
            self._write(auto_commit_box(self.sheet, self.current), auto=True)
            return True
        if self.deadline is not None and self.deadline <= at:
            self.now = self.deadline
            self._time_out()
            return True
        return False

    def _roll(self, held) -> tuple[int, ...]:
        self.current = self.dice(self.number, len(self.rolls) + 1, self.current, held)
        self.held = tuple(held)
        self.rolls.append({"dice": list(self.current), "held": list(held)})
        self.clock.roll_times.append(round(self.now, 3))
        self.clock.chosen_at = None
        self.auto_commit_at = self.now + AUTO_COMMIT_SECONDS if len(self.rolls) == MAX_ROLLS else None
        return self.current

    def _write(self, box: Box, *, auto: bool) -> None:
        before = self.sheet
        self.sheet = before.place(box, self.current)
        self.clock.completed_at = self.now
        self.logs.append(
            A.TurnLog(
                number=self.number,
                round=self.round,
                seat=0,
                rolls=self.rolls,
                box=box.name,
                points=self.sheet.boxes[box],
                bonus=self.sheet.penta_bonus - before.penta_bonus,
                auto_committed=auto,
                stand_in=self.stand_in,
            )
        )
        self.auto_commit_at = None

    def _time_out(self) -> None:
        """As `clock._time_out` in a live game: the computer plays the turn on; a second miss in a row
        hands it the seat."""
        self.missed += 1
        self.kept = self.missed >= 2
        self.stand_in = True
        self.deadline = None
        self.auto_commit_at = None
        self._computer_plays(paced=False)

    def _computer_plays(self, *, paced: bool) -> None:
        bot = Bot("hard", self.strategy)
        chosen = None
        while True:
            rolls_used = len(self.rolls)
            step = next_step(bot, self.sheet, self.current, list(self.held), rolls_used, chosen)
            if paced:
                self.now += BOT_STEP_SECONDS
            if step.kind == "confirm":
                self._write(chosen, auto=False)
                return
            if step.kind == "roll":
                held = self.held if self.current is not None else (False,) * 5
                self._roll(held)
            elif step.kind == "hold":
                self.held = step.held
            else:
                chosen = step.box

    # -- the person's moves --

    def roll(self, after: float, held: tuple[bool, ...]) -> tuple[int, ...] | None:
        if self._settle(self.now + after):
            return None
        self.now += after
        self.missed = 0  # a person's move (`actions._act`)
        return self._roll(held)

    def choose(self, after: float, box: Box) -> bool:
        if self._settle(self.now + after):
            return False
        self.now += after
        self.clock.chosen_at = self.now
        self._write(box, auto=False)
        self.missed = 0
        return True

    def wait(self) -> None:
        self._settle(math.inf)

    def away(self) -> None:
        """The person does not play this turn: the computer plays it, on the seat it keeps, or when the
        turn's time runs out. (A game with no turn timer waits: the person plays it when back.)"""
        if self.kept:
            self._computer_plays(paced=True)
        elif self.deadline is not None:
            self._settle(math.inf)


# -- a game --------------------------------------------------------------------------------------------

FIRST_ROLL_SECONDS = 1.2


def play_turn(
    strategy: Strategy,
    player: Player,
    rng: np.random.Generator,
    table,
    sheet: Scoresheet,
    round_: int,
    *,
    kept: bool = False,
    away: bool = False,
) -> None:
    """One turn of `player` at `table` (whose turn has started; `kept`: on a seat the computer keeps;
    `away`: the person is away for it). The moves and the person's draws are the same whatever the
    table: the bulk path and the real services see the same person."""
    if away and (kept or table.turn_seconds is not None):
        table.away()
        return
    if kept:
        table.take_back()
    dice = table.roll(FIRST_ROLL_SECONDS, (False,) * 5)
    rolls_left = MAX_ROLLS - 1
    while dice is not None:
        view = View(strategy, sheet, dice, rolls_left, round_)
        if rolls_left:
            keep, seconds = player.decide(rng, view)
            if len(keep) == 5:  # a stop: the box is chosen now, no roll between
                box, more = player.decide(rng, View(strategy, sheet, dice, 0, round_))
                table.choose(seconds + more, box)
                return
            dice = table.roll(seconds, tuple(holds_for(dice, keep)))
            rolls_left -= 1
            continue
        box, seconds = player.decide(rng, view, final_box=True)
        if player.waits or seconds > AUTO_COMMIT_SECONDS:
            table.wait()
        else:
            table.choose(seconds, box)
        return


@dataclass(frozen=True)
class Game:
    """A simulated seat's game: the decisions the model reads (as the site reads them), the total, the
    turns as the site logs them, and each turn's decision times by turn number."""

    decisions: list[Decision]
    total: int
    turns: list[A.TurnLog]
    seconds: dict[int, list]

    @property
    def auto_committed(self) -> int:
        return sum(t.auto_committed for t in self.turns)

    @property
    def stand_in(self) -> int:
        return sum(t.stand_in for t in self.turns)


def slot(round_: int, seat: int, seats: int) -> int:
    return A.slot_turn(round_, seat, seats)


def streams(rng: np.random.Generator) -> tuple[np.random.Generator, ...]:
    """(the dice's generator, the person's choices and times, the person's absences) from a game's
    generator: the person draws the same whatever deals the dice, and is away on the same turns."""
    dice, person, absences = rng.spawn(3)
    return dice, person, absences


def seeded_dice(seed: str, game: int | str) -> Dice:
    """The server's dice recipe (`rules.dice.roll_dice`) for a game's seed and number."""

    def roll(number, roll, previous, held):
        return roll_dice(seed, game, number, roll, previous, tuple(held))

    return roll


def play_game(
    strategy: Strategy,
    player: Player,
    rng: np.random.Generator,
    *,
    dice: Dice | None = None,
    seat: int = 0,
    seats: int = 1,
    turn_seconds: float | None = RATED_TURN_SECONDS,
) -> Game:
    """One seat's 13 turns (turn numbers as in a game of `seats` seats), at a `SimTable`: dice from
    `dice` (default: drawn from a generator spawned from `rng`, so the person's own draws are the same
    whatever deals the dice)."""
    dice_rng, rng, absences = streams(rng)
    strategy = Remembered(strategy)
    table = SimTable(strategy, dice or random_dice(dice_rng), turn_seconds)
    for round_ in range(1, ROUNDS + 1):
        kept = table.start(slot(round_, seat, seats), round_)
        away = bool(absences.random() < player.away)
        play_turn(strategy, player, rng, table, table.sheet, round_, kept=kept, away=away)
    return read_game(strategy, table.logs, table.clocks, table.sheet.total)


class Remembered:
    """The strategy, remembering its answers for one game: the person's view of a decision and the
    analysis of it ask the same question."""

    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.answers: dict = {}

    def evaluate(self, sheet: Scoresheet, dice, rolls_left: int):
        key = (sheet, tuple(sorted(dice)), rolls_left)
        if key not in self.answers:
            self.answers[key] = self.strategy.evaluate(sheet, dice, rolls_left)
        return self.answers[key]

    def __getattr__(self, name):
        return getattr(self.strategy, name)


def read_game(strategy: Strategy, logs: list[A.TurnLog], clocks: dict[int, TurnClock], total: int) -> Game:
    """The seat's decisions as the site reads them: its analysis, and the times by the turn's clock."""
    data = A.analyse_game([A.TurnLog(**{**t.__dict__, "seat": 0}) for t in logs], [0], strategy)
    seconds = {
        n: positions.decision_seconds(c.roll_times, c.chosen_at, c.completed_at) for n, c in clocks.items()
    }
    return Game(positions.from_analysis(data, 0, seconds), total, logs, seconds)


def play(strategy: Strategy, player: Player, rng: np.random.Generator) -> tuple[list[Decision], int]:
    """One game: its decisions as the site reads them, and the final total."""
    game = play_game(strategy, player, rng)
    return game.decisions, game.total


Factory = Callable[[], Player]
