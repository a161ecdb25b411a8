"""The daily challenge's calendar: which day it is and when a day ends. Pure (no models), so the game's
turn flow and the review can ask it without importing the daily app's services."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.utils import timezone

DAILY_ZONE = ZoneInfo("Europe/Amsterdam")  # a day's challenge is the Amsterdam calendar day


def today(now: dt.datetime | None = None) -> dt.date:
    """The challenge's date now: the Europe/Amsterdam calendar date."""
    return (now or timezone.now()).astimezone(DAILY_ZONE).date()


def day_end(date: dt.date) -> dt.datetime:
    """The moment a day's seed may be revealed: the following Amsterdam midnight (an aware datetime)."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=DAILY_ZONE)


def seed_secret_until(game, now: dt.datetime | None = None) -> dt.datetime | None:
    """For a daily game whose day has not ended: the moment its seed may be shown; else None (an
    ordinary game's seed is secret only while it is played, which its own status says)."""
    date = getattr(game, "daily_date", None)
    if date is None:
        return None
    end = day_end(date)
    return end if (now or timezone.now()) < end else None
