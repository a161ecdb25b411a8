"""Who holds which socket, on which server process.

Presence must not depend on a socket closing cleanly: a process that is killed runs no disconnect
handler. So every socket is a `Connection` row owned by its `ServerProcess`, and every process beats
(`presence`); the clock sweeps the connections of a process that stopped beating, and the seats they
held count as gone from the moment of the process's last beat."""

from django.conf import settings
from django.db import models


class ServerProcess(models.Model):
    id = models.CharField(primary_key=True, max_length=32)
    host = models.CharField(max_length=255, blank=True)
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    beat_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"process {self.id} ({self.host}:{self.pid})"


class Connection(models.Model):
    class Kind(models.TextChoices):
        GAME = "game", "game"
        NOTICES = "notices", "notices"

    channel_name = models.CharField(primary_key=True, max_length=200)
    process = models.ForeignKey(ServerProcess, on_delete=models.CASCADE, related_name="connections")
    kind = models.CharField(max_length=8, choices=Kind)
    # Who opened it, for the cap on sockets per person: "user:<id>", "guest:<key>" or "ip:<address>".
    identity = models.CharField(max_length=100, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    game = models.ForeignKey(
        "dicegame.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="connections"
    )
    # The seat this screen plays (empty: a spectator, or the notification socket).
    player = models.ForeignKey(
        "dicegame.Player", null=True, blank=True, on_delete=models.CASCADE, related_name="connections"
    )
    language = models.CharField(max_length=8)
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind"]), models.Index(fields=["game", "player"])]

    def __str__(self):
        return f"{self.kind} socket {self.channel_name} of {self.identity}"
