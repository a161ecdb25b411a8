"""Reads of a person's notification settings: their devices and their address."""

from __future__ import annotations

from notifications.models import MailSettings, PushSubscription


def devices_of(*, user_id: int) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user_id=user_id))


def mail_of(*, user_id: int) -> MailSettings | None:
    return MailSettings.objects.filter(user_id=user_id).first()
