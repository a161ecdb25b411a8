"""Writes of the daily challenge: publishing the commitments of the days ahead."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.utils import timezone

from daily.models import DailySeed
from dicegame import dice

DAILY_ZONE = ZoneInfo("Europe/Amsterdam")  # a day's challenge is the Amsterdam calendar day
DAYS_AHEAD = 7  # the commitments of today and the next 7 days are always published


def today(now: dt.datetime | None = None) -> dt.date:
    """The challenge's date now: the Europe/Amsterdam calendar date."""
    return (now or timezone.now()).astimezone(DAILY_ZONE).date()


def day_end(date: dt.date) -> dt.datetime:
    """The moment a day's seed may be revealed: the following Amsterdam midnight (an aware datetime)."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=DAILY_ZONE)


def publish_commitments(now: dt.datetime | None = None) -> int:
    """Draw and commit to the seeds of today and the next DAYS_AHEAD days that have none yet (each with
    `secrets`, via dice.new_seed). Idempotent and safe when two processes publish at once: a day's seed,
    once stored, is never redrawn. Returns how many were created."""
    first = today(now)
    wanted = [first + dt.timedelta(days=d) for d in range(DAYS_AHEAD + 1)]
    have = set(DailySeed.objects.filter(date__in=wanted).values_list("date", flat=True))
    created = 0
    for date in wanted:
        if date in have:
            continue
        seed = dice.new_seed()
        try:
            with transaction.atomic():
                DailySeed.objects.create(date=date, seed=seed, commitment=dice.commitment(seed))
            created += 1
        except IntegrityError:  # another process published this day between our read and our write
            continue
    return created
