"""The calendar of the games everyone plays on the same dice (the daily challenge): which day it is, when
a day ends, and until when such a game's seed stays secret. Pure (no Django), so the stored game, the
review and the daily all ask the same calendar."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

DAILY_ZONE = ZoneInfo("Europe/Amsterdam")  # a day's challenge is the Amsterdam calendar day


def today(now: dt.datetime | None = None) -> dt.date:
    """The challenge's date now: the Europe/Amsterdam calendar date."""
    return (now or dt.datetime.now(dt.UTC)).astimezone(DAILY_ZONE).date()


def day_end(date: dt.date) -> dt.datetime:
    """The moment a day's seed may be revealed: the following Amsterdam midnight (an aware datetime)."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=DAILY_ZONE)


def seed_secret_until(date: dt.date | None, now: dt.datetime | None = None) -> dt.datetime | None:
    """For a game of the day `date` (a daily game) whose day has not ended: the moment its seed may be
    shown; else None (an ordinary game's seed is secret only while it is played, which its own status
    says)."""
    if date is None:
        return None
    end = day_end(date)
    return end if (now or dt.datetime.now(dt.UTC)) < end else None
