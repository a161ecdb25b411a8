"""What every queued notification's sending shares: its outcome written (sent, skipped, failed), counted
in the metrics, and a retry after a transient failure. (The pushes themselves: `pushing`.)"""

from __future__ import annotations

import logging
from datetime import timedelta

from core import metrics
from notifications.models import Notification

logger = logging.getLogger(__name__)

# The pause after each transient failure in a row; after the last, the notification is given up.
RETRY_SECONDS = (30, 120, 600, 3600)
PUSHED = (
    Notification.Kind.YOUR_TURN,
    Notification.Kind.REMINDER,
    Notification.Kind.CHALLENGE,
    Notification.Kind.CHAT,
)


def done(notification: Notification, state: str, now) -> None:
    Notification.objects.filter(pk=notification.pk).update(state=state, sent_at=now, claimed_until=None)
    count(notification, state)


def count(notification: Notification, outcome: str) -> None:
    metrics.NOTIFICATIONS.labels("push" if notification.kind in PUSHED else "mail", outcome).inc()


def retry(notification: Notification, now, error: str) -> None:
    attempts = notification.attempts + 1
    if attempts > len(RETRY_SECONDS):
        Notification.objects.filter(pk=notification.pk).update(
            state=Notification.State.FAILED, attempts=attempts, error=error[:300], claimed_until=None
        )
        logger.warning("notification %s given up after %d attempts: %s", notification.pk, attempts, error)
        count(notification, Notification.State.FAILED)
        return
    count(notification, "retry")
    Notification.objects.filter(pk=notification.pk).update(
        attempts=attempts,
        due_at=now + timedelta(seconds=RETRY_SECONDS[attempts - 1]),
        error=error[:300],
        claimed_until=None,
    )
