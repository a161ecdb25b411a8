"""Simulated players for calibrating the fair-play model (`bench/fairplay.py`, the tests). Pure.

Honest players of every strength: Boltzmann-rational players (each choice taken with probability
proportional to exp(expected total / T)) at several temperatures, and the three computer strengths with
noise on their judgement; all with human-like decision times (longer on close calls, spread by a
factor of about 1.8). Assisted players take the solver's choice on a share of the decisions, at a
solver user's steady pace, and play as an honest player on the rest.

A game's decisions are recorded as the stored analysis records them (`strategy.analysis`: the best
choices by the optimal strategy, holding all five valued as stopping), so the model sees simulated and
real games alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy.analysis import TurnLog, held_positions, keep_choices
from dicegame.strategy.bots import greedy_policy, heuristic_strategy
from dicegame.strategy.decisions import Choice, Strategy
from fairplay import positions
from fairplay.model import Decision

TURNS = len(Box)


def human_seconds(rng: np.random.Generator, margin: float) -> float:
    """A person's time to decide: about 2 s on an obvious choice, up to 6 s on a close one."""
    median = 2.0 + 4.0 / (1.0 + max(0.0, margin))
    return float(math.exp(rng.normal(math.log(median), 0.6)))


def solver_seconds(rng: np.random.Generator) -> float:
    """Reading the dice into a solver and its answer back: about 6 s whatever the position."""
    return float(math.exp(rng.normal(math.log(6.0), 0.2)))


def boltzmann_pick(rng: np.random.Generator, choices: list[Choice], temperature: float) -> int:
    values = np.array([c.expected_total for c in choices])
    w = np.exp((values - values.max()) / temperature)
    return int(rng.choice(len(choices), p=w / w.sum()))


@dataclass(frozen=True)
class Player:
    """kind: "boltzmann" (temperature), "computer" (strength, noise: the spread of its misjudgement
    in expected points), or "assisted" (share from the solver, the rest as Boltzmann at temperature)."""

    kind: str
    temperature: float = 2.0
    strength: str = "hard"
    noise: float = 1.0
    share: float = 0.0

    @property
    def label(self) -> str:
        if self.kind == "boltzmann":
            return f"Boltzmann T={self.temperature:g}"
        if self.kind == "computer":
            return f"computer {self.strength}, noise {self.noise:g}"
        return f"solver on {self.share:.0%}, else T={self.temperature:g}"

    @property
    def honest(self) -> bool:
        return self.kind != "assisted"

    def pick(
        self,
        rng: np.random.Generator,
        choices: list[Choice],
        sheet: Scoresheet,
        dice: tuple[int, ...],
        rolls_left: int,
    ) -> tuple[int, bool]:
        """The index taken among the optimal `choices` (best first), and whether the solver chose it."""
        if self.kind == "assisted":
            if rng.random() < self.share:
                return 0, True
            return boltzmann_pick(rng, choices, self.temperature), False
        if self.kind == "boltzmann":
            return boltzmann_pick(rng, choices, self.temperature), False
        if self.strength == "easy":
            # The greedy bot, misjudging: on a share of decisions as noisy as a weak player.
            if rng.random() < min(1.0, self.noise / 4.0):
                return boltzmann_pick(rng, choices, 4.0), False
            greedy = greedy_policy()
            target = (
                greedy.best_box(sheet, dice) if rolls_left == 0 else greedy.best_keep(sheet, dice, rolls_left)
            )
            return _index_of(choices, target), False
        own = choices if self.strength == "hard" else _own_choices(sheet, dice, rolls_left)
        values = np.array([c.expected_total for c in own]) + rng.normal(0.0, self.noise, len(own))
        mine = own[int(values.argmax())]
        return _index_of(choices, mine.box if rolls_left == 0 else mine.keep), False


def _own_choices(sheet: Scoresheet, dice: tuple[int, ...], rolls_left: int) -> list[Choice]:
    return heuristic_strategy().evaluate(sheet, dice, rolls_left)


def _index_of(choices: list[Choice], target) -> int:
    for i, c in enumerate(choices):
        if (c.box if c.box is not None else c.keep) == target:
            return i
    raise ValueError(f"{target} is not among the choices")


def _reroll(rng: np.random.Generator, dice: list[int], keep: tuple[int, ...]) -> tuple[list[int], list[bool]]:
    """Roll the dice not kept: the held ones stay in place, as the site logs a roll."""
    held = held_positions(dice, keep)
    return [v if h else int(rng.integers(1, 7)) for v, h in zip(dice, held, strict=True)], held


@dataclass(frozen=True)
class Game:
    """A simulated game: its decisions as the analysis records them, the final total, and the turns as
    the site logs them (for `analyse_game`) with each turn's decision times by turn number (as
    `positions.from_analysis` takes them)."""

    decisions: list[Decision]
    total: int
    turns: list[TurnLog]
    seconds: dict[int, list[float]]


def play_game(strategy: Strategy, player: Player, rng: np.random.Generator) -> Game:
    """One solo game of 13 turns."""
    sheet = Scoresheet()
    decisions: list[Decision] = []
    turns: list[TurnLog] = []
    seconds: dict[int, list[float]] = {}

    def decide(choices: list[Choice], dice, rolls_left) -> int:
        k, solver = player.pick(rng, choices, sheet, dice, rolls_left)
        margin = choices[0].expected_total - choices[1].expected_total if len(choices) > 1 else 10.0
        took = solver_seconds(rng) if solver else human_seconds(rng, margin)
        decisions.append(positions.from_choices(choices, k, took, sheet, dice, rolls_left))
        seconds.setdefault(len(turns) + 1, []).append(took)
        return k

    for number in range(1, TURNS + 1):
        dice = [int(v) for v in rng.integers(1, 7, 5)]
        rolls = [{"dice": dice, "held": [False] * 5}]
        for rolls_left in (2, 1):
            choices = keep_choices(strategy, sheet, tuple(dice), rolls_left)
            keep = choices[decide(choices, tuple(dice), rolls_left)].keep
            if len(keep) == 5:
                break
            dice, held = _reroll(rng, dice, keep)
            rolls.append({"dice": dice, "held": held})
        choices = strategy.evaluate(sheet, tuple(dice), 0)
        box = choices[decide(choices, tuple(dice), 0)].box
        turns.append(TurnLog(number=number, round=number, seat=0, rolls=rolls, box=box.name))
        sheet = sheet.place(box, tuple(dice))
    return Game(decisions, sheet.total, turns, seconds)


def play(strategy: Strategy, player: Player, rng: np.random.Generator) -> tuple[list[Decision], int]:
    """One solo game of 13 turns: its decisions as the analysis records them, and the final total."""
    game = play_game(strategy, player, rng)
    return game.decisions, game.total


# The honest population the line is calibrated on, strongest first.
HONEST = (
    Player("computer", strength="hard", noise=0.75),
    Player("computer", strength="hard", noise=1.0),
    Player("boltzmann", temperature=0.5),
    Player("boltzmann", temperature=1.0),
    Player("computer", strength="hard", noise=2.0),
    Player("boltzmann", temperature=2.0),
    Player("computer", strength="medium", noise=1.0),
    Player("boltzmann", temperature=4.0),
    Player("boltzmann", temperature=8.0),
    Player("computer", strength="easy", noise=1.0),
)
