"""What fair play keeps: each assessed game's signals per person, the times a page was hidden during
one's turn, and each account's case (its evidence, and what staff decided).

Nothing here is shown to anyone but staff: the signals are private, as online poker keeps its own."""

from __future__ import annotations

import datetime as dt

import numpy as np
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from fairplay import model as M

# Marking refunds what the account's rated games cost their opponents over this window before the mark
# (as lichess refunds its last wins): the ratings app applies it (`events.AccountMarked`).
REFUND_WINDOW = dt.timedelta(days=30)
# Accounts that keep feeding one winner: at least FEEDERS accounts, each of which lost at least
# FEEDER_LOSSES rated games to the same person and played most of its rated games (FEEDER_SHARE)
# against them. Only games whose results moved ratings count, with both seats played by their people
# (fairplay.services.feeders_of): a game whose losers left at once moved nothing and proves nothing.
# The feeders are flagged; the account they fed is named to staff and stays on the boards.
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
    suspicious games. MARKED: staff found unfair play: off every board, its rated opponents refunded.

    Feeding flags the feeders (reason FEEDING, `fed` names the winner). The account they fed is never
    flagged for it: the accused could be a victim (anyone can lose to someone on purpose), so its case
    only lists its `feeders` and waits for staff (`WAITING_AS_FED`) while it stays on every board."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        FLAGGED = "flagged", _("Flagged for review")
        CLEARED = "cleared", _("Cleared")
        MARKED = "marked", _("Marked")

    class Reason(models.TextChoices):
        ASSISTED = "assisted", _("Play like a solver's")
        FEEDING = "feeding", _("Lost rated games to feed one winner")

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
    # The accounts found feeding this one its wins, as user ids, and when the last new one was found:
    # staff look at it from then until they decide (WAITING_AS_FED); it stays on the boards meanwhile.
    feeders = models.JSONField(default=list, blank=True)
    fed_at = models.DateTimeField(null=True, blank=True)
    # A feeder's case (reason FEEDING): the account it fed.
    fed = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
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


# A fed account's case waits for staff: feeders were found since staff last decided on it (and it is
# neither flagged, which the queue holds anyway, nor marked).
WAITING_AS_FED = Q(fed_at__isnull=False, status__in=[Case.Status.OPEN, Case.Status.CLEARED]) & (
    Q(reviewed_at__isnull=True) | Q(fed_at__gt=F("reviewed_at"))
)


class PersonReport(models.Model):
    """A person reported by another (cheating, abuse, an offensive name), maybe with a game of the two:
    in staff's queue beside the fair-play cases. Staff may rename the account, mute it or close it
    (fairplay.admin), and close the report."""

    class Reason(models.TextChoices):
        CHEATING = "cheating", _("Cheating")
        ABUSE = "abuse", _("Abuse or harassment")
        NAME = "name", _("An offensive name")

    class Status(models.TextChoices):
        NEW = "new", _("New")
        SEEN = "seen", _("Seen")
        CLOSED = "closed", _("Closed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reported = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The name the reported account had when reported (an offensive name may be changed since).
    reported_name = models.CharField(max_length=150)
    reason = models.CharField(max_length=8, choices=Reason)
    message = models.TextField(max_length=2000, blank=True)
    # Only a game the reporter could see, with the reported person in it, is kept.
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status, default=Status.NEW, db_index=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("report about a person")
        verbose_name_plural = _("reports about people")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reported", "status"])]

    def __str__(self):
        return f"report {self.pk} about {self.reported_name} ({self.reason})"
