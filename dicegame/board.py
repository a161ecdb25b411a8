"""What the game screen shows: built from rows already in memory, in two steps.

`board_state` holds what every viewer of a game at one version sees alike (the dice, every seat's
sheet, what each box would score, the timers); `board_for` adds what belongs to one viewer (whether
they may act, their hints) and the labels in the active language. A change is thus worked out once
and rendered once per kind of viewer (`view_key`), however many screens show it. Reads nothing from
the database except the turn in play when it is not given (and the turn log when asked for)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from dicegame import hint_words, moments
from dicegame.actors import Actor
from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import (
    JOKER_LOWER_BOXES,
    PENTA_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Box,
    Scoresheet,
)
from dicegame.rules.turn import MAX_ROLLS
from dicegame.services import turn_auto_commit_remaining
from dicegame.strategy import Strategy

# The regions of the game screen (partials of dicegame/game.html, named after their DOM ids) a small
# change can alter; any other change redraws them all.
CHANGE_REGIONS = {
    "holds": frozenset({"turn-status", "dice-tray"}),
    "choice": frozenset({"turn-status", "scoresheet"}),
    # A screen opened or closed: the presence marks, and a grace period that may start or end.
    "presence": frozenset({"turn-status", "scoresheet"}),
}
LAST_UPPER = Box.SIXES


@dataclass(frozen=True)
class Die:
    index: int  # 1-5
    value: int | None
    held: bool
    label: str  # "Die 2: 5", in the viewer's language
    pips_html: SafeString
    rolled: bool = False  # rolled by the last roll (not held from the one before): it tumbles


class Cell(NamedTuple):
    # A tuple, so the template unpacks it in its loop instead of looking up attributes per cell.
    filled: int | None  # points written, if filled
    option: int | None  # points the current dice would write here, if legal (current seat only)


def cells_html(cells: tuple[Cell, ...]) -> SafeString:
    """One row's cells, a seat each: its points, what the current dice would score there, or nothing.

    Made here rather than by a template loop: the cells are the same for every viewer, so they are
    made once per change, and they are the bulk of the sheet (a template loop costs ~1 ms a sheet)."""
    parts = []
    for filled, option in cells:
        if filled is not None:
            parts.append(f'<td class="filled" data-score="{int(filled)}">{int(filled)}</td>')
        elif option is not None:
            parts.append(f'<td class="option"><span class="option-points">{int(option)}</span></td>')
        else:
            parts.append("<td></td>")
    return mark_safe("".join(parts))


@dataclass(frozen=True)
class SheetRow:
    """One box across every seat; the button and its state belong to the viewer."""

    box: Box
    label: str
    cells: tuple[Cell, ...]
    cells_html: SafeString
    selectable: bool  # the viewer may choose this box for the current dice
    chosen: bool
    # Choosing it writes 0 while another open box scores: the server asks to confirm (services._check_zero).
    asks_zero: bool = False

    @property
    def name(self) -> str:
        return self.box.name

    @property
    def is_upper(self) -> bool:
        return self.box.is_upper

    @property
    def last_upper(self) -> bool:
        return self.box is LAST_UPPER


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
    # The best move in plain words (dicegame.hint_words), and the dice of the tray it keeps.
    sentence: str = ""
    keep_flags: tuple[bool, ...] = ()


def _keep_label(keep: tuple[int, ...]) -> str:
    if not keep:
        return _("Reroll all five")
    if len(keep) == 5:
        return _("Hold all five: write now")
    return _("Hold %(dice)s") % {"dice": " ".join(str(v) for v in keep)}


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
        keeps=[HintLine(_keep_label(c.keep), c.expected_total, best - c.expected_total) for c in keeps[:6]],
        boxes=[
            HintLine(f"{box_label(c.box)} ({c.points})", c.expected_total, best - c.expected_total)
            for c in boxes
        ],
    )


_PIPS = {
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
}


def pips(value: int | None) -> tuple[bool, ...]:
    """The 3x3 grid of pips of a face, row by row."""
    on = _PIPS.get(value or 0, ())
    return tuple(i in on for i in range(9))


@cache
def _pips_html(value: int | None) -> SafeString:
    # Nine spans per die and five dice per board: made once per face, not by a template loop per push.
    return mark_safe(
        "".join('<span class="pip on"></span>' if on else '<span class="pip"></span>' for on in pips(value))
    )


@cache
def _die_label(language: str, index: int, value: int | None) -> str:
    if value:
        return _("Die %(n)s: %(v)s") % {"n": index, "v": value}
    return _("Die %(n)s: no value yet") % {"n": index}


@cache
def _box_labels(language: str) -> dict[Box, str]:
    return {b: escape(box_label(b)) for b in Box}


def _short_labels() -> dict[Box, str]:
    return {
        Box.ONES: pgettext("box, short", "1s"),
        Box.TWOS: pgettext("box, short", "2s"),
        Box.THREES: pgettext("box, short", "3s"),
        Box.FOURS: pgettext("box, short", "4s"),
        Box.FIVES: pgettext("box, short", "5s"),
        Box.SIXES: pgettext("box, short", "6s"),
        Box.THREE_OF_A_KIND: pgettext("box, short", "3K"),
        Box.FOUR_OF_A_KIND: pgettext("box, short", "4K"),
        Box.FULL_HOUSE: pgettext("box, short", "FH"),
        Box.SMALL_STRAIGHT: pgettext("box, short", "SS"),
        Box.LARGE_STRAIGHT: pgettext("box, short", "LS"),
        Box.CHANCE: pgettext("box, short", "Ch"),
        Box.PENTA: pgettext("box, short", "Penta"),
    }


@cache
def _box_label_html(language: str) -> dict[Box, str]:
    """A box's name for the sheet: the full name, and a short one a narrow sheet shows instead (CSS picks).
    The full name stays the accessible name: a narrow sheet hides it visually, not from screen readers."""
    short = _short_labels()
    return {
        b: f'<span class="box-full">{escape(box_label(b))}</span>'
        f'<span class="box-short" aria-hidden="true">{escape(short[b])}</span>'
        for b in Box
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
    cells: dict[Box, tuple[Cell, ...]]
    cells_html: dict[Box, SafeString]
    countdown: float | None
    next_step_ms: int | None
    deadline_ms: int | None
    game_url: str
    # The turns this change wrote, with whether each reached the upper bonus (services._write): the
    # moments a board built for the change celebrates (dicegame.moments). Empty for a page load.
    written: tuple = ()

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
    current = next((p for p in players if turn and p.pk == turn.player_id), None)
    dice_values = tuple(turn.dice) if turn and turn.dice else None
    held = tuple(bool(h) for h in turn.held) if turn and turn.dice else (False,) * 5
    sheets = {p.pk: p.sheet for p in players}
    current_pk = current.pk if current is not None else None
    options = sheets[current_pk].options(dice_values) if current and dice_values else {}
    filled = [(p.pk == current_pk, sheets[p.pk].boxes) for p in players]
    cells = {
        b: tuple(Cell(boxes.get(b), options.get(b) if is_current else None) for is_current, boxes in filled)
        for b in Box
    }
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
        cells=cells,
        cells_html={b: cells_html(row) for b, row in cells.items()},
        countdown=turn_auto_commit_remaining(turn) if turn and not turn.chosen_box else None,
        next_step_ms=_ms_until(turn.next_step_at) if bot_playing and turn.next_step_at else None,
        deadline_ms=_ms_until(turn.deadline_at) if turn and turn.deadline_at and not bot_playing else None,
        game_url=reverse("dicegame:game", args=[game.pk]),
        written=tuple(getattr(game, "_written", ())),
    )


def _ms_until(moment) -> int:
    return max(0, int((moment - timezone.now()).total_seconds() * 1000))


@dataclass(frozen=True)
class Board:
    """The game screen for one viewer (a seat's player, or a spectator when `my_seat` is None)."""

    game: Game
    turn: Turn | None
    dice: list[Die]
    seats: list[SeatSheet]
    rows: list[SheetRow]
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
    my_seat: Player | None = None
    deadline_ms: int | None = None
    game_url: str = ""
    turns: list[Turn] = field(default_factory=list)
    # What to celebrate (dicegame.moments) and, for a Penta the forced joker places, why some boxes close.
    moments: list = field(default_factory=list)
    joker_note: str = ""
    # A local game (pass and play) at the start of a person's turn: whom to hand the device to.
    pass_to: str = ""

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

    # The repeated parts of the hot regions (five dice, thirteen rows) are written here as strings, not
    # by template loops: the `dice-tray` and `scoresheet` partials of dicegame/game.html print them, so
    # pages, htmx answers and socket pushes still share one markup, at a tenth of a template's cost.

    @property
    def dice_html(self) -> SafeString:
        held_text = escape(_("held"))
        # The name of a held die says so too: its visible "held" must be part of its name (WCAG 2.5.3).
        held_label = f", {held_text}"
        url = self.game_url
        disabled = "" if self.can_hold else " disabled"
        # The dice just rolled tumble (CSS). The class names the roll, so it changes with every roll even
        # when a live update morphs the die in place instead of replacing it.
        rolled = f" roll-{self.rolls_used}"
        # The dice the hint says to keep are marked (hint_words.keep_positions).
        keep = self.hints.keep_flags if self.hints and self.hints.keep_flags else (False,) * 5
        parts = []
        for die in self.dice:
            n = die.index
            parts.append(
                f'<button type="submit" form="game-form" class="die{" held" if die.held else ""}'
                f"{' hint-keep' if keep[n - 1] else ''}"
                f'{"" if die.value else " blank"}{rolled if die.rolled else ""}" data-die="{n}" '
                f'data-value="{die.value or ""}" '
                f'data-action="die-{n}" aria-pressed="{"true" if die.held else "false"}" '
                f'aria-label="{escape(die.label)}{held_label if die.held else ""}" '
                f'formaction="{url}hold/{n}/" hx-post="{url}hold/{n}/"'
                f'{disabled}><span class="face face-{die.value or 0}" aria-hidden="true">'
                f"{die.pips_html}</span>"
                f'<span class="held-label" aria-hidden="true">{held_text if die.held else ""}</span></button>'
            )
        return mark_safe("\n".join(parts))

    def _rows_html(self, upper: bool) -> SafeString:
        url = self.game_url
        parts = []
        labels = _box_label_html(get_language() or "")
        for row in self.rows:
            if row.is_upper != upper:
                continue
            name = row.box.name
            parts.append(
                f'<tr class="box-row{" chosen" if row.chosen else ""}"><th scope="row">'
                f'<button type="submit" form="game-form" class="box-button" data-box="{name}" '
                f'data-action="box-{name}" aria-pressed="{"true" if row.chosen else "false"}" '
                f'formaction="{url}choose/{name}/" hx-post="{url}choose/{name}/"'
                f"{' data-asks-zero' if row.asks_zero else ''}"
                f"{'' if row.selectable else ' disabled'}>{labels[row.box]}</button></th>"
                f"{row.cells_html}</tr>"
            )
        return mark_safe("\n".join(parts))

    @property
    def seat_heads_html(self) -> SafeString:
        """The sheet's column heads: each seat's name, presence (games against friends) and stand-in."""
        friends = self.game.kind == Game.Kind.FRIENDS
        online, offline, kept = (
            escape(_("online")),
            escape(_("offline")),
            escape(_("computer keeps the seat")),
        )
        parts = []
        for seat in self.seats:
            player = seat.player
            presence = ""
            if friends and not player.is_bot:
                presence = (
                    f' <span class="presence{" on" if player.connected else ""}">'
                    f"{online if player.connected else offline}</span>"
                )
            badge = f' <span class="badge" data-stand-in-seat>{kept}</span>' if player.stand_in else ""
            if player.left_at is not None:
                gone = _("left the game") if friends else _("resigned")
                badge = f' <span class="badge" data-left-seat>{escape(gone)}</span>'
            parts.append(
                f'<th scope="col" class="{"current" if seat.is_current else ""}" '
                f'data-seat-name="{player.seat}">{escape(player.display_name)}{presence}{badge}</th>'
            )
        return mark_safe("".join(parts))

    @property
    def upper_total_cells(self) -> SafeString:
        threshold = UPPER_BONUS_THRESHOLD
        return mark_safe(
            "".join(
                f'<td data-upper-total="{s.sheet.upper_total}">{s.sheet.upper_total} '
                f'<span class="of">/ {threshold}</span></td>'
                for s in self.seats
            )
        )

    @property
    def upper_bonus_cells(self) -> SafeString:
        parts = []
        for seat in self.seats:
            bonus = seat.sheet.upper_bonus
            shown = bonus or '<span class="to-go">{}</span>'.format(
                escape(_("%(n)s to go") % {"n": seat.upper_to_go})
            )
            parts.append(f'<td data-upper-bonus="{bonus}">{shown}</td>')
        return mark_safe("".join(parts))

    @property
    def penta_bonus_cells(self) -> SafeString:
        return mark_safe(
            "".join(
                f'<td data-penta-bonus="{s.sheet.penta_bonus}">{s.sheet.penta_bonus}</td>' for s in self.seats
            )
        )

    @property
    def total_cells(self) -> SafeString:
        return mark_safe(
            "".join(
                f'<td data-total="{s.sheet.total}" data-seat="{s.player.seat}">{s.sheet.total}</td>'
                for s in self.seats
            )
        )

    @property
    def upper_rows_html(self) -> SafeString:
        return self._rows_html(upper=True)

    @property
    def lower_rows_html(self) -> SafeString:
        return self._rows_html(upper=False)


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
    turn (no roll yet). The first roll is the tap that takes the device, so this needs no state."""
    if state.game.kind != Game.Kind.LOCAL or seat is None or state.current is None:
        return ""
    if state.current.is_bot or state.rolls_used or sum(not p.is_bot for p in state.players) < 2:
        return ""
    return state.current.name


def view_key(state: BoardState, seat: Player | None) -> tuple:
    """Viewers with equal keys see the same HTML (in one language): everything `board_for` takes
    from the viewer is in here."""
    seat = local_screen_seat(state, seat)
    if seat is None:
        return ("spectator",)
    acting = state.current is not None and state.current.pk == seat.pk
    return (
        "seat",
        acting,
        seat.stand_in,
        seat.hints and state.game.kind != Game.Kind.FRIENDS,
        seat.left_at is not None,
    )


def board_for(state: BoardState, seat: Player | None) -> Board:
    """The board as `seat`'s player sees it (None: a spectator), labelled in the active language."""
    seat = local_screen_seat(state, seat)
    game, turn, current = state.game, state.turn, state.current
    my_turn = seat is not None and current is not None and seat.pk == current.pk
    dice_values, held = state.dice_values, state.held
    language = get_language() or ""
    labels = _box_labels(language)
    chosen = turn.chosen_box if turn else ""
    some_box_scores = any(state.options.values())
    rows = [
        SheetRow(
            box=b,
            label=labels[b],
            cells=state.cells[b],
            cells_html=state.cells_html[b],
            selectable=my_turn and b in state.options,
            chosen=chosen == b.name,
            asks_zero=my_turn and some_box_scores and state.options.get(b) == 0,
        )
        for b in Box
    ]
    seats = [
        SeatSheet(
            player=p,
            sheet=state.sheets[p.pk],
            is_current=current is not None and p.pk == current.pk,
            is_mine=seat is not None and p.pk == seat.pk,
        )
        for p in state.players
    ]
    rolls_used = state.rolls_used
    can_hint = seat is not None and game.kind != Game.Kind.FRIENDS and not game.is_finished
    hints_on = can_hint and seat.hints
    hints = None
    if hints_on:
        hints = game_hints(
            sheet=state.sheets[seat.pk],
            dice_values=dice_values if my_turn else None,
            rolls_used=rolls_used if my_turn else 0,
            held=held,
        )
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
                label=_die_label(language, i + 1, value),
                pips_html=_pips_html(value),
                rolled=rolled[i],
            )
            for i, value in enumerate(values)
        ],
        seats=seats,
        rows=rows,
        my_turn=my_turn,
        rolls_used=rolls_used,
        rolls_left=MAX_ROLLS - rolls_used,
        can_roll=my_turn and rolls_used < MAX_ROLLS and not (dice_values and all(held)),
        can_hold=my_turn and dice_values is not None and rolls_used < MAX_ROLLS,
        can_confirm=my_turn and bool(chosen),
        chosen_label=labels[Box[chosen]] if chosen else "",
        must_sacrifice=bool(my_turn and dice_values and state.sheets[current.pk].must_sacrifice(dice_values)),
        countdown=state.countdown,
        bot_playing=state.bot_playing,
        next_step_ms=state.next_step_ms,
        can_hint=can_hint,
        hints_on=hints_on,
        hints=hints,
        my_seat=seat,
        deadline_ms=state.deadline_ms,
        game_url=state.game_url,
        moments=moments.board_moments(state),
        joker_note=joker_note(state.sheets[current.pk], dice_values) if current and dice_values else "",
        pass_to=_pass_to(state, seat),
    )


def game_board(
    *, game: Game, actor: Actor, with_log: bool = False, players: list | None = None, turn: Turn | None = None
) -> Board:
    """Everything the game screen shows, for this actor, from the game's current rows (or from the rows
    an action has just written and committed: its seats and the turn in play)."""
    state = board_state(game=game, players=players, turn=turn)
    board = board_for(state, viewer_seat(state, actor))
    if with_log:
        from dicegame.selectors import game_turn_log

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
