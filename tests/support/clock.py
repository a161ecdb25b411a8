"""The server's clock, moved by a test: simulated hours and days without waiting for them."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone


class Clock:
    """Every `timezone.now()` of the code under test reads this clock (auto_now fields too)."""

    def __init__(self, monkeypatch, now: dt.datetime):
        self.now = now
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def set(self, now: dt.datetime) -> None:
        self.now = now

    def advance(self, **delta) -> dt.datetime:
        """Move on by a timedelta's arguments (hours=8, days=1, ...); returns the new time."""
        self.now += dt.timedelta(**delta)
        return self.now
