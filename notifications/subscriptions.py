"""A person's devices for Web Push: a browser's subscription kept (its endpoint checked by `endpoints`, its
keys by what they must be) or removed. Called through `services`."""

from __future__ import annotations

import base64
import binascii

from cryptography.hazmat.primitives.asymmetric import ec
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from dicegame.errors import GameActionError
from notifications import endpoints
from notifications.models import PushSubscription

DEVICES_MAX = 10


def _key_bytes(value: str, size: int, refusal: str) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise GameActionError(refusal, status=400)
    return raw


def _check_device_key(p256dh: str) -> None:
    """The browser's key is a point of P-256: nothing could ever be encrypted to anything else."""
    refusal = _("This device's key is not valid.")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _key_bytes(p256dh, 65, refusal))
    except ValueError:
        raise GameActionError(refusal, status=400) from None


def push_subscribe(
    *, user, endpoint: str, p256dh: str, auth: str, label: str, language: str
) -> PushSubscription:
    """A device of the person (its browser's push endpoint and keys); the same device again updates it.
    One device belongs to one person: a shared browser follows whoever subscribed last."""
    try:
        # Only a public https address: the clock POSTs to it from inside the network (endpoints).
        endpoints.check_to_store(endpoint)
    except endpoints.EndpointRefused as exc:
        raise GameActionError(exc.message, status=400) from None
    _check_device_key(p256dh)
    _key_bytes(auth, 16, _("This device's secret is not valid."))
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
        existing = PushSubscription.objects.filter(endpoint=endpoint).first()
        if existing is None and PushSubscription.objects.filter(user=user).count() >= DEVICES_MAX:
            raise GameActionError(
                _("At most %(n)d devices get notifications: remove one first.") % {"n": DEVICES_MAX},
                status=409,
            )
        device, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": user,
                "p256dh": p256dh,
                "auth": auth,
                "label": label[:200],
                "language": language,
            },
        )
    return device


def push_unsubscribe(*, user, device_id: int) -> None:
    deleted, _rows = PushSubscription.objects.filter(user=user, pk=device_id).delete()
    if not deleted:
        raise GameActionError(_("There is no such device."), status=404)
