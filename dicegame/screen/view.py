"""What the game screen shows one viewer (a seat's player, or a spectator): built from the shared
`BoardState` (dicegame.screen.state) plus what belongs to that viewer (whether they may act, their
hints) and the labels in the active language. A change is worked out once and rendered once per kind of
viewer (`view_key`), however many screens show it. Reads nothing from the database except the turn in
play when it is not given (and the turn log when asked for)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from dicegame.actors import Actor
from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.play.selectors import game_turn_log
from dicegame.rules.scoring import (
    JOKER_LOWER_BOXES,
    PENTA_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Box,
    Scoresheet,
)
from dicegame.rules.turn import MAX_ROLLS
from dicegame.screen import markup, moments
from dicegame.screen.hints import Hints, game_hints
from dicegame.screen.state import BoardState, board_state
from dicegame.screen.win_hints import WinHint, hint_position, win_hint

LAST_UPPER = Box.SIXES


@dataclass(frozen=True)
class Die:
    index: int  # 1-5
    value: int | None
    held: bool
    label: str  # "Die 2: 5", in the viewer's language
    pips_html: SafeString
    rolled: bool = False  # rolled by the last roll (not held from the one before): it tumbles


@dataclass(frozen=True)
class SeatSheet:
    player: Player
    sheet: Scoresheet
    is_current: bool
    is_mine: bool

    @property
    def upper_to_go(self) -> int:
        return max(0, UPPER_BONUS_THRESHOLD - self.sheet.upper_total)


@dataclass(frozen=True)
class Question:
    """A zero the page asks to confirm, at the box tapped: only in the answer to that tap (views)."""

    box: str  # the box's name
    text: str
    url: str
    turn: int
    roll: int
    csrf: str


@dataclass(frozen=True)
class Board:
    """The game screen for one viewer (a seat's player, or a spectator when `my_seat` is None)."""

    game: Game
    turn: Turn | None
    dice: list[Die]
    seats: list[SeatSheet]
    # What the sheet's rows are drawn from (markup.rows_html), only when the sheet is drawn (a hold's
    # answer and push redraw the dice and the status alone): (the BoardState, the viewer's seat: None
    # for a spectator, the seat it plays for in a local game).
    sheet_of: tuple = field(repr=False, compare=False)
    my_turn: bool
    rolls_used: int
    rolls_left: int
    can_roll: bool
    can_hold: bool
    can_confirm: bool
    chosen_label: str
    must_sacrifice: bool
    countdown: float | None
    bot_playing: bool = False
    next_step_ms: int | None = None
    can_hint: bool = False
    hints_on: bool = False
    hints: Hints | None = None
    win_hint: WinHint | None = None  # "best to win", in a casual game against opponents
    my_seat: Player | None = None
    deadline_ms: int | None = None
    game_url: str = ""
    turns: list[Turn] = field(default_factory=list)
    # What to celebrate (dicegame.screen.moments) and, for a Penta the forced joker places, why some
    # boxes close.
    moments: list = field(default_factory=list)
    joker_note: str = ""
    # A local game (pass and play) at the start of a person's turn: whom to hand the device to.
    pass_to: str = ""
    # The last box this change wrote for its player ("Written for you: 4 in Twos"), and a question the
    # answer to a tap asks at its box.
    written_note: str = ""
    question: Question | None = None
    # The viewer's language, the one active when the board was made: every region and row of it is
    # written in this one (asked once, not by each part).
    language: str = ""

    @property
    def spectator(self) -> bool:
        return self.my_seat is None

    @property
    def upper_bonus(self) -> int:
        return UPPER_BONUS

    @property
    def upper_threshold(self) -> int:
        return UPPER_BONUS_THRESHOLD

    @property
    def countdown_ms(self) -> int | None:
        return None if self.countdown is None else int(self.countdown * 1000)

    @property
    def countdown_seconds(self) -> int | None:
        return None if self.countdown is None else int(-(-self.countdown // 1))

    # The hot regions' repeated parts, as strings (dicegame.screen.markup).

    @property
    def dice_html(self) -> SafeString:
        return markup.dice_html(self)

    @property
    def upper_rows_html(self) -> SafeString:
        return markup.rows_html(self, upper=True)

    @property
    def lower_rows_html(self) -> SafeString:
        return markup.rows_html(self, upper=False)

    @property
    def seat_heads_html(self) -> SafeString:
        """The sheet's column heads: each seat's name, presence (games against friends) and stand-in."""
        return markup.seat_heads_html(self)

    @property
    def lower_seat_heads_html(self) -> SafeString:
        """The same heads over the sheet's lower section."""
        return markup.seat_heads_html(self, lower=True)

    @property
    def upper_total_cells(self) -> SafeString:
        return markup.upper_total_cells(self)

    @property
    def upper_bonus_cells(self) -> SafeString:
        return markup.upper_bonus_cells(self)

    @property
    def penta_bonus_cells(self) -> SafeString:
        return markup.penta_bonus_cells(self)

    @property
    def total_cells(self) -> SafeString:
        return markup.total_cells(self)


def viewer_seat(state: BoardState, actor: Actor) -> Player | None:
    return next((p for p in state.players if actor.owns(p)), None)


def local_screen_seat(state: BoardState, seat: Player | None) -> Player | None:
    """A local game's one screen plays every person's seat: it sees the board as the current person
    (or, while a computer plays, as the seat it holds). Any other game: the seat itself."""
    if seat is None or state.game.kind != Game.Kind.LOCAL:
        return seat
    if state.game.is_finished:
        return None  # the result is everyone's: no "you", no "your place"
    current = state.current
    return current if current is not None and not current.is_bot else seat


def _pass_to(state: BoardState, seat: Player | None) -> str:
    """The name to hand the device to: a local game of two or more people, at the start of a person's
    turn (no roll yet) but the game's first. The first roll is the tap that takes the device, so this
    needs no state."""
    if state.game.kind != Game.Kind.LOCAL or seat is None or state.current is None:
        return ""
    if state.current.is_bot or state.rolls_used or sum(not p.is_bot for p in state.players) < 2:
        return ""
    if state.turn is not None and state.turn.number == 1:
        return ""  # the very first turn: the device is in the first person's hands already
    return state.current.name


def view_key(state: BoardState, seat: Player | None) -> tuple:
    """Viewers with equal keys see the same HTML (in one language): everything `board_for` takes
    from the viewer is in here."""
    seat = local_screen_seat(state, seat)
    if seat is None:
        return ("spectator",)
    acting = state.current is not None and state.current.id == seat.id
    return (
        "seat",
        acting,
        seat.stand_in,
        seat.hints and state.game.kind != Game.Kind.FRIENDS,
        seat.left_at is not None,
        # The seat that just left reads its leaving in its own words (screen.moments), and so does the
        # seat a box was written for.
        state.game.left_seat is not None and state.game.left_seat.id == seat.id,
        moments.written_for_seat(state, seat),
        # The seat that wrote a box hears "You wrote …" (dicegame.screen.announce), the others its name.
        any(t.player_id == seat.pk for t, _reached in state.written),
    )


def board_for(state: BoardState, seat: Player | None) -> Board:
    """The board as `seat`'s player sees it (None: a spectator), labelled in the active language."""
    seat = local_screen_seat(state, seat)
    game, turn, current = state.game, state.turn, state.current
    my_turn = seat is not None and current is not None and seat.id == current.id
    dice_values, held = state.dice_values, state.held
    language = get_language() or ""
    labels = markup.box_labels(language)
    chosen = turn.chosen_box if turn else ""
    seats = [
        SeatSheet(
            player=p,
            sheet=state.sheets[p.id],
            is_current=current is not None and p.id == current.id,
            is_mine=seat is not None and p.id == seat.id,
        )
        for p in state.players
    ]
    rolls_used = state.rolls_used
    can_hint = seat is not None and game.kind != Game.Kind.FRIENDS and not game.is_finished
    hints_on = can_hint and seat.hints
    hints = None
    found_win_hint = None
    if hints_on:
        hints = game_hints(
            sheet=state.sheets[seat.id],
            dice_values=dice_values if my_turn else None,
            rolls_used=rolls_used if my_turn else 0,
            held=held,
        )
        if my_turn:
            found_win_hint = win_hint(hint_position(game, state.players, turn))
    values = dice_values or (None,) * 5
    rolled = (False,) * 5
    if dice_values and turn.rolls:
        rolled = tuple(not h for h in turn.rolls[-1]["held"])
    return Board(
        game=game,
        turn=turn,
        dice=[
            Die(
                index=i + 1,
                value=value,
                held=held[i],
                label=markup.die_label(language, i + 1, value),
                pips_html=markup.pips_html(value),
                rolled=rolled[i],
            )
            for i, value in enumerate(values)
        ],
        seats=seats,
        sheet_of=(state, seat),
        my_turn=my_turn,
        rolls_used=rolls_used,
        rolls_left=MAX_ROLLS - rolls_used,
        can_roll=my_turn and rolls_used < MAX_ROLLS and not (dice_values and all(held)),
        can_hold=my_turn and dice_values is not None and rolls_used < MAX_ROLLS,
        can_confirm=my_turn and bool(chosen),
        chosen_label=labels[Box[chosen]] if chosen else "",
        # The current seat's options are the state's: no legal box scores (Scoresheet.must_sacrifice).
        must_sacrifice=bool(my_turn and dice_values and state.options and not any(state.options.values())),
        countdown=state.countdown,
        bot_playing=state.bot_playing,
        next_step_ms=state.next_step_ms,
        can_hint=can_hint,
        hints_on=hints_on,
        hints=hints,
        win_hint=found_win_hint,
        my_seat=seat,
        deadline_ms=state.deadline_ms,
        game_url=state.game_url,
        moments=moments.board_moments(state, seat),
        joker_note=joker_note(state.sheets[current.id], dice_values) if current and dice_values else "",
        pass_to=_pass_to(state, seat),
        written_note=moments.written_note(state, seat),
        language=language,
    )


def game_board(
    *, game: Game, actor: Actor, with_log: bool = False, players: list | None = None, turn: Turn | None = None
) -> Board:
    """Everything the game screen shows, for this actor, from the game's current rows (or from the rows
    an action has just written and committed: its seats and the turn in play)."""
    state = board_state(game=game, players=players, turn=turn)
    board = board_for(state, viewer_seat(state, actor))
    if with_log:
        board.turns.extend(game_turn_log(game=game))
    return board


def joker_note(sheet: Scoresheet, dice_values: tuple[int, ...]) -> str:
    """Why the forced joker closes boxes for this Penta, in one sentence ("" when it does not apply)."""
    if not sheet.is_joker(dice_values):
        return ""
    face = dice_values[0]
    own = Box.upper(face)
    values = {"box": box_label(own), "bonus": PENTA_BONUS}
    if own not in sheet.boxes:
        return (
            _(
                "Joker: with 50 in the Penta box, this Penta must go in its own box, %(box)s, while that "
                "box is open (and earns the %(bonus)s Penta bonus)."
            )
            % values
        )
    if any(b in sheet.open_boxes for b in JOKER_LOWER_BOXES):
        return (
            _(
                "Joker: the %(box)s box is full, so any open lower box scores as if the dice fit it (Full "
                "house 25, straights 30 and 40, the others the dice's sum); the upper boxes are closed. The "
                "%(bonus)s Penta bonus counts wherever it goes."
            )
            % values
        )
    return (
        _(
            "Joker: the %(box)s box and every lower box are full, so this Penta goes in an open upper box "
            "for 0 (the %(bonus)s Penta bonus still counts)."
        )
        % values
    )
