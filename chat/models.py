"""What is said at a game's table: the players' lines, the spectators' lines, their reports to staff
and staff's time-outs."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from dicegame.models import Game

MAX_LINE = 140


class ChatLine(models.Model):
    class Room(models.TextChoices):
        PLAYERS = "players", _("Players")
        SPECTATORS = "spectators", _("Spectators")

    class Kind(models.TextChoices):
        # Free text; a quick phrase and a reaction are keys (chat.phrases), translated for the reader.
        TEXT = "text", _("Line")
        PHRASE = "phrase", _("Quick phrase")
        REACTION = "reaction", _("Reaction")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    # Null once the sender's account is erased (their text goes with it).
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    room = models.CharField(max_length=10, choices=Room)
    kind = models.CharField(max_length=8, choices=Kind)
    text = models.CharField(max_length=MAX_LINE)
    created_at = models.DateTimeField(db_index=True)
    hidden = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["game", "room", "created_at"], name="chat_line_game_room")]

    def __str__(self) -> str:
        return self.text


class ChatReport(models.Model):
    """One tap on a line: the line, and the lines around it as they were then, for staff's queue."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        HANDLED = "handled", _("Handled")

    line = models.ForeignKey(ChatLine, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    context = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["line", "reporter"], name="chat_report_once_per_reporter"),
        ]

    def __str__(self) -> str:
        return f"#{self.line_id}"


class ChatTimeout(models.Model):
    """Staff silenced a person in every chat until `until` (null: for good), with a reason."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    until = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.reason


class ChatPanic(models.Model):
    """Staff's panic mode, as lichess has it: from `started_at` until `until`, only established accounts
    (chat.selectors.Speaker.established) say free text anywhere; quick phrases and reactions, which are keys,
    stay open to everyone. For a raid of fresh accounts, when time-outs one by one are too slow."""

    started_at = models.DateTimeField()
    until = models.DateTimeField(db_index=True)
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = _("chat panic")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(until__gte=models.F("started_at")), name="chat_panic_ends"
            )
        ]

    def __str__(self) -> str:
        return self.reason
