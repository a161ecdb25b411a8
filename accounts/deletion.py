"""A person's request to delete their account, and its cancelling: the password is asked again, every
session of theirs ends, and for GRACE (7 days) logging in cancels it; then the clock erases the account
(accounts.erasure), whether or not any browser is open."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts import logins
from accounts.models import AccountDeletion

GRACE = timedelta(days=7)


class DeletionError(ValueError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def deletion_request(*, user, password: str) -> AccountDeletion:
    """Ask for the account's deletion, in GRACE from now. The wrong password changes nothing (400). Asked
    twice (two tabs, a double click) it is one request, due when the first said: the person's row lock
    and the one row per account make it so. Every session of the person ends once it is stored."""
    if not password or not user.check_password(password):
        raise DeletionError(_("That is not your password: the account is not deleted."), status=400)
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
        now = timezone.now()
        deletion, created = AccountDeletion.objects.get_or_create(
            user_id=user.pk, defaults={"requested_at": now, "due_at": now + GRACE}
        )
        if not created and deletion.erased_at is None and deletion.due_at < now:
            raise DeletionError(_("This account is being deleted."), status=409)
    # Once stored: every session ends (a failure to store leaves the person logged in).
    logins.end_all(user_id=user.pk)
    return deletion


@transaction.atomic
def deletion_cancel(*, user_id: int) -> bool:
    """Cancel the person's pending deletion (they logged in within the grace period); True if there was
    one. One already due is left to the clock, which takes the person's row lock first."""
    list(get_user_model().objects.select_for_update().filter(pk=user_id).values_list("pk"))
    deleted, _rows = AccountDeletion.objects.filter(
        user_id=user_id, erased_at__isnull=True, due_at__gt=timezone.now()
    ).delete()
    return bool(deleted)


def on_logged_in(sender, request, user, **kwargs) -> None:
    """(user_logged_in) Logging in within the grace period cancels the deletion, and says so."""
    if not AccountDeletion.objects.filter(user_id=user.pk, erased_at__isnull=True).exists():
        return
    if deletion_cancel(user_id=user.pk) and request is not None:
        messages.info(
            request,
            _("Welcome back: you logged in, so your account will not be deleted."),
            fail_silently=True,
        )


def due_date_text(deletion: AccountDeletion) -> str:
    return formats.date_format(timezone.localtime(deletion.due_at), "DATETIME_FORMAT")
