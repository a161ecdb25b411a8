"""What the computer does in a turn: the bots' next move, and the box the auto-commit writes.

Pure decisions on top of `dicegame.strategy` (no database): play (`dicegame.play.clock`) asks, then
applies the answer like any player's action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS
from dicegame.strategy.bots import Bot
from dicegame.strategy.decisions import Strategy


@cache
def computer_player(strength: str) -> Bot:
    """One computer player of each strength per process (the winner remembers its last turns)."""
    return Bot(strength)


def auto_commit_box(sheet: Scoresheet, dice: tuple[int, ...]) -> Box:
    """The box the computer would choose for these final dice: the optimal strategy's."""
    return Strategy.shared().best_box(sheet, dice)


def holds_for(dice: tuple[int, ...], keep: tuple[int, ...]) -> list[bool]:
    """Which of the dice to hold so that the held values are `keep` (a sub-multiset of the dice);
    the leftmost matching dice are held."""
    wanted = Counter(keep)
    held = []
    for value in dice:
        take = wanted[value] > 0
        wanted[value] -= take
        held.append(take)
    if +wanted:
        raise ValueError(f"{keep} is not a part of the dice {dice}")
    return held


@dataclass(frozen=True)
class Step:
    """One visible move: "roll", "hold" (with the holds to set), "choose" (with the box), "confirm"."""

    kind: str
    held: tuple[bool, ...] | None = None
    box: Box | None = None


def next_step(
    bot: Bot,
    sheet: Scoresheet,
    dice: tuple[int, ...] | None,
    held: list[bool],
    rolls_used: int,
    chosen: Box | None,
    opponents: Sequence[Scoresheet] = (),
) -> Step:
    """The bot's next move in its turn, one visible change at a time: roll; set the holds it wants;
    roll again...; choose a box; confirm. `opponents`: the other seats' sheets (the winner weighs them)."""
    if rolls_used == 0 or dice is None:
        return Step("roll")
    if chosen is not None:
        return Step("confirm")
    rolls_left = MAX_ROLLS - rolls_used
    if rolls_left > 0:
        keep = bot.choose_keep(sheet, dice, rolls_left, opponents=opponents)
        if len(keep) < len(dice):
            wanted = tuple(holds_for(dice, keep))
            if wanted != tuple(bool(h) for h in held):
                return Step("hold", held=wanted)
            return Step("roll")
    return Step("choose", box=bot.choose_box(sheet, dice, opponents=opponents))
