"""What the game screen says aloud after a change (`#announce`, a polite live region of the turn status):
the dice just rolled, in the viewer's language ("3, 3, 5, 6, 6; 2 rolls left"), whose they are when they
are someone else's, the boxes the change wrote ("Femke wrote 25 in Full house"), and whose turn it is.

A screen reader hears a live region when its text changes: the region is morphed in place by every
answer and push, so each change that says something new is heard once, and a page's first load is not.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from dicegame.labels import box_label
from dicegame.models import Game
from dicegame.screen import moments


def announcement(board) -> str:
    """The sentence for the viewer of `board` (a dicegame.screen.view.Board), unescaped."""
    state, seat = board.sheet_of
    local = board.game.kind == Game.Kind.LOCAL
    parts = []
    for turn, _reached in state.written:
        if turn.auto_committed or turn.stand_in:
            parts.append(moments.written_for(state, turn, seat) + ".")
            continue
        values = {"points": turn.points, "box": box_label(turn.box)}
        if seat is not None and turn.player_id == seat.pk and not local:
            parts.append(_("You wrote %(points)s in %(box)s.") % values)
        else:
            values["name"] = turn.player.display_name
            parts.append(_("%(name)s wrote %(points)s in %(box)s.") % values)
    turn = board.turn
    if turn is None or board.game.is_finished:
        return " ".join(parts)
    name = turn.player.display_name
    dice = [d.value for d in board.dice if d.value]
    if len(dice) == 5:
        rolled = ", ".join(str(v) for v in dice)
        left = ngettext("%(rolls)s roll left", "%(rolls)s rolls left", board.rolls_left) % {
            "rolls": board.rolls_left
        }
        if board.my_turn and not local:
            text = _("%(dice)s; %(left)s") % {"dice": rolled, "left": left}
        else:
            text = _("%(name)s: %(dice)s; %(left)s") % {"name": name, "dice": rolled, "left": left}
        if board.my_turn and board.countdown is not None:
            text += ". " + _("Choose a box within %(s)s s.") % {"s": board.countdown_seconds}
        parts.append(text)
    elif board.my_turn and not local:
        parts.append(_("Your turn: round %(round)s of 13.") % {"round": turn.round})
    elif state.written:
        parts.append(_("%(name)s's turn.") % {"name": name})
    return " ".join(parts)
