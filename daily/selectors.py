"""Reads of the daily challenge. The one rule: a day's seed leaves this module only after the day ended."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from daily.models import DailySeed
from daily.services import DAYS_AHEAD, day_end, today

REVEALED_SHOWN = 7  # past days listed with their seeds


@dataclass(frozen=True)
class Commitment:
    date: dt.date
    commitment: str
    seed: str | None  # None until the day has ended
    is_today: bool

    @property
    def revealed(self) -> bool:
        return self.seed is not None


def revealed_seed(row: DailySeed, now: dt.datetime | None = None) -> str | None:
    """The row's seed if its day has ended, else None."""
    return row.seed if (now or timezone.now()) >= day_end(row.date) else None


def commitments(now: dt.datetime | None = None) -> tuple[list[Commitment], list[Commitment]]:
    """(today and the days ahead with their commitments, the last REVEALED_SHOWN days with their seeds)."""
    now = now or timezone.now()
    first = today(now)
    rows = DailySeed.objects.filter(
        date__gte=first - dt.timedelta(days=REVEALED_SHOWN), date__lte=first + dt.timedelta(days=DAYS_AHEAD)
    ).only("date", "seed", "commitment")
    ahead, past = [], []
    for row in rows:
        item = Commitment(row.date, row.commitment, revealed_seed(row, now), row.date == first)
        (past if item.revealed else ahead).append(item)
    past.reverse()  # newest first
    return ahead, past
