"""Solo games played by a bot with the server's own provably-fair dice, and their statistics.

Game g of a run uses game id g, turns 1..13 and rolls 1..3 of `dicegame.rules.dice`, so any game can be
replayed (and checked) from the run's seed.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dicegame.rules.dice import new_seed, roll_dice
from dicegame.rules.scoring import Box, Scoresheet

from .bots import Bot

TURNS = len(Box)
PERCENTILES = (5, 25, 50, 75, 95)


def seed_from_number(number: int) -> str:
    """A dice seed (64 hex digits) derived from a small number, for reproducible runs."""
    return hashlib.sha256(f"penta-simulate/{number}".encode()).hexdigest()


def held_flags(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[bool, ...]:
    """Which positions to hold so that the held dice are exactly the multiset `keep`."""
    wanted = Counter(keep)
    held = []
    for v in dice:
        held.append(wanted[v] > 0)
        wanted[v] -= 1
    return tuple(held)


def play_game(bot: Bot, seed: str, game: int) -> Scoresheet:
    """One solo game of 13 turns; returns the final sheet."""
    sheet = Scoresheet()
    for turn in range(1, TURNS + 1):
        dice = roll_dice(seed, game, turn, 1, None, (False,) * 5)
        for roll in (2, 3):
            keep = bot.choose_keep(sheet, dice, 4 - roll)
            if len(keep) == 5:  # holding everything: score now
                break
            dice = roll_dice(seed, game, turn, roll, dice, held_flags(dice, keep))
        sheet = sheet.place(bot.choose_box(sheet, dice), dice)
    return sheet


@dataclass(frozen=True)
class Summary:
    """Statistics of a run of games."""

    strength: str
    games: int
    mean: float
    sd: float
    se: float
    percentiles: dict[int, float]
    upper_bonus_rate: float
    penta_rate: float  # share of games ending with 50 in the Penta box

    def lines(self) -> list[str]:
        pct = "  ".join(f"p{q}={v:g}" for q, v in self.percentiles.items())
        return [
            f"strength {self.strength}: {self.games} games",
            f"mean {self.mean:.3f}  sd {self.sd:.3f}  se {self.se:.3f}",
            f"percentiles {pct}",
            f"upper bonus {self.upper_bonus_rate:.1%}  Penta (50 in the Penta box) {self.penta_rate:.1%}",
        ]


def simulate(
    strength: str,
    games: int,
    seed: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    bot: Bot | None = None,
) -> Summary:
    """Play `games` solo games with a bot of this strength; seed: a dice seed (new one if None)."""
    if games < 1:
        raise ValueError("at least one game is needed")
    bot = bot or Bot(strength)
    seed = seed or new_seed()
    totals = np.empty(games)
    bonuses = pentas = 0
    for game in range(games):
        sheet = play_game(bot, seed, game)
        totals[game] = sheet.total
        bonuses += sheet.upper_bonus > 0
        pentas += sheet.penta_box_full
        if progress is not None:
            progress(game + 1, games)
    sd = float(totals.std(ddof=1)) if games > 1 else 0.0
    return Summary(
        strength=strength,
        games=games,
        mean=float(totals.mean()),
        sd=sd,
        se=sd / math.sqrt(games),
        percentiles={q: float(np.percentile(totals, q)) for q in PERCENTILES},
        upper_bonus_rate=bonuses / games,
        penta_rate=pentas / games,
    )
