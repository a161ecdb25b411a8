"""Friends and blocks, a player's settings (site-wide leaderboard opt-in, time zone, privacy, last time
seen), where they are logged in, and their requests for an export of their data or their account's
deletion."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


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
    # Chat at the table (chat): whether reactions and quick phrases are shown and offered, and whether
    # free text is allowed with players who are not friends (when they allow it too).
    chat_reactions = models.BooleanField(default=True, db_default=True)
    chat_strangers = models.BooleanField(default=False, db_default=False)

    class Challenges(models.TextChoices):
        EVERYONE = "everyone", _("Everyone")
        FRIENDS = "friends", _("Only my friends")
        NOBODY = "nobody", _("Nobody")

    class Audience(models.TextChoices):
        EVERYONE = "everyone", _("Everyone")
        FRIENDS = "friends", _("My friends")
        ME = "me", _("Only me")

    # Who may challenge the person or invite them to a game (accounts.selectors.may_challenge).
    challenges_from = models.CharField(max_length=8, choices=Challenges, default=Challenges.EVERYONE)
    # Who may see their statistics page and, besides the other players, their games (review.stats,
    # dicegame.play.selectors.game_visible). On the site-wide boards (leaderboard_opt_in) is on the
    # person's page for everyone: the one needs the other (the constraint below).
    games_visible_to = models.CharField(max_length=8, choices=Audience, default=Audience.FRIENDS)
    # Others find them by name in the friends' search (a request by their exact name still reaches them).
    findable = models.BooleanField(default=True)
    # Set by staff (fair play's queue of reports): a muted person sends no friend requests, invitations,
    # challenges or chat lines until staff lift it.
    muted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(leaderboard_opt_in=False) | Q(games_visible_to="everyone"),
                name="on_boards_means_visible_to_everyone",
            )
        ]

    def __str__(self):
        return f"Profile of {self.user}"

    def save(self, *args, **kwargs):
        # On the site-wide boards, the person's name links to their page: for everyone to see.
        if self.leaderboard_opt_in:
            self.games_visible_to = self.Audience.EVERYONE
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "games_visible_to"}
        super().save(*args, **kwargs)


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


class Block(models.Model):
    """One person blocked another: the blocked person reaches them no more (accounts.selectors.
    blocked_between), and is never told."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="one_block_per_pair"),
            models.CheckConstraint(condition=~Q(blocker=models.F("blocked")), name="no_block_of_self"),
        ]
        indexes = [models.Index(fields=["blocked", "blocker"])]

    def __str__(self):
        return f"{self.blocker_id} blocks {self.blocked_id}"


class LoginSession(models.Model):
    """A session a person logged in with (its key in the session store, penta.sessions): the sessions
    page lists them, and ends the others. The store cannot be asked for one person's sessions."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_key = models.CharField(max_length=40, unique=True)
    device = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen", "-pk"]
        indexes = [models.Index(fields=["user", "last_seen"])]

    def __str__(self):
        return f"session of {self.user_id} on {self.device or 'a device'}"


class AccountDeletion(models.Model):
    """A person asked for their account to be deleted: at `due_at` (7 days on) the clock erases it,
    unless they logged in before (which cancels it: the row goes). `erased_at`: done."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    requested_at = models.DateTimeField()
    due_at = models.DateTimeField(db_index=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"deletion of {self.user_id} due {self.due_at}"


class DataExport(models.Model):
    """A person's data as one zip (accounts.export), made by the clock off the request path and kept
    for a few days behind a signed link that only they can use."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    requested_at = models.DateTimeField(db_index=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    content = models.BinaryField(null=True, blank=True)
    size = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        indexes = [models.Index(fields=["user", "requested_at"])]

    def __str__(self):
        return f"export {self.pk} of {self.user_id}"
