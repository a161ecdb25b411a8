"""An address typed for the daily digest (notifications.services.mail_address_set): whether it is one the
site takes, and the confirmation mails that may go to it. A confirmation goes to an address nobody has
confirmed yet, on the word of whoever typed it: besides a person's own cap, the mails one recipient gets
and one client asks for are capped (PENTA_CONFIRMATIONS_PER_RECIPIENT, PENTA_CONFIRMATIONS_PER_CLIENT),
and the mail does not name the person who asked (a name they chose, "Your bank", would be theirs to
write in a mail from this site to a stranger)."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.throttle import client_key, take
from dicegame.errors import GameActionError
from notifications.models import MailSettings, Notification

ADDRESS_MAX_LENGTH = MailSettings._meta.get_field("address").max_length  # 254, RFC 5321's path limit
CONFIRMATION_WINDOW_SECONDS = 24 * 3600  # the caps per recipient and per client (settings) count a day


def clean_address(address: str, digest: bool) -> str:
    """The address as typed, without the spaces around it; a refused one answers 400 with its reason.
    Django's validator takes up to 320 characters, the column holds 254 (longer was a 500 on PostgreSQL,
    a DataError)."""
    address = (address or "").strip()
    if len(address) > ADDRESS_MAX_LENGTH:
        raise GameActionError(
            _("That address is too long: an e-mail address has at most %(n)d characters.")
            % {"n": ADDRESS_MAX_LENGTH},
            status=400,
        )
    if address:
        try:
            validate_email(address)
        except ValidationError:
            raise GameActionError(_("That is not an e-mail address."), status=400) from None
    elif digest:
        raise GameActionError(_("The digest needs an address to go to."), status=400)
    return address


def recipient_key(address: str) -> str:
    """One mailbox however it is written: any case, any "+tag" (a hash: no address in a cache key)."""
    local, _at, domain = address.lower().rpartition("@")
    mailbox = f"{local.split('+', 1)[0]}@{domain}"
    return "penta:confirmations:to:" + hashlib.sha256(mailbox.encode()).hexdigest()


def confirmation_take(*, user_id: int, address: str, client: str | None, per_person: int) -> None:
    """Count one confirmation mail from the person to `address`, asked for by `client`, or refuse it
    (429) and count nothing: `per_person` a day from one person (counted in its rows, under the person's
    row lock the caller holds), and PENTA_CONFIRMATIONS_PER_RECIPIENT to one mailbox, whoever asks, and
    PENTA_CONFIRMATIONS_PER_CLIENT from one client a day (eight new accounts sent 24 mails to one
    address in 4 s), in atomic counts in the cache (accounts.throttle.take): a burst cannot pass."""
    recent = Notification.objects.filter(
        user_id=user_id, kind=Notification.Kind.CONFIRM, created_at__gte=timezone.now() - timedelta(days=1)
    ).count()
    if recent >= per_person:
        raise GameActionError(
            _("Too many confirmation mails today: try again tomorrow, or use the last one sent."), status=429
        )
    counts = [(recipient_key(address), settings.PENTA_CONFIRMATIONS_PER_RECIPIENT)]
    if client is not None:
        counts.append(
            (f"penta:confirmations:client:{client_key(client)}", settings.PENTA_CONFIRMATIONS_PER_CLIENT)
        )
    refused = take(counts, CONFIRMATION_WINDOW_SECONDS)
    if refused == 0:
        raise GameActionError(
            _("Too many confirmation mails have gone to this address today: try again tomorrow."),
            status=429,
        )
    if refused == 1:
        raise GameActionError(
            _("Too many confirmation mails were asked for from your address today: try again tomorrow."),
            status=429,
        )
