"""Sending one Web Push message to one device: the payload encrypted to the device's keys (pywebpush's
encoder, aes128gcm), signed with the server's VAPID key (py_vapid), and POSTed by `transport` to an
address `endpoints` allows, within PENTA_PUSH_TIMEOUT_SECONDS in all."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from pywebpush import WebPusher

from notifications import endpoints, transport
from notifications.models import PushSubscription
from notifications.vapid import vapid

logger = logging.getLogger(__name__)

# The push service answers these for a subscription that no longer exists: it is removed.
GONE = (404, 410)
VAPID_HOURS = 12  # how long a request's signature is good for (RFC 8292 allows 24)


@dataclass(frozen=True)
class Outcome:
    delivered: bool = False
    gone: bool = False  # the device unsubscribed (404 or 410): forget it
    error: str = ""  # a failure of this device: try again later


@dataclass(frozen=True)
class Message:
    """A push ready to go: encrypted and signed (CPU work, done in the sweep's thread), to be delivered
    (network only: a sender's thread waits on it, without holding the interpreter)."""

    device: int
    endpoint: endpoints.Endpoint
    body: bytes
    headers: dict[str, str]


def send(subscription: PushSubscription, payload: dict, *, ttl: int) -> Outcome:
    """POST the encrypted payload to the device's push service; `ttl`: seconds it may keep it."""
    message = prepare(subscription, payload, ttl=ttl)
    return message if isinstance(message, Outcome) else deliver(message)


def prepare(subscription: PushSubscription, payload: dict, *, ttl: int) -> Message | Outcome:
    """The message for the device, or the outcome already known (no key, an endpoint not allowed, keys
    nothing can be encrypted to). Never raises: one device's failure must not cost the others theirs."""
    try:
        return _prepare(subscription, payload, ttl)
    except Exception as exc:
        logger.exception("push to device %s failed", subscription.pk)
        return Outcome(error=f"push failed: {type(exc).__name__}: {str(exc)[:200]}")


def _prepare(subscription: PushSubscription, payload: dict, ttl: int) -> Message | Outcome:
    keys = vapid()
    if keys is None:
        return Outcome(error="Web Push is off (no VAPID key)")
    try:
        # Checked again: the rules may be stricter than when it was stored.
        endpoint = endpoints.check(subscription.endpoint)
    except endpoints.EndpointRefused as exc:
        return Outcome(error=f"push address not allowed ({exc.kind})")
    keys_of_device = {"p256dh": subscription.p256dh, "auth": subscription.auth}
    info = {"endpoint": subscription.endpoint, "keys": keys_of_device}
    try:
        body = WebPusher(info).encode(json.dumps(payload).encode(), "aes128gcm")["body"]
    except ValueError as exc:  # nothing can be encrypted to this device's keys: it is of no use
        logger.warning("device %s dropped: its keys cannot be used (%s)", subscription.pk, exc)
        return Outcome(gone=True)
    claims = {
        "aud": endpoint.origin,
        "sub": settings.PENTA_VAPID_SUBJECT,
        "exp": int(time.time()) + VAPID_HOURS * 3600,
    }
    headers = {"TTL": str(ttl), "Content-Encoding": "aes128gcm", **keys.sign(claims)}
    return Message(subscription.pk, endpoint, body, headers)


def deliver(message: Message) -> Outcome:
    """POST the message within PENTA_PUSH_TIMEOUT_SECONDS. Never raises."""
    try:
        status = transport.post(
            message.endpoint, message.body, message.headers, timeout=settings.PENTA_PUSH_TIMEOUT_SECONDS
        )
    except endpoints.EndpointRefused as exc:
        # Resolved to an address that is not allowed: nothing was sent. A failure, never "gone", which
        # would tell the person whether something answers there.
        return Outcome(error=f"push address not allowed ({exc.kind})")
    except OSError as exc:  # not found, refused, timed out, reset, a bad certificate, a garbled answer
        return Outcome(error=f"push service unreachable: {type(exc).__name__}: {str(exc)[:200]}")
    except Exception as exc:
        logger.exception("push to device %s failed", message.device)
        return Outcome(error=f"push failed: {type(exc).__name__}: {str(exc)[:200]}")
    if 200 <= status < 300:
        return Outcome(delivered=True)
    if status in GONE:
        return Outcome(gone=True)
    # A redirect (3xx) too: it is never followed.
    return Outcome(error=f"push service answered {status}")
