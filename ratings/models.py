"""Each person's Glicko-2 rating and its history: one row per (rated game, person).

Only `ratings.services` writes these rows, inside the transaction that finishes the game."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ratings import glicko2

# Above this deviation a rating is marked provisional ("?"): a newcomer starts at 350 and gets below it
# after about a dozen pairwise results against settled players.
PROVISIONAL_RD = 110.0
# Glicko-2's rating period for someone who does not play: each whole week without a rated game widens
# the deviation by one step (glicko2.idle), so a rating left alone for a year or two becomes uncertain
# (provisional) again, and its next games move it more. A game's results are one period of their own.
RATING_PERIOD = dt.timedelta(days=7)


def idle_periods(since: dt.datetime, now: dt.datetime | None = None) -> int:
    return max(0, ((now or timezone.now()) - since) // RATING_PERIOD)


class PlayerRating(models.Model):
    """A person's current rating. Missing until their first rated game: they count as 1500 / 350."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating")
    rating = models.FloatField(default=glicko2.Rating.rating)
    rd = models.FloatField(default=glicko2.Rating.rd)
    volatility = models.FloatField(default=glicko2.Rating.volatility)
    # Rated games that moved this rating.
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("rating")
        indexes = [models.Index(fields=["-rating"])]

    def __str__(self):
        return f"{self.user} {self.rating:.0f} ± {self.rd:.0f}"

    def current(self, now: dt.datetime | None = None) -> glicko2.Rating:
        """The rating now: the stored one, its deviation widened by the weeks since its last game."""
        stored = glicko2.Rating(self.rating, self.rd, self.volatility)
        return glicko2.idle(stored, idle_periods(self.updated_at, now)) if self.updated_at else stored

    @property
    def provisional(self) -> bool:
        return self.current().rd > PROVISIONAL_RD


class RatingChange(models.Model):
    """What one rated game did to one person's rating. The unique (game, user) pair is what makes a
    game's ratings apply exactly once, whichever code paths race to finish it."""

    game = models.ForeignKey("dicegame.Game", on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    # The volatility the game started from (null on rows from before it was kept: then the previous
    # change's volatility_after). With the ratings before, the game's results and their weights, it
    # is what rating the game again takes (a refund: `ratings.services.refund_opponents`).
    volatility_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    volatility_after = models.FloatField()
    # The pairwise results of the game for this person: their sum of scores and how many.
    score = models.FloatField()
    opponents = models.PositiveSmallIntegerField()
    # A forfeit: the person left, or the computer played more than the limit of their turns.
    forfeit = models.BooleanField(default=False)
    # How much the game's results counted for this person (ratings.services): the mean of their results'
    # weights, 1 when every result counted in full. `discounts` tells why, one entry per opponent whose
    # result counted for less or not at all, for the fair-play review: {"opponent": user id, "weight":
    # w, and "pair_game": n (the nth rated game of the two in 24 hours) / "newcomer": true (the
    # opponent had fewer than NEWCOMER_GAMES rated games) / "abort": true (the opponent left early)}.
    weight = models.FloatField(default=1.0)
    discounts = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("rating change")
        ordering = ["user", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_rating_change_per_game")]
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self):
        return f"{self.user} in game {self.game_id}: {self.rating_before:.0f} -> {self.rating_after:.0f}"


class RatingRefund(models.Model):
    """Rating given back: `points` that the `marked` account's seat in `game` cost the person (the game
    rated again without the marked seats, less what it did). The unique (game, user, marked) triple is
    what makes a marking refund once, however often or however concurrently the account is marked; a
    second marked account at the same table adds its own row, for what it cost on top."""

    game = models.ForeignKey("dicegame.Game", on_delete=models.CASCADE, related_name="rating_refunds")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_refunds"
    )
    points = models.FloatField()
    # The marked account whose marking gave it back (kept if that account is deleted later).
    marked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("rating refund")
        ordering = ["user", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user", "marked"], name="one_rating_refund_per_game_and_mark"
            )
        ]

    def __str__(self):
        return f"{self.user} in game {self.game_id}: +{self.points:.0f}"
