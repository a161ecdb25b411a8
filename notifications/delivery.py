"""What every queued notification's sending shares: its outcome written (sent, skipped, failed), a retry
after a transient failure, and a Web Push to each of the person's devices not reached yet."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.utils import translation

from core import metrics
from notifications import push
from notifications.models import Notification, PushDelivery, PushSubscription

logger = logging.getLogger(__name__)

# The pause after each transient failure in a row; after the last, the notification is given up.
RETRY_SECONDS = (30, 120, 600, 3600)
PUSHED = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER, Notification.Kind.CHALLENGE)


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


def push_to_devices(notification: Notification, payload: Callable[[], dict], *, ttl: int, now) -> int:
    """Push `payload()` (made in each device's language) to every device of the person this
    notification has not reached yet; write what came of it, and the notification's outcome (a retry
    if any device failed for now). Returns 1 if it reached a device."""
    errors, reached, gone = [], [], []
    delivered = set(notification.deliveries.values_list("subscription_id", flat=True))
    for device in PushSubscription.objects.filter(user_id=notification.user_id).exclude(pk__in=delivered):
        with translation.override(device.language):
            message = payload()
        outcome = push.send(device, message, ttl=ttl)
        if outcome.gone:
            gone.append(device.pk)
        elif outcome.delivered:
            reached.append(device.pk)
        else:
            errors.append(outcome.error)
    # What the pushes did, written at once (one commit, not one per device). A sender that dies before
    # it sends again when its claim lapses: the device shows one notification per game (its tag).
    with transaction.atomic():
        PushSubscription.objects.filter(pk__in=gone).delete()
        PushDelivery.objects.bulk_create(
            [PushDelivery(notification=notification, subscription_id=pk) for pk in reached],
            ignore_conflicts=True,
        )
        PushSubscription.objects.filter(pk__in=reached).update(last_sent_at=now)
        delivered.update(reached)
        if errors:
            retry(notification, now, "; ".join(errors))
            return 0
        # Sent: pushed to a device. Without one (none, or every one gone) only the open pages were told.
        done(notification, Notification.State.SENT if delivered else Notification.State.SKIPPED, now)
    return 1 if delivered else 0
