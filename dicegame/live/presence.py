"""Who is online: a player with an open notification socket (or game socket), kept in the database.

The database (``Profile.last_seen``) is shared by every server process, so presence works with
several daphne processes behind one site. The rules:

- A socket refreshes ``last_seen`` when it opens and on every heartbeat (the page pings every
  ``PING_SECONDS``); a player is online while ``last_seen`` is within ``ONLINE_SECONDS``.
- When a socket closes, ``last_seen`` is moved just past the window (the player shows offline at
  once), and the player's other open sockets are asked, through their ``user_<id>`` group, to
  refresh it straight away (``NotificationConsumer.presence_check``). So a second tab keeps the
  player online; if that message is lost, the next heartbeat (at most ``PING_SECONDS`` later)
  repairs it. A socket that dies without closing (a killed process) stops pinging and the player
  goes offline within ``ONLINE_SECONDS``.

No field is added (Profile has only ``last_seen``), and there is no connection count to drift.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from accounts.models import Profile

ONLINE_SECONDS = 70
PING_SECONDS = 30
# Heartbeats closer together than this do not write to the database again.
MIN_TOUCH_SECONDS = 5


def online_cutoff(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=ONLINE_SECONDS)


def presence_touch(user_id: int) -> None:
    """The user has an open socket now (on connect, and when another socket of theirs closed)."""
    updated = Profile.objects.filter(user_id=user_id).update(last_seen=timezone.now())
    if not updated:
        Profile.objects.update_or_create(user_id=user_id, defaults={"last_seen": timezone.now()})


def presence_heartbeat(user_id: int) -> None:
    """A ping: refresh ``last_seen`` unless it was refreshed a moment ago (cheap against floods)."""
    now = timezone.now()
    stale = Q(last_seen__isnull=True) | Q(last_seen__lt=now - timedelta(seconds=MIN_TOUCH_SECONDS))
    if not Profile.objects.filter(user_id=user_id).filter(stale).update(last_seen=now):
        Profile.objects.get_or_create(user_id=user_id, defaults={"last_seen": now})


def presence_leave(user_id: int) -> None:
    """A socket closed: offline now, unless another open socket refreshes it (see the module doc)."""
    Profile.objects.filter(user_id=user_id).update(last_seen=online_cutoff() - timedelta(seconds=1))


def online_user_ids(user_ids: Iterable[int]) -> set[int]:
    ids = list(user_ids)
    if not ids:
        return set()
    return set(
        Profile.objects.filter(user_id__in=ids, last_seen__gte=online_cutoff()).values_list(
            "user_id", flat=True
        )
    )


def is_online(user_id: int) -> bool:
    return user_id in online_user_ids([user_id])
