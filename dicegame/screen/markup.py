"""The repeated parts of the game screen's hot regions (five dice, thirteen rows, the sheet's heads and
totals), written here as strings, not by template loops: the `dice-tray` and `scoresheet` partials of
dicegame/game.html print them, so pages, htmx answers and socket pushes still share one markup, at a
tenth of a template's cost. Each function takes a `Board` (dicegame.screen.view) or its parts."""

from __future__ import annotations

from functools import cache, lru_cache
from html import escape as _html_escape
from typing import NamedTuple

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from dicegame.labels import box_label
from dicegame.models import Game
from dicegame.rules.scoring import UPPER_BONUS_THRESHOLD, Box


def escape(text) -> str:
    """Django's `escape` (the same five characters), without its wrappers for lazy text and safe
    strings: the strings made here are put straight into markup, some forty times a board."""
    return _html_escape(str(text))


class Cell(NamedTuple):
    # A tuple, so the template unpacks it in its loop instead of looking up attributes per cell.
    filled: int | None  # points written, if filled
    option: int | None  # points the current dice would write here, if legal (current seat only)
    written_for: bool = False  # written by the change shown, for its player (auto-commit, stand-in)


def cells_html(cells: tuple[Cell, ...]) -> SafeString:
    """One row's cells, a seat each: its points, what the current dice would score there, or nothing.

    Made here rather than by a template loop: the cells are the same for every viewer, so they are
    made once per change, and they are the bulk of the sheet (a template loop costs ~1 ms a sheet)."""
    parts = []
    for filled, option, written_for in cells:
        if written_for:
            points = int(filled)
            parts.append(
                f'<td class="filled written-for" data-score="{points}" data-written-for>{points}</td>'
            )
        elif filled is not None:
            parts.append(f'<td class="filled" data-score="{int(filled)}">{int(filled)}</td>')
        elif option is not None:
            parts.append(f'<td class="option"><span class="option-points">{int(option)}</span></td>')
        else:
            parts.append("<td></td>")
    return SafeString("".join(parts))


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
def pips_html(value: int | None) -> SafeString:
    # Nine spans per die and five dice per board: made once per face, not by a template loop per push.
    return SafeString(
        "".join('<span class="pip on"></span>' if on else '<span class="pip"></span>' for on in pips(value))
    )


@cache
def die_label(language: str, index: int, value: int | None) -> str:
    if value:
        return _("Die %(n)s: %(v)s") % {"n": index, "v": value}
    return _("Die %(n)s: no value yet") % {"n": index}


@cache
def box_labels(language: str) -> dict[Box, str]:
    return {b: escape(box_label(b)) for b in Box}


def short_labels() -> dict[Box, str]:
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
def box_label_html(language: str) -> dict[Box, str]:
    """A box's name for the sheet: the full name, and a short one a narrow sheet shows instead (CSS picks).
    The full name stays the accessible name: a narrow sheet hides it visually, not from screen readers."""
    short = short_labels()
    return {
        b: f'<span class="box-full">{escape(box_label(b))}</span>'
        f'<span class="box-short" aria-hidden="true">{escape(short[b])}</span>'
        for b in Box
    }


@cache
def _held_html(language: str) -> str:
    return escape(_("held"))


@lru_cache(maxsize=4096)
def _attr(text: str) -> str:
    """An attribute value made of cached labels (a die's, a box's name), escaped once per label (there
    are a few hundred per language)."""
    return escape(text)


def dice_html(board) -> SafeString:
    held_text = _held_html(board.language)
    # The name of a held die says so too: its visible "held" must be part of its name (WCAG 2.5.3).
    held_label = f", {held_text}"
    url = board.game_url
    disabled = "" if board.can_hold else " disabled"
    # The dice just rolled tumble (CSS). The class names the roll, so it changes with every roll even
    # when a live update morphs the die in place instead of replacing it.
    rolled = f" roll-{board.rolls_used}"
    # The dice the hint says to keep are marked (hint_words.keep_positions).
    keep = board.hints.keep_flags if board.hints and board.hints.keep_flags else (False,) * 5
    parts = []
    for die in board.dice:
        n = die.index
        # After the last roll no die is held any more: nothing is left to roll.
        held = die.held and board.rolls_left > 0
        parts.append(
            f'<button type="submit" form="game-form" class="die{" held" if held else ""}'
            f"{' hint-keep' if keep[n - 1] else ''}"
            f'{"" if die.value else " blank"}{rolled if die.rolled else ""}" data-die="{n}" '
            f'data-value="{die.value or ""}" '
            f'data-action="die-{n}" aria-pressed="{"true" if held else "false"}" '
            f'aria-label="{_attr(die.label)}{held_label if held else ""}" '
            f'formaction="{url}hold/{n}/" hx-post="{url}hold/{n}/"'
            f'{disabled}><span class="face face-{die.value or 0}" aria-hidden="true">'
            f"{die.pips_html}</span>"
            f'<span class="held-label" aria-hidden="true">{held_text if held else ""}</span></button>'
        )
    return SafeString("\n".join(parts))


@cache
def box_name(language: str, box: Box, option: int | None, mine: int | None, short: bool = False) -> str:
    """A box button's accessible name: the box and its points for the viewer ("Ones, 3 points" on their
    turn, "Ones, written 3" once written), so a screen reader hears what the sheet shows. A sheet that a
    phone shows with short names (`short`: three or four seats) has the short one in it too ("Ones (1s),
    3 points"): a name holds the label one sees (WCAG 2.5.3), which a voice can then say."""
    label = box_label(box)
    abbreviation = short_labels()[box]
    if short and abbreviation != label:
        label = f"{label} ({abbreviation})"
    if mine is not None:
        return _("%(box)s, written %(points)s") % {"box": label, "points": mine}
    if option is not None:
        text = ngettext("%(box)s, %(points)s point", "%(box)s, %(points)s points", option)
        return text % {"box": label, "points": option}
    return label


_UPPER_ROWS = tuple((b, b.name) for b in Box if b.is_upper)
_LOWER_ROWS = tuple((b, b.name) for b in Box if not b.is_upper)
# Each box's key (static/js/penta.js), a letter in the sheet's order: a Ones ... m Penta.
BOX_KEYS = {b: chr(ord("a") + b.value) for b in Box}


def box_keys() -> list[tuple[str, str]]:
    """The boxes' keys with their names in the active language, for the key help."""
    return [(BOX_KEYS[b], box_label(b)) for b in Box]


def rows_html(board, upper: bool) -> SafeString:
    """One section of the sheet as the board's viewer sees it: each box's button (choosable on their
    turn, named with what it would score or what they wrote there) and every seat's cells (the same for
    every viewer: made once per change, BoardState.cells_html)."""
    state, seat = board.sheet_of
    url = board.game_url
    language = board.language
    labels = box_label_html(language)
    question = board.question
    my_turn = board.my_turn
    options = state.options
    cells_html = state.cells_html
    chosen = board.turn.chosen_box if board.turn else ""
    # A box that would score 0 while another scores asks first (play.actions).
    some_box_scores = my_turn and any(options.values())
    mine = state.sheets[seat.pk].boxes if seat is not None else {}
    short = len(board.seats) > 2
    parts = []
    for box, name in _UPPER_ROWS if upper else _LOWER_ROWS:
        option = options.get(box) if my_turn else None
        is_chosen = chosen == name
        parts.append(
            f'<tr class="box-row{" chosen" if is_chosen else ""}"><th scope="row">'
            f'<button type="submit" form="game-form" class="box-button" data-box="{name}" '
            f'data-action="box-{name}" aria-keyshortcuts="{BOX_KEYS[box]}" '
            f'aria-pressed="{"true" if is_chosen else "false"}" '
            f'aria-label="{_attr(box_name(language, box, option, mine.get(box), short))}" '
            f'formaction="{url}choose/{name}/" hx-post="{url}choose/{name}/"'
            f"{' data-asks-zero' if some_box_scores and option == 0 else ''}"
            f"{'' if option is not None else ' disabled'}>{labels[box]}</button></th>"
            f"{cells_html[box]}</tr>"
        )
        if question is not None and question.box == name:
            parts.append(question_html(board, question))
    return SafeString("\n".join(parts))


def question_html(board, q) -> str:
    """The zero's question as a row under the box tapped: Yes writes the 0 at once, No redraws the board
    without it (a link back to the page without JavaScript). Only in the answer to the tap, never in a
    push."""
    url = escape(q.url)
    yes = escape(_("Yes, write 0 in %(box)s") % {"box": box_label(q.box)})
    no = escape(_("No"))
    url_back = escape(board.game_url)
    return (
        f'<tr class="zero-question" data-zero-question="{q.box}"><td colspan="{1 + len(board.seats)}">'
        f'<form method="post" action="{url}" data-confirm-zero>'
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(q.csrf)}">'
        f'<input type="hidden" name="turn" value="{int(q.turn)}">'
        f'<input type="hidden" name="roll" value="{int(q.roll)}">'
        '<input type="hidden" name="confirm_zero" value="1"><input type="hidden" name="write" value="1">'
        f'<p id="zero-question" role="alert">{escape(q.text)}</p>'
        # htmx on the button, as on every control of the board: a tap made while another request is
        # on its way is replayed on it (penta.js).
        f'<button type="submit" class="primary" hx-post="{url}" data-action="zero-yes" '
        f'aria-describedby="zero-question">{yes}</button> '
        f'<a class="button-link" href="{url_back}" hx-get="{url_back}" data-action="zero-no" '
        f"""hx-headers='{{"X-Penta-Resync": "1"}}'>{no}</a>"""
        "</form></td></tr>"
    )


@cache
def _seat_marks(language: str) -> tuple[str, str, str]:
    return escape(_("online")), escape(_("offline")), escape(_("computer keeps the seat"))


def seat_heads_html(board, lower: bool = False) -> SafeString:
    """The sheet's column heads: each seat's name, presence (games against friends) and stand-in. The
    lower section's table repeats them (`lower`) with its own marks, so each seat has one head of record
    (`data-seat-name`, `.current`)."""
    friends = board.game.kind == Game.Kind.FRIENDS
    online, offline, kept = _seat_marks(board.language)
    mark, now = ("data-seat-col", "now") if lower else ("data-seat-name", "current")
    parts = []
    for seat in board.seats:
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
        name = escape(player.display_name)
        parts.append(
            f'<th scope="col" class="seat-{player.seat}{" " + now if seat.is_current else ""}'
            f'{" mine" if seat.is_mine else ""}" {mark}="{player.seat}" title="{name}">'
            f'<span class="seat-full">{name}{"" if lower else presence + badge}</span>'
            f'<span class="seat-short" aria-hidden="true">{escape(short_seat_name(player))}</span></th>'
        )
    return SafeString("".join(parts))


def short_seat_name(player) -> str:
    """A seat's name in a column too narrow for it (a phone's sheet of several seats): a computer's
    number, a person's first letters. The full name stays the head's text for screen readers."""
    if player.is_bot:
        return pgettext("seat, short", "C%(n)s") % {"n": player.seat}
    return player.display_name[:3]


def upper_total_cells(board) -> SafeString:
    threshold = UPPER_BONUS_THRESHOLD
    return SafeString(
        "".join(
            f'<td data-upper-total="{s.sheet.upper_total}">{s.sheet.upper_total} '
            f'<span class="of">/ {threshold}</span></td>'
            for s in board.seats
        )
    )


def upper_bonus_cells(board) -> SafeString:
    """Each seat's upper bonus, or how many points it still needs ("26 to go"; a narrow sheet shows
    "−26"): while the bonus can still be reached. Once a seat's upper boxes are all written, or the game
    is over, the bonus is what it is (0 when missed)."""
    parts = []
    over = board.game.is_finished
    for seat in board.seats:
        bonus = seat.sheet.upper_bonus
        upper_done = all(b in seat.sheet.boxes for b in Box if b.is_upper)
        if bonus or over or upper_done:
            parts.append(f'<td data-upper-bonus="{bonus}">{bonus}</td>')
            continue
        to_go = seat.upper_to_go
        text = escape(_("%(n)s to go") % {"n": to_go})
        parts.append(f'<td data-upper-bonus="0" data-to-go="{to_go}"><span class="to-go">{text}</span></td>')
    return SafeString("".join(parts))


def penta_bonus_cells(board) -> SafeString:
    return SafeString(
        "".join(
            f'<td data-penta-bonus="{s.sheet.penta_bonus}">{s.sheet.penta_bonus}</td>' for s in board.seats
        )
    )


def total_cells(board) -> SafeString:
    return SafeString(
        "".join(
            f'<td data-total="{s.sheet.total}" data-seat="{s.player.seat}">{s.sheet.total}</td>'
            for s in board.seats
        )
    )
