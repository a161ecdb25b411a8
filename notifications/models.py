"""A person's ways of being told (Web Push devices, an e-mail address for the digest) and the queue of
what to tell them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class PushSubscription(models.Model):
    """One device (a browser's push endpoint) of a person, with the keys its messages are encrypted to."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    # What the preferences page calls the device, and the language its messages are written in.
    label = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=8, default="en")
    created_at = models.DateTimeField(auto_now_add=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    # Its failure budget (notifications.pushing): pushes failed in a row, since the first of them.
    failures = models.PositiveIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.label or 'device'} of {self.user}"


class MailSettings(models.Model):
    """A person's address for the daily digest: used once confirmed through a signed link, while opted in."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail")
    address = models.EmailField(blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    digest = models.BooleanField(default=False)
    language = models.CharField(max_length=8, default="en")

    def __str__(self):
        return f"mail of {self.user}"

    @property
    def sends_digest(self) -> bool:
        return self.digest and bool(self.address) and self.confirmed_at is not None


class Notification(models.Model):
    """One thing to tell one person, queued inside the transaction that caused it and sent once."""

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", _("Your turn")
        REMINDER = "reminder", _("Time almost up")
        DIGEST = "digest", _("Daily digest")
        CONFIRM = "confirm", _("Address confirmation")
        CHALLENGE = "challenge", _("A challenge")
        # A line said at a correspondence game's table, to a player away from the site.
        CHAT = "chat", _("A line in a game")
        # To an address typed on "forgot password", known or not (no user): the sweep finds its accounts.
        RESET = "reset", _("Password reset")

    class State(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        SKIPPED = "skipped", _("Not needed any more")
        FAILED = "failed", _("Failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=Kind)
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    turn_number = models.PositiveSmallIntegerField(null=True, blank=True)
    # A challenge's push: to the person challenged, while they have not answered.
    challenge = models.ForeignKey(
        "dicegame.Challenge", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    day = models.DateField(null=True, blank=True)  # a digest's day (Europe/Amsterdam)
    address = models.EmailField(blank=True)  # a confirmation's or a password reset's address
    due_at = models.DateTimeField(db_index=True)
    state = models.CharField(max_length=8, choices=State, default=State.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # A sender that took it leaves it to another one after this (it may have died).
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [models.Index(fields=["state", "due_at"])]
        constraints = [
            # Exactly once per turn and kind, and one digest a day.
            models.UniqueConstraint(
                fields=["user", "game", "turn_number", "kind"],
                condition=Q(game__isnull=False),
                name="one_notification_per_turn_and_kind",
            ),
            models.UniqueConstraint(
                fields=["user", "kind", "day"], condition=Q(day__isnull=False), name="one_digest_a_day"
            ),
            # A conversation waiting in a game makes one push, not one per line.
            models.UniqueConstraint(
                fields=["user", "game", "kind"],
                condition=Q(kind="chat", state="pending"),
                name="one_pending_chat_push_per_game",
            ),
            models.UniqueConstraint(
                fields=["user", "challenge"],
                condition=Q(challenge__isnull=False),
                name="one_notification_per_challenge",
            ),
        ]

    def __str__(self):
        return f"{self.kind} for {self.user} ({self.state})"


class PushDelivery(models.Model):
    """A notification delivered to one device: a retry after a failure on another device skips it."""

    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(PushSubscription, on_delete=models.CASCADE, related_name="+")
    delivered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["notification", "subscription"], name="one_delivery_per_device")
        ]

    def __str__(self):
        return f"notification {self.notification_id} to device {self.subscription_id}"
