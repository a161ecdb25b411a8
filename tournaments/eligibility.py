"""What a rated tournament asks. Of an account that enters (or makes) one: some history
(RATED_ENTRY_MIN_DAYS old, RATED_ENTRY_MIN_GAMES finished games that count for records), so that
accounts made for the occasion can neither fill it nor feed anyone matchpoints; the services refuse the
others (`services.entry_join`, `services.tournament_create`), the pages say the rule and, to a viewer
who does not meet it, why. Of the tournament: RATED_MIN_PLAYERS players for a rated result. Settings of
the same names with a PENTA_ prefix change the numbers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame.models import Game, Player
from dicegame.records import counted_seats
from tournaments.models import RATED_ENTRY_MIN_DAYS, RATED_ENTRY_MIN_GAMES, RATED_MIN_PLAYERS


def rated_min_players() -> int:
    """How many must play a rated tournament (start a round's game) for it to count as rated."""
    return getattr(settings, "PENTA_RATED_MIN_PLAYERS", RATED_MIN_PLAYERS)


@dataclass(frozen=True)
class RatedEntryRule:
    """What a rated tournament asks of an account (RATED_ENTRY_MIN_DAYS, RATED_ENTRY_MIN_GAMES, or the
    settings of the same names)."""

    days: int
    games: int

    def text(self) -> str:
        return _(
            "A rated tournament is open to accounts at least %(days)d days old with at least %(games)d "
            "finished games that count for records (no hints, not on one device), so that accounts made "
            "for the occasion can neither fill it nor feed anyone matchpoints."
        ) % {"days": self.days, "games": self.games}


def rated_entry_rule() -> RatedEntryRule:
    return RatedEntryRule(
        days=getattr(settings, "PENTA_RATED_ENTRY_MIN_DAYS", RATED_ENTRY_MIN_DAYS),
        games=getattr(settings, "PENTA_RATED_ENTRY_MIN_GAMES", RATED_ENTRY_MIN_GAMES),
    )


def rated_entry_refusal(user, *, now: dt.datetime | None = None) -> str:
    """Why this account may not enter (or make) a rated tournament yet; "" when it may. Two indexed
    reads at most; what it asks only grows with time, so no lock is needed against a race."""
    rule = rated_entry_rule()
    now = now or timezone.now()
    age = now - user.date_joined
    games = rule.games
    if rule.games:
        finished = Player.objects.filter(user_id=user.pk, game__status=Game.Status.FINISHED)
        games = counted_seats(finished).values("pk")[: rule.games].count()
    if age >= dt.timedelta(days=rule.days) and games >= rule.games:
        return ""
    return _(
        "You cannot make or enter a rated tournament yet: it takes an account at least %(days)d days old "
        "with at least %(games)d finished games that count for records, and yours is %(age)d days old "
        "with %(count)d. Play a few more games, or make or enter a tournament that is not rated."
    ) % {"days": rule.days, "games": rule.games, "age": max(age.days, 0), "count": games}
