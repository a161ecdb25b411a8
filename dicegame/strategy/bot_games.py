"""Whole games of computer players on the server's dice recipe, as the turn log the app stores.

Pure (no Django): the tests and the benchmarks (`bench/review_costs.py`, `bench/stats_page.py`) generate
realistic finished games with it, so they all play exactly as the server deals.
"""

from __future__ import annotations

from dataclasses import dataclass

from dicegame.rules.dice import roll_dice
from dicegame.rules.scoring import Scoresheet
from dicegame.rules.turn import ROUNDS
from dicegame.strategy.analysis import TurnLog
from dicegame.strategy.bots import Bot
from dicegame.strategy.simulate import held_flags


@dataclass(frozen=True)
class BotGame:
    logs: list[TurnLog]  # every turn in play order, each roll with the holds that led to it
    sheets: list[Scoresheet]  # the final sheet of each seat


def bot_game(strengths: list[str], seed: str, game: int | str = 1) -> BotGame:
    """Bots of these strengths take turns (seat order, 13 rounds) on `seed`'s dice for game `game`."""
    bots = [Bot(s) for s in strengths]
    sheets = [Scoresheet() for _ in strengths]
    logs = []
    number = 0
    for rnd in range(1, ROUNDS + 1):
        for seat, bot in enumerate(bots):
            number += 1
            dice = roll_dice(seed, game, number, 1, None, (False,) * 5)
            rolls = [{"dice": list(dice), "held": [False] * 5}]
            for r in (2, 3):
                keep = bot.choose_keep(sheets[seat], dice, 4 - r)
                if len(keep) == 5:  # keeping all five: the turn stops here
                    break
                held = held_flags(dice, keep)
                dice = roll_dice(seed, game, number, r, dice, held)
                rolls.append({"dice": list(dice), "held": list(held)})
            box = bot.choose_box(sheets[seat], dice)
            before = sheets[seat]
            sheets[seat] = before.place(box, dice)
            logs.append(
                TurnLog(
                    number=number,
                    round=rnd,
                    seat=seat,
                    rolls=rolls,
                    box=box.name,
                    points=sheets[seat].boxes[box],
                    bonus=sheets[seat].penta_bonus - before.penta_bonus,
                )
            )
    return BotGame(logs, sheets)
