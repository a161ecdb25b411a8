"""What the screens call things, in the viewer's language: the boxes, the computer players, a hold (the
rules and the strategy know only Box members, strengths and dice values)."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dicegame.rules.scoring import Box

BOX_LABELS = {
    Box.ONES: gettext_lazy("Ones"),
    Box.TWOS: gettext_lazy("Twos"),
    Box.THREES: gettext_lazy("Threes"),
    Box.FOURS: gettext_lazy("Fours"),
    Box.FIVES: gettext_lazy("Fives"),
    Box.SIXES: gettext_lazy("Sixes"),
    Box.THREE_OF_A_KIND: gettext_lazy("Three of a kind"),
    Box.FOUR_OF_A_KIND: gettext_lazy("Four of a kind"),
    Box.FULL_HOUSE: gettext_lazy("Full house"),
    Box.SMALL_STRAIGHT: gettext_lazy("Small straight"),
    Box.LARGE_STRAIGHT: gettext_lazy("Large straight"),
    Box.CHANCE: gettext_lazy("Chance"),
    Box.PENTA: gettext_lazy("Penta"),
}


def box_label(box: Box | str | None) -> str:
    if not box:
        return ""
    return str(BOX_LABELS[box if isinstance(box, Box) else Box[box]])


def bot_name(strength: str, seat: int, count: int) -> str:
    label = {"easy": _("easy"), "medium": _("medium"), "hard": _("hard")}[strength]
    if count == 1:
        return _("Computer (%(strength)s)") % {"strength": label}
    return _("Computer %(n)d (%(strength)s)") % {"n": seat, "strength": label}


def keep_label(keep: list[int] | tuple[int, ...]) -> str:
    """A hold in words: the dice values it keeps, or rerolling all, or stopping to write."""
    if not keep:
        return _("Reroll all five")
    if len(keep) == 5:
        return _("Hold all five: write now")
    return _("Hold %(dice)s") % {"dice": " ".join(str(v) for v in keep)}
