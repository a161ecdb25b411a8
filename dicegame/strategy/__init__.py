"""The optimal strategy for Penta (solitaire, maximum expected final total) and the computer players.

Pure Python and numpy, no Django:

    from dicegame.strategy import Strategy, Bot
    s = Strategy.load()              # the solved table, from the cache file or built (a few seconds)
    s.expected_total(sheet)          # expected final TOTAL from the start of the next turn
    s.best_keep(sheet, dice, 2)      # dice to hold after the first roll
    s.best_box(sheet, dice)          # where to write the final dice
    s.evaluate(sheet, dice, 1)       # every choice with its expected total, best first
    Bot("medium").choose_box(sheet, dice)
"""

from .bots import STRENGTHS, Bot
from .decisions import Choice, Strategy

__all__ = ["STRENGTHS", "Bot", "Choice", "Strategy"]
