"""Which finished games count for a person's records (best total, averages, accuracy, leaderboards).

The one rule, used by every screen that shows a record (the end of a game's "A new best!", the
statistics, the leaderboards, My games, the review, the CSV export): a finished game counts as played
always; it counts for the person's records unless
- hints were shown in it (the optimal strategy's advice is not the person's play),
- it was a local game (one device, never rated), or
- the computer played more than STAND_IN_TURN_LIMIT of the person's turns.
A resigned game counts as it stands, with the boxes written: resigning never raises a total, and leaving
a bad game out of the averages by resigning it would be a way to farm them. A seat that left is a loss
against everyone still at the table.

Before all of that, a game whose dice are still secret (`secret_until`: a tournament round's game until
its round closes) is in no record and on no board at all, not even as "not counted": its total, its par
and its luck say something about dice that other entrants have still to play. It joins the records when
the round closes (the tournaments' clock bumps its people's versions then, so no page keeps it out of
a cached figure). `revealed_seats` is that rule for the screens that list games without counting them
(the statistics' game counts, My games, the CSV export).

`counted_seats` (a queryset) and `counts_for_records` (one seat) are the same rule, tested to agree.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
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


# -- games whose dice are still secret -----------------------------------------------------------------
# A game on dice that other games share within a window (`Game.shared_until`: a tournament round, whose
# seed deals every entrant's dice until the round closes) keeps its dice secret until the window ends.
# The daily challenge's games are not among them: the day's totals are public as they come (its
# leaderboards), and only its optimal line waits for midnight (`Game.seed_secret_until`).


def secret_until(game: Game, now: dt.datetime | None = None) -> dt.datetime | None:
    """When this game's dice stop being secret, if they still are (a tournament round still open); else
    None. Until then the game is in no record, board or statistic, and its analysis keeps what it says
    about the dice (the par, the optimal line, the luck) to itself."""
    until = game.shared_until
    return until if until is not None and (now or timezone.now()) < until else None


def revealed(now: dt.datetime | None = None) -> Q:
    """A filter on seats (a Player queryset): those whose game's dice are not secret (any more)."""
    return Q(game__shared_until__isnull=True) | Q(game__shared_until__lte=now or timezone.now())


def revealed_seats(seats):
    """These seats less those whose game's dice are still secret (`secret_until`)."""
    return seats.filter(revealed())


# The rule as a filter on seats aliased with `stand_in_turns` (stand_in_turns()), among revealed seats.
COUNTS = (
    Q(game__status=Game.Status.FINISHED, game__hints_used=False, stand_in_turns__lte=STAND_IN_TURN_LIMIT)
    # Played on one device: never rated (dicegame.play.local).
    & ~Q(game__kind=Game.Kind.LOCAL)
)


def counted_seats(seats):
    """These seats (a Player queryset) less those whose game does not count for the person's records
    (its dice still secret, or COUNTS' rule)."""
    return revealed_seats(seats).alias(stand_in_turns=stand_in_turns()).filter(COUNTS)


def not_counted_reason(*, game: Game, stand_in_turns: int) -> str:
    """Why a person's seat will never count for their records, in plain words; "" when it counts, will
    count once its dice are revealed (`pending_reason`), or the game is not over yet."""
    if game.status != Game.Status.FINISHED:
        return ""
    if game.kind == Game.Kind.LOCAL:
        return _("Played on one device: it does not count for records.")
    if game.hints_used:
        return _("Hints were shown in this game: it does not count for records.")
    if stand_in_turns > STAND_IN_TURN_LIMIT:
        return _("The computer played more than %(n)d of your turns: it does not count for records.") % {
            "n": STAND_IN_TURN_LIMIT
        }
    return ""


# A person left a finished game when they resigned (left_at), or when the computer still kept their seat
# at the end: the game is a loss for them against everyone still at the table.
LEFT = Q(left_at__isnull=False) | Q(stand_in=True)
AT_TABLE = Q(left_at__isnull=True, stand_in=False)


def seat_left(player: Player) -> bool:
    return player.left_at is not None or player.stand_in


def pending_reason(game: Game) -> str:
    """Why a finished game is in no record yet, in plain words: its dice are still secret (a tournament
    round still open); "" otherwise."""
    until = secret_until(game)
    if until is None or game.status != Game.Status.FINISHED:
        return ""
    return _(
        "A tournament round: it joins your records and statistics when the round closes, as the round's "
        "dice are every entrant's until then."
    )


def counts_for_records(*, game: Game, stand_in_turns: int) -> bool:
    """Whether a person's finished seat in `game` counts for their records now (its dice not secret,
    and the rule of COUNTS), given how many of their turns the computer played."""
    return (
        game.status == Game.Status.FINISHED
        and secret_until(game) is None
        and not not_counted_reason(game=game, stand_in_turns=stand_in_turns)
    )


def records_rule() -> str:
    """The rule in plain words, shown wherever records are."""
    return _(
        "A game with hints, or in which the computer played more than %(n)d of a player's turns for "
        "them, counts as played, but not for their best total, averages, accuracy or leaderboards. A "
        "resigned game counts with the boxes written. A game a player left counts as a loss against "
        "those still at the table."
    ) % {"n": STAND_IN_TURN_LIMIT}
