"""The daily challenge's dice seeds: one per day, committed to in advance, revealed when the day is over."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class DailySeed(models.Model):
    """The dice seed of one day (the Europe/Amsterdam date). Drawn with `secrets` when its commitment is
    published (`daily.services.publish_commitments`, at least a day ahead); the seed itself is shown,
    exported or pushed only once the day has ended (`daily.selectors`)."""

    date = models.DateField(unique=True)
    seed = models.CharField(max_length=64, help_text="secret until the day ends")
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the seed's bytes, published ahead")
    published_at = models.DateTimeField(auto_now_add=True)
    # Optimal play's total on the day's dice (one seat): computed once, when the day's first result is
    # read, and shown as the day's par (daily.services.day_par).
    par = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["date"]

    def __str__(self) -> str:
        return f"Daily seed of {self.date.isoformat()}"


class DailyAttempt(models.Model):
    """One person's game of one day's challenge. An account has at most one ranked attempt a day (the
    conditional unique constraint makes two concurrent starts one); a guest's attempt is unranked, and
    moves to the account on sign-up or login (`claim_guest_attempts`). Once started it counts: an
    attempt still unfinished when its day ends is closed with the boxes written."""

    date = models.DateField()
    game = models.OneToOneField("dicegame.Game", on_delete=models.CASCADE, related_name="daily_attempt")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="daily_attempts",
    )
    guest_key = models.CharField(max_length=64, blank=True, default="")
    ranked = models.BooleanField(default=False)
    started_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["date", "started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["date", "user"], condition=models.Q(ranked=True), name="daily_one_ranked_attempt"
            ),
            # A guest's session resumes its one game of the day.
            models.UniqueConstraint(
                fields=["date", "guest_key"],
                condition=models.Q(user__isnull=True) & ~models.Q(guest_key=""),
                name="daily_one_guest_attempt",
            ),
        ]
        indexes = [models.Index(fields=["date", "ranked"], name="daily_attempt_date_ranked")]

    def __str__(self) -> str:
        return f"Daily attempt {self.date.isoformat()} (game {self.game_id})"
