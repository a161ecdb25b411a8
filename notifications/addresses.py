"""An address typed for the daily digest (notifications.services.mail_address_set): whether it is one the
site takes."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from dicegame.errors import GameActionError
from notifications.models import MailSettings

ADDRESS_MAX_LENGTH = MailSettings._meta.get_field("address").max_length  # 254, RFC 5321's path limit


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
