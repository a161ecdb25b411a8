"""What fair play keeps: each assessed game's signals per person, the times a page was hidden during
one's turn, and each account's case (its evidence, and what staff decided).

Nothing here is shown to anyone but staff: the signals are private, as online poker keeps its own."""

from __future__ import annotations

import datetime as dt

import numpy as np
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from fairplay import model as M

# Marking refunds what the account's rated games cost their opponents over this window before the mark
# (as lichess refunds its last wins): the ratings app applies it (`events.AccountMarked`).
REFUND_WINDOW = dt.timedelta(days=30)
# Accounts that keep feeding one winner: at least FEEDERS accounts, each of which lost at least
# FEEDER_LOSSES rated games to the same person and played most of its rated games (FEEDER_SHARE)
# against them.
FEEDERS = 3
FEEDER_LOSSES = 3
FEEDER_SHARE = 0.8


class GameSignals(models.Model):
    """What one rated or daily game says about one person (`fairplay.model.game_signals`)."""

    game = models.ForeignKey("dicegame.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveSmallIntegerField(
        default=M.MODEL_VERSION, help_text="fairplay.model.MODEL_VERSION"
    )
    decisions = models.PositiveSmallIntegerField(help_text="informative decisions (not near ties)")
    best = models.PositiveSmallIntegerField(help_text="of them, the best choice")
    loss = models.FloatField(help_text="expected points given up on them")
    timed = models.PositiveSmallIntegerField(default=0)
    time_log_sum = models.FloatField(default=0.0)
    time_log_squares = models.FloatField(default=0.0)
    hidden = models.PositiveSmallIntegerField(default=0, help_text="turns with the page hidden")
    evidence = models.FloatField(help_text="the game's own evidence (natural log of a likelihood ratio)")
    # The informative decisions' records (fairplay.model.records), zlib-compressed: an account's
    # evidence is fitted on all of its games' records together.
    table = models.BinaryField()
    # Per informative decision: [seconds or null, points lost, best?], for the review's chart.
    points = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("game signals")
        verbose_name_plural = _("game signals")
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_signals_per_game_and_user")]
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self):
        return f"{self.user} in game {self.game_id}: {self.evidence:.1f}"

    @staticmethod
    def pack(rows: np.ndarray) -> bytes:
        return M.pack(rows)

    @property
    def signals(self) -> M.GameSignals:
        return M.GameSignals(
            decisions=self.decisions,
            best=self.best,
            loss=self.loss,
            records=M.unpack(bytes(self.table)),
            times=M.TimeStats(self.timed, self.time_log_sum, self.time_log_squares),
            hidden=self.hidden,
            evidence=self.evidence,
        )

    @property
    def best_share(self) -> float | None:
        return self.best / self.decisions if self.decisions else None


class HiddenTurn(models.Model):
    """The page of a game was hidden (another tab, another window) during this person's own turn, as
    the page reported it: a weak signal only (a page can say anything), counted once per turn."""

    game = models.ForeignKey("dicegame.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    turn_number = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "turn_number"], name="one_hidden_report_per_turn")
        ]

    def __str__(self):
        return f"{self.user} hid game {self.game_id} in turn {self.turn_number}"


class Case(models.Model):
    """An account's fair-play standing: its evidence over its assessed games, and the review.

    OPEN: assessed, below the line. FLAGGED: over the line, waiting for staff (its games are off the
    boards meanwhile). CLEARED: staff found it honest; it stays cleared until CLEAR_AGAIN_GAMES more
    suspicious games. MARKED: staff found unfair play: off every board, its rated opponents refunded."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        FLAGGED = "flagged", _("Flagged for review")
        CLEARED = "cleared", _("Cleared")
        MARKED = "marked", _("Marked")

    class Reason(models.TextChoices):
        ASSISTED = "assisted", _("Play like a solver's")
        FEEDING = "feeding", _("Accounts feeding one winner")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="fair_play_case"
    )
    status = models.CharField(max_length=8, choices=Status, default=Status.OPEN, db_index=True)
    reason = models.CharField(max_length=8, choices=Reason, blank=True)
    games = models.PositiveIntegerField(default=0)
    suspicious_games = models.PositiveIntegerField(default=0)
    evidence = models.FloatField(default=0.0)
    choice_evidence = models.FloatField(default=0.0)
    time_evidence = models.FloatField(default=0.0)
    hidden_evidence = models.FloatField(default=0.0)
    temperature = models.FloatField(null=True, blank=True)
    share = models.FloatField(null=True, blank=True, help_text="the share of decisions fitted to a solver")
    # The accounts that fed this one its wins (reason FEEDING), as user ids.
    feeders = models.JSONField(default=list, blank=True)
    flagged_at = models.DateTimeField(null=True, blank=True)
    # Suspicious games when staff last cleared it: it comes back only with more.
    cleared_suspicious = models.PositiveIntegerField(default=0)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("fair-play case")
        ordering = ["-evidence"]

    def __str__(self):
        return f"{self.user}: {self.get_status_display()} ({self.evidence:.1f})"
