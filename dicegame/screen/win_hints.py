"""The hint "best to win", beside "best for your total", in a casual game against opponents.

Which positions get one (`hint_position`): the person to move, in a game against the computer or on
one device, not rated and not on shared dice, with hints on and dice showing. Its figures are worked
out off the request, once per position, in the winning chances' niced child (`winprob.hints`), and
kept in the shared cache under the position (`position_key`: the same in every game that reaches it);
this module only reads them, and words them in the viewer's language. While they are on their way the
hints say so, and the figures follow by push (or with the next page).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.cache import cache
from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS
from dicegame.screen import hint_words

VERSION = 1


@dataclass(frozen=True)
class HintPosition:
    seat: Player
    sheet: Scoresheet
    dice: tuple[int, ...]
    rolls_left: int
    opponents: tuple[Scoresheet, ...]

    @property
    def key(self) -> str:
        return position_key(self.sheet, self.dice, self.rolls_left, self.opponents)


def position_key(sheet: Scoresheet, dice, rolls_left: int, opponents) -> str:
    """The shared cache's key of a position's win hint (the same in every game that reaches it)."""
    others = sorted(repr(s.to_dict()) for s in opponents)
    text = repr((sheet.to_dict(), tuple(sorted(dice)), rolls_left, others))
    return f"winhint:v{VERSION}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def claim_key(key: str) -> str:
    """Held in the shared cache while a position's hint is queued or worked out."""
    return f"{key}:claim"


def hint_position(game: Game, players: list[Player], turn: Turn | None) -> HintPosition | None:
    """The position whose win hint the player to move may see, or None."""
    if not game.is_active or game.rated or game.on_shared_dice:
        return None
    if game.kind not in (Game.Kind.COMPUTER, Game.Kind.LOCAL):
        return None  # solo: nobody to beat; against people: no hints at all
    if turn is None or turn.completed_at is not None or not turn.dice:
        return None
    seat = next((p for p in players if p.pk == turn.player_id), None)
    if seat is None or seat.is_bot or seat.stand_in or not seat.hints:
        return None
    opponents = tuple(p.sheet for p in players if p.pk != seat.pk and p.left_at is None)
    if not opponents:
        return None
    return HintPosition(seat, seat.sheet, tuple(turn.dice), MAX_ROLLS - turn.rolls_used, opponents)


@dataclass(frozen=True)
class WinHint:
    """A position's hint: the move best to win and the move best for the total, each with its chance."""

    key: str
    figures: dict | None  # None: none yet
    pending: bool = False  # on its way (queued or being worked out)

    @property
    def same(self) -> bool:
        return self.figures["win"]["move"] == self.figures["total"]["move"]


def win_hint(position: HintPosition | None) -> WinHint | None:
    """The hint of a position: worked out, on its way (queued by a change), or not (yet): its region
    then waits, hidden, for a push of its figures. None: no position that has one."""
    if position is None:
        return None
    key = position.key
    figures = cache.get(key)
    if figures is not None:
        return WinHint(key, figures or None)  # {}: no figures for this position
    return WinHint(key, None, pending=cache.get(claim_key(key)) is not None)


def percent(chance: float) -> str:
    if 0 < chance < 0.005:
        return _("under 1%")
    if 0.995 < chance < 1:
        return _("over 99%")
    return f"{round(chance * 100)}%"


def move_words(move: dict) -> str:
    """A move as the hints word it: "Keep the two 4s", "Write 25 in Full house", "Keep all five: ..."."""
    if "keep" in move:
        return hint_words.keep_sentence(tuple(move["keep"]))
    return hint_words.box_sentence(Box[move["box"]], move["points"], stop_rolling=move.get("stop", False))


def region(hint: WinHint | None, *, oob: bool = False, poll: str = "") -> SafeString:
    """The hint's region, inside the hints. A push targets the position it was worked out for only: a
    position without figures yet keeps a hidden region marked with it, for the push to fill. While the
    figures are on their way, the page also asks `poll` for them now and then (they come by push, but
    an action's answer may redraw the hints after the push came): a read of the cache, which works
    nothing out."""
    if hint is None:
        return SafeString('<div id="win-hint" class="win-hint" hidden></div>')
    swap = f" hx-swap-oob=\"outerHTML:#win-hint[data-position='{hint.key}']\"" if oob else ""
    head = f'<div id="win-hint" class="win-hint" data-position="{hint.key}"{swap} aria-live="polite">'
    if hint.figures is None and not hint.pending:
        return SafeString(head.replace(">", " hidden>", 1) + "</div>")
    if hint.pending:
        if poll:
            head = head.replace(
                ">", f' hx-get="{escape(poll)}" hx-trigger="every 2s" hx-swap="outerHTML">', 1
            )
        pending = escape(_("Working out the chance to win…"))
        return SafeString(head + f'<p class="small" data-win-hint-pending>{pending}</p></div>')
    win, total = hint.figures["win"], hint.figures["total"]
    if hint.same:
        text = _("Best for your total is best to win too: %(chance)s to win.") % {
            "chance": percent(win["chance"])
        }
        return SafeString(head + f'<p class="hint-win" data-win-hint="same">{escape(text)}</p></div>')
    best = _("Best to win: %(move)s (%(chance)s to win).") % {
        "move": move_words(win["move"]),
        "chance": percent(win["chance"]),
    }
    other = _("Best for your total: %(move)s (%(chance)s to win).") % {
        "move": move_words(total["move"]),
        "chance": percent(total["chance"]),
    }
    return SafeString(
        head
        + f'<p class="hint-win" data-win-hint="differs" data-win-chance="{win["chance"]:.4f}">'
        + f"<strong>{escape(best)}</strong></p>"
        + f'<p class="small" data-total-hint data-total-chance="{total["chance"]:.4f}">'
        + f"{escape(other)}</p></div>"
    )
