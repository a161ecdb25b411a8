"""Offers of a game, stored: a challenge from one person to another, and a seek (a game offered to anyone:
"Play someone now", or an open correspondence game anyone may accept).

Registered with the app by `dicegame.models` (kept apart so that module stays one concept: the game).
Only `dicegame.play` (`challenges`, `seeks`) writes these rows. A pace is its move time: 0 for a live
game (with `turn_seconds`, 0 for no turn timer), else a correspondence game's time a move."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from dicegame.labels import pace_label


class Challenge(models.Model):
    """One person offers another a game: its pace, rated or casual, and computer seats after them.

    A live challenge's game is made when it is accepted. A correspondence one's is made at once, so the
    challenger may play their first turn before the answer: the friend's seat waits in it, marked
    `Player.challenged`, with no clock running, until they accept (or decline: the game is cancelled).
    A rematch is a challenge too (`rematch_of`): its game is made at the accept, the seats moved one on.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for an answer")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        CANCELLED = "cancelled", _("Cancelled")
        EXPIRED = "expired", _("Expired")

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    turn_seconds = models.PositiveSmallIntegerField(default=0)
    move_seconds = models.PositiveIntegerField(default=0)
    rated = models.BooleanField(default=False)
    # The computer players' strengths, seated after the two people (at most two: four seats in all).
    bots = models.JSONField(default=list, blank=True)
    # The game it made: by correspondence at once, live at the accept.
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="challenges"
    )
    rematch_of = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="rematch_challenges"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(from_user=F("to_user")), name="no_challenge_to_self"),
            # One challenge waiting at a time from one person to another (a rematch offer belongs to its
            # game instead: two games of the same two may each have one).
            models.UniqueConstraint(
                fields=["from_user", "to_user"],
                condition=Q(status="pending", rematch_of__isnull=True),
                name="one_pending_challenge_per_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["to_user", "status"], name="challenge_to_status"),
            models.Index(fields=["from_user", "status"], name="challenge_from_status"),
            models.Index(fields=["status", "expires_at"], name="challenge_status_expiry"),
        ]

    def __str__(self):
        return f"{self.from_user_id} challenges {self.to_user_id} ({self.status})"

    @property
    def is_correspondence(self) -> bool:
        return bool(self.move_seconds)

    @property
    def is_pending(self) -> bool:
        return self.status == self.Status.PENDING

    @property
    def pace_label(self) -> str:
        return pace_label(move_seconds=self.move_seconds, turn_seconds=self.turn_seconds)

    @property
    def bots_label(self) -> str:
        """ "with 2 computer players", or "" without."""
        n = len(self.bots or ())
        if not n:
            return ""
        return ngettext("with %(n)d computer player", "with %(n)d computer players", n) % {"n": n}


class Seek(models.Model):
    """A game offered to anyone. Live ("Play someone now"): its page asks every few seconds, and each
    ask pairs it, if it can, with another live seek of the same kind at a similar rating (the range
    widening as the wait grows); a seek whose page stopped asking is left alone. By correspondence: an
    open game in the list anyone may accept.

    `person` names the seeker whoever they are ("u<user id>", or "g<guest key>" for a casual live seek of
    a guest), so that one person has one open seek and is not paired with the same opponent again and
    again (`partner`)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        PAIRED = "paired", _("Paired")
        CANCELLED = "cancelled", _("Cancelled")
        EXPIRED = "expired", _("Expired")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="seeks"
    )
    guest_key = models.CharField(max_length=64, blank=True)
    name = models.CharField(max_length=150)
    person = models.CharField(max_length=80)
    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)
    turn_seconds = models.PositiveSmallIntegerField(default=0)
    move_seconds = models.PositiveIntegerField(default=0)
    rated = models.BooleanField(default=False)
    # The seeker's rating when they sought (a newcomer's 1500 without one): what "similar" is measured by.
    rating = models.FloatField()
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="seeks"
    )
    partner = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A live seek: its page asked last this long ago (it lapses when the page is gone).
    alive_until = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    paired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["person"], condition=Q(status="open"), name="one_open_seek_each"),
        ]
        indexes = [
            models.Index(fields=["status", "move_seconds", "rated"], name="seek_open_kind"),
            models.Index(fields=["person", "paired_at"], name="seek_person_paired"),
        ]

    def __str__(self):
        return f"seek {self.pk} of {self.person} ({self.status})"

    @property
    def is_correspondence(self) -> bool:
        return bool(self.move_seconds)

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def pace_label(self) -> str:
        return pace_label(move_seconds=self.move_seconds, turn_seconds=self.turn_seconds)
