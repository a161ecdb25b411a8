"""Play: the only code that changes a game, under the game's row lock.

The public API the web, the sockets and the apps above use (imported from here):

- a turn's actions, as a person makes them: `turn_roll`, `turn_toggle_hold`, `turn_choose_box`,
  `turn_confirm` (`actions`);
- a game as a whole: `game_create`, `game_create_solo`, `game_create_vs_computer`, `game_hurry`,
  `game_set_hints`, `game_resign`, `guest_games_claim`; a person's play settings, `play_settings_set`
  (`games`);
- the clock's work, due whether or not a browser is open: `game_settle`, `games_settle_overdue`
  (`clock`; its loop is `sweeper`).

Inside, each module imports only those below it: `kernel` (lock a game, count a change, start a turn)
< `finish` < `moves` < `clock` < `actions`, `games`; `rooms` (games against friends), `local` (on one
device), `lobby` and `selectors` (reads) build on them. What follows from play (pushes, ratings,
analysis, puzzles) hears of it through `dicegame.events`.
"""

from dicegame.play.actions import (
    ZeroNeedsConfirmation,
    turn_choose_box,
    turn_confirm,
    turn_roll,
    turn_toggle_hold,
)
from dicegame.play.clock import game_settle, games_settle_overdue, turn_auto_commit_remaining
from dicegame.play.games import (
    MAX_COMPUTER_OPPONENTS,
    game_create,
    game_create_solo,
    game_create_vs_computer,
    game_hurry,
    game_resign,
    game_set_hints,
    guest_games_claim,
    play_settings_set,
)

__all__ = [
    "MAX_COMPUTER_OPPONENTS",
    "ZeroNeedsConfirmation",
    "game_create",
    "game_create_solo",
    "game_create_vs_computer",
    "game_hurry",
    "game_resign",
    "game_set_hints",
    "game_settle",
    "games_settle_overdue",
    "guest_games_claim",
    "play_settings_set",
    "turn_auto_commit_remaining",
    "turn_choose_box",
    "turn_confirm",
    "turn_roll",
    "turn_toggle_hold",
]
