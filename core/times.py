"""Times as the pages say them: the time left until a moment, in words ("5 hours", "less than a minute",
never "0 minutes"), and a moment as a clock time with its day and zone ("5 Dec 2026, 14:00 CET")."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import formats, timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _


def time_left(moment: datetime, now: datetime | None = None, *, depth: int = 2) -> str:
    """The time from `now` until `moment`: under a minute (or past) is "less than a minute"."""
    now = now or timezone.now()
    if moment - now < timedelta(minutes=1):
        return _("less than a minute")
    return timeuntil(moment, now, depth=depth)


def clock_time(moment: datetime) -> str:
    """The moment in the active zone, with its day and the zone's name (DATETIME_FORMAT has it)."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")
