"""What the screens call things, in the viewer's language: the boxes, the computer players, a hold (the
rules and the strategy know only Box members, strengths and dice values)."""

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dicegame.rules.scoring import Box
from dicegame.rules.turn import IDLE_END_SECONDS, MISSED_MOVES_FORFEIT

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
    label = {"easy": _("easy"), "medium": _("medium"), "hard": _("hard"), "winner": _("winner")}[strength]
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


MOVE_TIME_LABELS = {
    3600: gettext_lazy("an hour"),
    8 * 3600: gettext_lazy("8 hours"),
    24 * 3600: gettext_lazy("a day"),
    3 * 24 * 3600: gettext_lazy("3 days"),
}


def move_time_label(seconds: int | None) -> str:
    """A correspondence game's time a move in words ("a day")."""
    if seconds in MOVE_TIME_LABELS:
        return str(MOVE_TIME_LABELS[seconds])
    return _("%(n)d hours") % {"n": round((seconds or 0) / 3600)}


def pace_label(*, move_seconds: int | None, turn_seconds: int | None) -> str:
    """ "Correspondence, a day a move", or a live game's turn timer, for lists, invitations and offers."""
    if move_seconds:
        return _("Correspondence, %(time)s a move") % {"time": move_time_label(move_seconds)}
    if turn_seconds:
        return _("Live, %(s)d s a turn") % {"s": turn_seconds}
    return _("Live")


def correspondence_rule() -> str:
    """The rule of correspondence games in plain words, shown wherever one is offered or played."""
    return _(
        "By correspondence each plays on their own time: a move not made in time is played by the "
        "computer, and %(missed)d missed in a row forfeit the seat, as leaving does. A game nobody moves "
        "in for %(days)d days ends as it stands."
    ) % {"missed": MISSED_MOVES_FORFEIT, "days": IDLE_END_SECONDS // (24 * 3600)}


def by_when(moment, now=None) -> str:
    """A time to act by, as a person says it, in the zone the page shows times in: "by 21:40", "by
    21:40 tomorrow", "by 21:40 on Friday" within the week, else "by 3 Jun 2026, 21:40"."""
    local = timezone.localtime(moment)
    days = (local.date() - timezone.localtime(now or timezone.now()).date()).days
    time = formats.time_format(local, "H:i")
    if days <= 0:
        return _("by %(time)s") % {"time": time}
    if days == 1:
        return _("by %(time)s tomorrow") % {"time": time}
    if days < 7:
        return _("by %(time)s on %(day)s") % {"time": time, "day": formats.date_format(local, "l")}
    return _("by %(date)s") % {"date": formats.date_format(local, "SHORT_DATETIME_FORMAT")}
