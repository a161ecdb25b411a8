"""A turn's and a game's limits, defined once: every layer above counts with these."""

from dicegame.rules.scoring import Box

DICE = 5  # dice in a roll
MAX_ROLLS = 3  # rolls in a turn: the first, and up to two rerolls
ROUNDS = len(Box)  # a turn per box, for each seat
