"""The hints: the optimal strategy's view of a player's position (every hold and every box with its
expected final total, best first) and the best move in plain words."""

from __future__ import annotations

from dataclasses import dataclass

from dicegame.labels import box_label, keep_label
from dicegame.rules.scoring import Scoresheet
from dicegame.rules.turn import MAX_ROLLS
from dicegame.screen import hint_words
from dicegame.strategy import Strategy


@dataclass(frozen=True)
class HintLine:
    label: str
    expected_total: float
    cost: float  # expected final points given up against the best choice

    @property
    def is_best(self) -> bool:
        return self.cost < 0.005


@dataclass(frozen=True)
class Hints:
    """The optimal strategy's view of the player's position: every hold and every box, best first."""

    expected_total: float  # under optimal play from here
    keeps: list[HintLine]
    boxes: list[HintLine]
    # The best move in plain words (hint_words), and the dice of the tray it keeps.
    sentence: str = ""
    keep_flags: tuple[bool, ...] = ()


def game_hints(
    *,
    sheet: Scoresheet,
    dice_values: tuple[int, ...] | None,
    rolls_used: int,
    held: tuple[bool, ...] | None = None,
) -> Hints:
    strategy = Strategy.shared()
    if dice_values is None:
        return Hints(expected_total=strategy.expected_total(sheet), keeps=[], boxes=[])
    rolls_left = MAX_ROLLS - rolls_used
    boxes = strategy.evaluate(sheet, dice_values, 0)
    keeps = strategy.evaluate(sheet, dice_values, rolls_left) if rolls_left else []
    best = max(c.expected_total for c in (keeps or boxes))
    keep_flags: tuple[bool, ...] = ()
    if keeps and len(keeps[0].keep) < len(dice_values):
        sentence = hint_words.keep_sentence(keeps[0].keep)
        if keeps[0].keep:
            keep_flags = hint_words.keep_positions(dice_values, keeps[0].keep, held)
    else:
        sentence = hint_words.box_sentence(boxes[0].box, boxes[0].points, stop_rolling=bool(keeps))
    return Hints(
        sentence=sentence,
        keep_flags=keep_flags,
        expected_total=best,
        keeps=[HintLine(keep_label(c.keep), c.expected_total, best - c.expected_total) for c in keeps[:6]],
        boxes=[
            HintLine(f"{box_label(c.box)} ({c.points})", c.expected_total, best - c.expected_total)
            for c in boxes
        ],
    )
