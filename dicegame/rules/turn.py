"""A turn's and a game's limits, defined once: every layer above counts with these."""

from dicegame.rules.scoring import Box

DICE = 5  # dice in a roll
MAX_ROLLS = 3  # rolls in a turn: the first, and up to two rerolls
ROUNDS = len(Box)  # a turn per box, for each seat
# A question the page asks (a zero to confirm) holds a running auto-commit for the answer: for at most
# this long after the question, and never more than this long past the auto-commit's own time.
QUESTION_HOLD_SECONDS = 10

# Correspondence games, played on each one's own time: the times a move may have (an hour to three
# days), how many moves missed in a row forfeit the seat (the computer played them; as if the player had
# left), how long a game may go with no person moving before it ends as it stands, and how many such games
# one person may have at once.
MOVE_TIME_CHOICES = (3600, 8 * 3600, 24 * 3600, 3 * 24 * 3600)
MISSED_MOVES_FORFEIT = 3
IDLE_END_SECONDS = 14 * 24 * 3600
CORRESPONDENCE_GAMES_MAX = 50
# A reminder goes when this share of a move's time is left.
REMINDER_SHARE = 0.2
# A rated game always has a clock: a live one with no turn timer of its own (made before the rule) gets
# this one, so a player who keeps the page open and never moves loses on time instead of stalling it.
RATED_TURN_SECONDS = 60
# A person's time to choose a box after the last roll, before the computer writes it (the auto-commit):
# the site's default (PENTA_AUTO_COMMIT_SECONDS, 3 s), or more by their own setting, or off. Off only
# where nobody waits (a solo game, one against the computer); elsewhere (friends, rated games, the daily
# challenge, a tournament round) a person may take at most AUTO_COMMIT_MAX_SECONDS.
AUTO_COMMIT_CHOICES = (3, 6, 10, 0)  # 0: off
AUTO_COMMIT_MAX_SECONDS = 10
# The computer players' pace when a person chose "fast": a fraction of the normal one.
FAST_COMPUTER_SHARE = 0.2
