"""Friends, and a player's settings (site-wide leaderboard opt-in, time zone, last time seen)."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Profile(models.Model):
    class Standing(models.TextChoices):
        # Written by fair play only. A person under review, or marked by staff for unfair play, still
        # plays; their games stay off every leaderboard, rating list and daily rank (nothing is shown).
        GOOD = "good"
        REVIEW = "review"
        MARKED = "marked"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    standing = models.CharField(max_length=8, choices=Standing, default=Standing.GOOD, db_index=True)
    # Shown on the site-wide leaderboard only if the player says so.
    leaderboard_opt_in = models.BooleanField(default=False)
    last_seen = models.DateTimeField(null=True, blank=True)
    # The zone times are shown in (an IANA name, accounts.selectors.valid_time_zone); "" for the zone of
    # the browser in use (penta.middleware.TimeZoneMiddleware).
    time_zone = models.CharField(max_length=64, blank=True, default="")
    # How to play (dicegame.play.games.play_settings_set; a guest's are in the session): the seconds to
    # choose a box after the last roll before the computer writes it (None: the site's default, 0: off
    # where a game allows it), and the computer players' fast pace.
    auto_commit_seconds = models.PositiveSmallIntegerField(null=True, blank=True)
    fast_computer = models.BooleanField(default=False, db_default=False)

    def __str__(self):
        return f"Profile of {self.user}"


class FriendRequest(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the addressee said yes or no: a request they declined is not sent again for a while.
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["from_user", "to_user"], name="one_request_per_pair"),
            models.CheckConstraint(condition=~Q(from_user=models.F("to_user")), name="no_request_to_self"),
        ]

    def __str__(self):
        return f"{self.from_user} -> {self.to_user} ({self.status})"


class Friendship(models.Model):
    """Two friends, stored once with the smaller user id first."""

    user_low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user_low", "user_high"], name="one_friendship_per_pair"),
            models.CheckConstraint(
                condition=Q(user_low__lt=models.F("user_high")), name="friendship_ordered"
            ),
        ]

    def __str__(self):
        return f"{self.user_low} & {self.user_high}"


class SentNotice(models.Model):
    """A notice one person made the site send another (a friend request, a game invitation, a column
    offered): counted, in the sending transaction, against the sender's limits (accounts.services)."""

    class Kind(models.TextChoices):
        FRIEND_REQUEST = "friend"
        INVITATION = "invitation"
        COLUMN = "column"

    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["sender", "created_at"])]

    def __str__(self):
        return f"{self.kind} {self.sender_id} -> {self.recipient_id} at {self.created_at}"
