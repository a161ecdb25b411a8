"""Writes about who reaches whom: blocking and unblocking a person, a person's privacy choices, and what
staff do to an account on a report (rename an offensive name, mute, close).

A block is silent: the blocked person is told nothing, and whatever they try answers as if the other
person were unavailable (accounts.selectors.may_challenge, blocked_between). Blocking ends a friendship
and the friend requests between the two; games in play go on, and either may leave them without a
rating loss against the other (ratings.services).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import logins
from accounts.models import Block, FriendRequest, Friendship, Profile
from accounts.services import lock_people
from core import versions
from dicegame.models import Player

# The names erased accounts take ("deleted-<id>", accounts.erasure): nobody else may have one.
DELETED_PREFIX = "deleted-"


class BlockError(ValueError):
    """A refused block or setting: ``message`` for the person, ``status`` the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def _person(username: str):
    username = (username or "").strip()
    if not username:
        raise BlockError(_("Type the name of the player you want to block."), status=400)
    found = get_user_model().objects.filter(is_active=True, username=username).first()
    if found is None:
        raise BlockError(_("There is no player called %(name)s.") % {"name": username[:150]}, status=404)
    return found


@transaction.atomic
def block_add(*, user, username: str) -> Block:
    """Block a person (by their exact name): their friendship with the person ends, the friend requests
    between the two are answered no (neither is told), and from now on neither reaches the other.
    Blocking someone already blocked changes nothing."""
    other = _person(username)
    if other.pk == user.pk:
        raise BlockError(_("You cannot block yourself."), status=400)
    lock_people((user.pk, other.pk))
    block, _created = Block.objects.get_or_create(blocker_id=user.pk, blocked_id=other.pk)
    low, high = sorted((user.pk, other.pk))
    Friendship.objects.filter(user_low_id=low, user_high_id=high).delete()
    FriendRequest.objects.filter(
        Q(from_user_id=user.pk, to_user_id=other.pk) | Q(from_user_id=other.pk, to_user_id=user.pk),
        status=FriendRequest.Status.PENDING,
    ).update(status=FriendRequest.Status.DECLINED, answered_at=timezone.now())
    # The friends' boards of both show one person fewer.
    versions.bump(versions.user(user.pk), versions.user(other.pk))
    block.blocked = other
    return block


@transaction.atomic
def block_remove(*, user, block_id: int):
    """Unblock (the person is not told; a friendship that ended stays ended). Returns the person."""
    block = Block.objects.select_related("blocked").filter(pk=block_id, blocker_id=user.pk).first()
    if block is None:
        raise BlockError(_("You have not blocked that player."), status=404)
    block.delete()
    return block.blocked


@transaction.atomic
def privacy_set(*, user, challenges_from: str, games_visible_to: str, findable: bool) -> Profile:
    """The person's privacy choices. An unknown choice is refused (400) and nothing changes. Hiding one's
    games from everyone takes one off the site-wide boards (their names link to one's page)."""
    if challenges_from not in Profile.Challenges.values:
        raise BlockError(_("Choose who may challenge you from the list."), status=400)
    if games_visible_to not in Profile.Audience.values:
        raise BlockError(_("Choose who may see your games from the list."), status=400)
    profile, _created = Profile.objects.select_for_update().get_or_create(user=user)
    profile.challenges_from = challenges_from
    profile.findable = findable
    left_boards = profile.leaderboard_opt_in and games_visible_to != Profile.Audience.EVERYONE
    profile.games_visible_to = games_visible_to
    if left_boards:
        profile.leaderboard_opt_in = False
    profile.save()
    versions.bump(versions.user(user.pk), *([versions.PEOPLE] if left_boards else []))
    return profile


# -- staff, on a report --------------------------------------------------------------------------------


@transaction.atomic
def account_mute(*, user_id: int, on: bool) -> bool:
    """Mute (or unmute) an account: muted, it sends no friend requests, invitations, challenges or chat
    lines (accounts.services.notice_quota_take, accounts.selectors.may_contact)."""
    profile, _created = Profile.objects.select_for_update().get_or_create(user_id=user_id)
    profile.muted_at = timezone.now() if on else None
    profile.save(update_fields=["muted_at"])
    return on


def check_new_name(name: str, *, user_id: int | None = None) -> str:
    """A name an account may take: a valid username, not another's (in any case), not an erased
    account's ("deleted-..."). Refused with its reason (BlockError, 400 or 409)."""
    name = (name or "").strip()
    users = get_user_model()
    max_length = users._meta.get_field(users.USERNAME_FIELD).max_length
    if not name or len(name) > max_length:
        raise BlockError(_("A name has 1 to %(n)d characters.") % {"n": max_length}, status=400)
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError as exc:
        raise BlockError(" ".join(exc.messages), status=400) from None
    if name.lower().startswith(DELETED_PREFIX):
        raise BlockError(_("Names beginning with “deleted-” are kept for deleted accounts."), status=400)
    if users.objects.filter(username__iexact=name).exclude(pk=user_id).exists():
        raise BlockError(_("That name is taken."), status=409)
    return name


def account_rename(*, user_id: int, name: str) -> str:
    """Staff give an account a new name (an offensive one goes): its seats in every game show it too
    (a seat keeps the name it was taken with). A name taken meanwhile is refused (409)."""
    name = check_new_name(name, user_id=user_id)
    try:
        with transaction.atomic():
            updated = get_user_model().objects.filter(pk=user_id).update(username=name)
            if not updated:
                raise BlockError(_("There is no such account."), status=404)
            Player.objects.filter(user_id=user_id).update(name=name)
            versions.bump(versions.user(user_id), versions.PEOPLE)
    except IntegrityError:
        raise BlockError(_("That name is taken."), status=409) from None
    return name


def account_close(*, user_id: int) -> None:
    """Staff close an account: it can no longer log in, and every session of it ends now."""
    with transaction.atomic():
        get_user_model().objects.filter(pk=user_id).update(is_active=False)
        versions.bump(versions.user(user_id), versions.PEOPLE)
    logins.end_all(user_id=user_id)
