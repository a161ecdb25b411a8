"""Sending one Web Push message to one device (pywebpush: the payload encrypted to the device's keys,
aes128gcm, signed with the server's VAPID key)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from django.conf import settings
from pywebpush import WebPushException, webpush
from requests import RequestException

from notifications.models import PushSubscription
from notifications.vapid import vapid

logger = logging.getLogger(__name__)

# The push service answers these for a subscription that no longer exists: it is removed.
GONE = (404, 410)


@dataclass(frozen=True)
class Outcome:
    delivered: bool = False
    gone: bool = False  # the device unsubscribed (404 or 410): forget it
    error: str = ""  # a transient failure: try again later


def send(subscription: PushSubscription, payload: dict, *, ttl: int) -> Outcome:
    """POST the encrypted payload to the device's push service; `ttl`: seconds it may keep it."""
    keys = vapid()
    if keys is None:
        return Outcome(error="Web Push is off (no VAPID key)")
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    try:
        webpush(
            subscription_info=info,
            data=json.dumps(payload),
            vapid_private_key=keys,
            vapid_claims={"sub": settings.PENTA_VAPID_SUBJECT},
            ttl=ttl,
            content_encoding="aes128gcm",
            timeout=settings.PENTA_PUSH_TIMEOUT_SECONDS,
        )
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in GONE:
            return Outcome(gone=True)
        return Outcome(error=f"push service answered {status}: {str(exc)[:200]}")
    except (RequestException, OSError) as exc:  # unreachable, timed out, refused
        return Outcome(error=f"push service unreachable: {type(exc).__name__}: {str(exc)[:200]}")
    except ValueError as exc:  # nothing can be encrypted to this device's keys: it is of no use
        logger.warning("device %s dropped: its keys cannot be used (%s)", subscription.pk, exc)
        return Outcome(gone=True)
    except Exception as exc:  # one device's failure must not cost the person's other devices theirs
        logger.exception("push to device %s failed", subscription.pk)
        return Outcome(error=f"push failed: {type(exc).__name__}: {str(exc)[:200]}")
    return Outcome(delivered=True)
