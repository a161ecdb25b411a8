"""A person's account and their mail: "forgot password" (a reset link to a confirmed address), and an
erased account's devices, address and queue forgotten.

A reset is asked for by typing an address. The page answers the same, in the same time, whether or not
any account has that address: the request only counts it (per address and per client, in the cache:
accounts.throttle.take) and queues one Notification with the address typed, in one insert either way.
The clock's sweep (services.send_due) then finds the accounts whose confirmed address it is and mails
each a link (Django's password reset token, which the new password spends); for an address nobody
confirmed it sends nothing. The address typed is kept at most a day (`forget_old_resets`).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.throttle import client_key, take
from dicegame import events
from dicegame.errors import GameActionError
from notifications.addresses import clean_address, recipient_key
from notifications.models import MailSettings, Notification, PushSubscription

FORGET_RESETS_EVERY_SECONDS = 3600.0
RESET_KEPT = timedelta(days=1)


def _site_url(path: str) -> str:
    return settings.PENTA_SITE_URL.rstrip("/") + path


def password_reset_ask(*, address: str, client: str | None) -> None:
    """Someone typed `address` on "forgot password": counted, then queued for the sweep. Refused (400:
    not an address; 429: too many for this address, or from this client, lately, whatever the address)
    with nothing queued. Nothing here reads whether the address has an account."""
    address = clean_address(address, digest=True)
    window = settings.PENTA_RESET_WINDOW_SECONDS
    counts = [(f"penta:resets:to:{recipient_key(address)}", settings.PENTA_RESETS_PER_RECIPIENT)]
    counts.append((f"penta:resets:client:{client_key(client)}", settings.PENTA_RESETS_PER_CLIENT))
    refused = take(counts, window)
    if refused is not None:
        minutes = max(1, round(window / 60))
        raise GameActionError(
            _("Too many password resets were asked for lately: try again in %(minutes)d minutes.")
            % {"minutes": minutes},
            status=429,
        )
    Notification.objects.create(kind=Notification.Kind.RESET, address=address, due_at=timezone.now())


def reset_accounts(address: str):
    """The accounts that may reset their password through `address`: active, with a password, and this
    address confirmed (any case) as theirs."""
    mails = (
        MailSettings.objects.filter(address__iexact=address, confirmed_at__isnull=False, user__is_active=True)
        .select_related("user")
        .order_by("user_id")
    )
    return [m for m in mails if m.user.has_usable_password()]


def reset_mail(notification: Notification, now) -> EmailMultiAlternatives | None:
    """The mail for a reset asked for (sent by services.send_due): one link per account of the address,
    in the language of the first (the address's own setting). None when the address is nobody's."""
    found = reset_accounts(notification.address)
    if not found:
        return None
    accounts = []
    for mail in found:
        user = mail.user
        path = reverse(
            "accounts:password_reset_confirm",
            args=[urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)],
        )
        accounts.append({"name": user.get_username(), "url": _site_url(path)})
    hours = max(1, round(settings.PASSWORD_RESET_TIMEOUT / 3600))
    with translation.override(found[0].language):
        context = {"accounts": accounts, "hours": hours}
        message = EmailMultiAlternatives(
            subject=_("Penta: a new password"),
            body=render_to_string("notifications/email/reset.txt", context),
            to=[found[0].address],
        )
        message.attach_alternative(render_to_string("notifications/email/reset.html", context), "text/html")
    return message


def forget_old_resets(now=None) -> int:
    """(The clock) The addresses typed for resets go after a day, sent or not."""
    now = now or timezone.now()
    Notification.objects.filter(kind=Notification.Kind.RESET, created_at__lt=now - RESET_KEPT).delete()
    return 0


def on_account_erased(event: events.AccountErased) -> None:
    """An erased account: its devices, its address and whatever was queued for it go (inside the
    erasing transaction)."""
    PushSubscription.objects.filter(user_id=event.user_id).delete()
    MailSettings.objects.filter(user_id=event.user_id).delete()
    Notification.objects.filter(user_id=event.user_id).delete()
