"""The game at one version as every viewer sees it alike (`board_state`): the dice, every seat's sheet,
what each box would score, the timers, and which regions of the screen a change can alter. Built from
rows already in memory; it reads the turn in play only when it is not given."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.play.clock import turn_auto_commit_remaining
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.screen import markup
from dicegame.screen.markup import Cell

# The regions of the game screen (partials of dicegame/game.html, named after their DOM ids) a small
# change can alter; any other change redraws them all.
CHANGE_REGIONS = {
    events.HOLDS: frozenset({"turn-status", "dice-tray"}),
    events.CHOICE: frozenset({"turn-status", "scoresheet"}),
    # A screen opened or closed: the presence marks, and a grace period that may start or end.
    events.PRESENCE: frozenset({"turn-status", "scoresheet"}),
}


@dataclass(frozen=True)
class BoardState:
    """The game at one version as everybody sees it."""

    game: Game
    turn: Turn | None
    players: list[Player]
    current: Player | None
    dice_values: tuple[int, ...] | None
    held: tuple[bool, ...]
    sheets: dict[int, Scoresheet]
    options: dict[Box, int]
    countdown: float | None
    next_step_ms: int | None
    deadline_ms: int | None
    game_url: str
    # The turns this change wrote, with whether each reached the upper bonus (play.moves.write): the
    # moments a board built for the change celebrates (dicegame.screen.moments). Empty for a page load.
    written: tuple = ()

    # The sheet's cells are made when a screen's sheet is drawn, once per change for every viewer: a change
    # that redraws only the dice and the status (a hold) never needs them.
    @cached_property
    def cells(self) -> dict[Box, tuple[Cell, ...]]:
        current_pk = self.current.id if self.current is not None else None
        options = self.options
        # The boxes this change wrote for their players (the auto-commit, a turn timer's stand-in):
        # marked.
        marked = {(t.player_id, t.box) for t, _reached in self.written if t.auto_committed or t.stand_in}
        filled = [(p.id, p.id == current_pk, self.sheets[p.id].boxes) for p in self.players]
        return {
            b: tuple(
                Cell(
                    boxes.get(b),
                    options.get(b) if is_current else None,
                    bool(marked) and (pk, b.name) in marked,
                )
                for pk, is_current, boxes in filled
            )
            for b in Box
        }

    @cached_property
    def cells_html(self) -> dict[Box, SafeString]:
        return {b: markup.cells_html(row) for b, row in self.cells.items()}

    @property
    def rolls_used(self) -> int:
        return self.turn.rolls_used if self.turn else 0

    @property
    def bot_playing(self) -> bool:
        return bool(self.current and self.current.is_bot)


def board_state(*, game: Game, players: list[Player] | None = None, turn: Turn | None = None) -> BoardState:
    """The shared part of the board, from the game's rows (or those an action has just written)."""
    players = players if players is not None else list(game.players.all())
    if turn is None and not game.is_finished:
        turn = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()
    current = next((p for p in players if turn and p.id == turn.player_id), None)
    dice_values = tuple(turn.dice) if turn and turn.dice else None
    held = tuple(bool(h) for h in turn.held) if turn and turn.dice else (False,) * 5
    sheets = {p.id: p.sheet for p in players}
    current_pk = current.id if current is not None else None
    options = sheets[current_pk].options(dice_values) if current and dice_values else {}
    written = tuple(game.written)
    bot_playing = bool(current and current.is_bot)
    return BoardState(
        game=game,
        turn=turn,
        players=players,
        current=current,
        dice_values=dice_values,
        held=held,
        sheets=sheets,
        options=options,
        countdown=turn_auto_commit_remaining(turn) if turn and not turn.chosen_box else None,
        next_step_ms=_ms_until(turn.next_step_at) if bot_playing and turn.next_step_at else None,
        deadline_ms=_ms_until(turn.deadline_at) if turn and turn.deadline_at and not bot_playing else None,
        game_url=game_url(game.id),
        written=written,
    )


def game_url(game_id: int) -> str:
    """The game screen's address, the base of every control's (a reverse() per change cost as much as
    the dice tray's markup)."""
    return _game_url(get_script_prefix(), game_id)


@lru_cache(maxsize=4096)
def _game_url(prefix: str, game_id: int) -> str:
    return reverse("dicegame:game", args=[game_id])


def _ms_until(moment) -> int:
    return max(0, int((moment - timezone.now()).total_seconds() * 1000))
