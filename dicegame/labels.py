"""What the screens call the boxes, in the player's language (the rules core knows only Box members)."""

from django.utils.translation import gettext_lazy as _

from dicegame.rules.scoring import Box

BOX_LABELS = {
    Box.ONES: _("Ones"),
    Box.TWOS: _("Twos"),
    Box.THREES: _("Threes"),
    Box.FOURS: _("Fours"),
    Box.FIVES: _("Fives"),
    Box.SIXES: _("Sixes"),
    Box.THREE_OF_A_KIND: _("Three of a kind"),
    Box.FOUR_OF_A_KIND: _("Four of a kind"),
    Box.FULL_HOUSE: _("Full house"),
    Box.SMALL_STRAIGHT: _("Small straight"),
    Box.LARGE_STRAIGHT: _("Large straight"),
    Box.CHANCE: _("Chance"),
    Box.PENTA: _("Penta"),
}


def box_label(box: Box | str | None) -> str:
    if not box:
        return ""
    return str(BOX_LABELS[box if isinstance(box, Box) else Box[box]])
