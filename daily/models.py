"""The daily challenge's dice seeds: one per day, committed to in advance, revealed when the day is over."""

from __future__ import annotations

from django.db import models


class DailySeed(models.Model):
    """The dice seed of one day (the Europe/Amsterdam date). Drawn with `secrets` when its commitment is
    published (`daily.services.publish_commitments`, at least a day ahead); the seed itself is shown,
    exported or pushed only once the day has ended (`daily.selectors`)."""

    date = models.DateField(unique=True)
    seed = models.CharField(max_length=64, help_text="secret until the day ends")
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the seed's bytes, published ahead")
    published_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["date"]

    def __str__(self) -> str:
        return f"Daily seed of {self.date.isoformat()}"
