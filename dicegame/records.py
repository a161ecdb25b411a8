"""Which finished games count for a person's records (best total, averages, accuracy, leaderboards).

A game counts as played always; it counts for records unless it was a local game (one device, never
rated) or the computer played more than STAND_IN_TURN_LIMIT of the person's turns. A seat that left is a
loss against everyone still at the table.
"""

from __future__ import annotations

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from dicegame.models import Game, Player, Turn

# -- fairness of records -----------------------------------------------------------------------------
# Turns the computer played for an absent person (Turn.stand_in: a turn timer ran out, or the computer
# kept the seat) are optimal play, not the person's. A game in which it played more than this many of a
# person's 13 turns does not count for their best total, averages, accuracy or any leaderboard (it still
# counts as played). Two: one missed turn, or a single two-turn absence (a phone call, a dropped
# connection), is bad luck and changes a total by a few points; three or more is a real share of the game
# (two accounts that leave a 30-second room get 13 optimal turns each, 297 points, and must not top a
# leaderboard with them).
STAND_IN_TURN_LIMIT = 2


def stand_in_turns():
    """An expression for a seat (a Player queryset): how many of its turns the computer played for it."""
    return Coalesce(
        Subquery(
            Turn.objects.filter(player_id=OuterRef("pk"), stand_in=True)
            .order_by()
            .values("player_id")
            .annotate(n=Count("pk"))
            .values("n")[:1]
        ),
        0,
    )


def counted_seats(seats):
    """These seats (a Player queryset) less those whose game does not count for the person's records."""
    seats = seats.exclude(
        game__kind=Game.Kind.LOCAL
    )  # played on one device: never rated (dicegame.play.local)
    return seats.alias(stand_in_turns=stand_in_turns()).filter(stand_in_turns__lte=STAND_IN_TURN_LIMIT)


# A person left a finished game when they resigned (left_at), or when the computer still kept their seat
# at the end: the game is a loss for them against everyone still at the table.
LEFT = Q(left_at__isnull=False) | Q(stand_in=True)
AT_TABLE = Q(left_at__isnull=True, stand_in=False)


def seat_left(player: Player) -> bool:
    return player.left_at is not None or player.stand_in


def counts_for_records(player: Player) -> bool:
    """For a seat annotated with `stand_in_turns` (stand_in_turns())."""
    return player.stand_in_turns <= STAND_IN_TURN_LIMIT


def records_rule() -> str:
    """The rule in plain words, shown wherever records are."""
    return _(
        "A game in which the computer played more than %(n)d of a player's turns for them counts as "
        "played, but not for their best total, averages, accuracy or leaderboards. A game a player left "
        "counts as a loss against those still at the table."
    ) % {"n": STAND_IN_TURN_LIMIT}
