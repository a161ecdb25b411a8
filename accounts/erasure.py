"""Erasing an account at the end of its deletion's grace period, by the clock (`erase_due`), whether or
not any browser is open. What is kept, why and for how long is on the privacy page.

1. Its games in play are left as leaving does (dicegame.play.departure), each under its game's lock.
2. In one transaction under the person's row lock (two clocks, or a second request, find it done):
   the name becomes "deleted-<id>" in the account and in every seat it had, so finished games stay for
   the other players with the seat anonymised (their ratings, records and tournament tables are
   unchanged: they name the seat, not the person); the e-mail address, the password, the sessions, the
   friendships, friend requests and blocks, the notices sent, the two-factor devices, the exports and
   the settings go; then `events.AccountErased` lets every app forget what it keeps (the notifications,
   fair play's signals no open case needs, who sent problem reports, chat lines once chat exists).
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import logins
from accounts.blocks import DELETED_PREFIX
from accounts.models import (
    AccountDeletion,
    Block,
    DataExport,
    FriendRequest,
    Friendship,
    LoginSession,
    Profile,
    SentNotice,
)
from core import versions
from dicegame import events
from dicegame.models import Invitation, Player, SeatLink
from dicegame.play import departure

logger = logging.getLogger(__name__)

ERASE_EVERY_SECONDS = 60.0
ERASE_BATCH = 20


def erase_due(now=None) -> int:
    """Erase the accounts whose deletion is due (at most ERASE_BATCH a sweep); returns 0 (no game is
    counted as changed: leaving announces its own)."""
    now = now or timezone.now()
    due = AccountDeletion.objects.filter(erased_at__isnull=True, due_at__lte=now).order_by("due_at", "pk")
    for user_id in list(due.values_list("user_id", flat=True)[:ERASE_BATCH]):
        try:
            erase(user_id=user_id, now=now)
        except Exception:  # one account's failure must not stop the others; the next sweep tries again
            logger.exception("account %s not erased", user_id)
    return 0


def deleted_name(user_id: int) -> str:
    return f"{DELETED_PREFIX}{user_id}"


def erase(*, user_id: int, now=None) -> bool:
    """Erase the account if its deletion is due and not done; True if this call erased it."""
    now = now or timezone.now()
    users = get_user_model().objects
    user = users.filter(pk=user_id).first()
    if user is None or not _due(user_id, now):
        return False
    departure.leave_all(user_id=user_id, name=user.get_username())
    with transaction.atomic():
        user = users.select_for_update().filter(pk=user_id).first()
        deletion = AccountDeletion.objects.select_for_update().filter(user_id=user_id).first()
        if user is None or deletion is None or deletion.erased_at is not None or deletion.due_at > now:
            return False  # done by another clock, or cancelled by a login at the last moment
        if departure.games_in_play_of(user_id).filter(game__status="active").exists():
            return False  # a rematch started meanwhile: the next sweep leaves it first
        _anonymise(user)
        sessions = _forget(user_id)
        events.publish(events.AccountErased(user_id))
        deletion.erased_at = now
        deletion.save(update_fields=["erased_at"])
        versions.bump(versions.user(user_id), versions.PEOPLE)
    # After the commit (the password is unusable already: Django's session hash refuses them anyway).
    logins.end(sessions)
    return True


def _due(user_id: int, now) -> bool:
    return AccountDeletion.objects.filter(user_id=user_id, erased_at__isnull=True, due_at__lte=now).exists()


def _anonymise(user) -> None:
    name = deleted_name(user.pk)
    user.username = name
    user.email = ""
    user.first_name = user.last_name = ""
    user.is_active = user.is_staff = user.is_superuser = False
    user.set_unusable_password()
    user.save()
    # Their seats: the other players' games show "deleted-<id>" where the name was.
    Player.objects.filter(user_id=user.pk).update(name=name, guest_key="")


def _forget(user_id: int) -> list[str]:
    people = Q(user_low_id=user_id) | Q(user_high_id=user_id)
    Friendship.objects.filter(people).delete()
    FriendRequest.objects.filter(Q(from_user_id=user_id) | Q(to_user_id=user_id)).delete()
    Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).delete()
    SentNotice.objects.filter(Q(sender_id=user_id) | Q(recipient_id=user_id)).delete()
    Invitation.objects.filter(
        Q(from_user_id=user_id) | Q(to_user_id=user_id), status=Invitation.Status.PENDING
    ).delete()
    SeatLink.objects.filter(Q(from_user_id=user_id) | Q(to_user_id=user_id), status="pending").delete()
    DataExport.objects.filter(user_id=user_id).delete()
    _forget_two_factor(user_id)
    # The settings go; the standing stays (fair play's decision on the account, kept while its case is).
    Profile.objects.filter(user_id=user_id).update(
        leaderboard_opt_in=False,
        games_visible_to=Profile.Audience.FRIENDS,
        challenges_from=Profile.Challenges.EVERYONE,
        findable=False,
        time_zone="",
        last_seen=None,
    )
    return list(LoginSession.objects.filter(user_id=user_id).values_list("session_key", flat=True))


def _forget_two_factor(user_id: int) -> None:
    TOTPDevice.objects.filter(user_id=user_id).delete()
    StaticDevice.objects.filter(user_id=user_id).delete()
