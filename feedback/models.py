"""Problem reports: what a player wrote, and where they were when they wrote it."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

MESSAGE_MAX_LENGTH = 2000


class Report(models.Model):
    """A "Report a problem" form as submitted. The context (page, game and its version, language,
    browser) is filled in by the server from the link and the request, not typed by the reporter."""

    class Status(models.TextChoices):
        NEW = "new", _("New")
        SEEN = "seen", _("Seen")
        FIXED = "fixed", _("Fixed")

    message = models.TextField(max_length=MESSAGE_MAX_LENGTH)
    email = models.EmailField(blank=True, help_text="a guest's address for an answer (optional)")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    guest_key = models.CharField(max_length=64, blank=True)
    client_address = models.GenericIPAddressField(null=True, blank=True)
    page = models.CharField(max_length=300, blank=True)
    # Only a game the reporter could see is kept (anything else in the link is dropped).
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    game_version = models.PositiveIntegerField(null=True, blank=True)
    language = models.CharField(max_length=16, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=8, choices=Status, default=Status.NEW, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"Report {self.pk} ({self.get_status_display()})"
