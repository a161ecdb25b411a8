"""Account writes: sign-up (throttled per client address), friends (requests, answers, removal), the
limits on the notices one person makes the site send others, and a person's settings."""

import contextlib
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts import throttle
from accounts.models import Block, FriendRequest, Friendship, Profile, SentNotice
from accounts.selectors import (
    CACHE_DOWN,
    TIME_ZONE_CACHE_SECONDS,
    TIME_ZONE_MAX_LENGTH,
    blocked_between,
    is_muted,
    time_zone_cache_key,
    valid_time_zone,
)
from core import versions
from dicegame import events

# -- signing up -------------------------------------------------------------------------------------------


class SignupRefused(Exception):
    """Too many sign-ups from the client's address lately (429): ``message`` says so."""

    def __init__(self, message: str, status: int = 429):
        super().__init__(message)
        self.message = message
        self.status = status


def account_create(*, form, address: str | None):
    """The account of a valid sign-up form (accounts.forms.SignupForm), counted against the client's
    address (accounts.throttle.client_address): past PENTA_SIGNUPS_PER_ADDRESS within
    PENTA_SIGNUP_WINDOW_SECONDS it is refused (SignupRefused) and nothing is made. Counted before the
    account is made, in one atomic step, so sign-ups sent at once cannot all pass; one that makes nothing
    after all (another took the name: None, the form has the error) gives its count back."""
    key = f"penta:signups:{throttle.client_key(address)}"
    window = settings.PENTA_SIGNUP_WINDOW_SECONDS
    if throttle.take([(key, settings.PENTA_SIGNUPS_PER_ADDRESS)], window) is not None:
        minutes = max(1, round(window / 60))
        raise SignupRefused(
            ngettext(
                "Too many new accounts from your address: at most %(n)d can be made in %(minutes)d "
                "minute. Try again later.",
                "Too many new accounts from your address: at most %(n)d can be made in %(minutes)d "
                "minutes. Try again later.",
                minutes,
            )
            % {"n": settings.PENTA_SIGNUPS_PER_ADDRESS, "minutes": minutes}
        )
    user = None
    try:
        user = form.save_unless_taken()
    finally:
        if user is None:
            throttle.give_back(key)
    return user


# -- notices one person sends another ---------------------------------------------------------------

# A friend request the addressee declined is not sent to them again before this long.
ASK_AGAIN_AFTER = timedelta(days=7)
NOTICE_WINDOW = timedelta(hours=1)


class NoticeLimited(Exception):
    """Too many notices from one person lately (429): ``message`` says so."""

    def __init__(self, message: str, status: int = 429):
        super().__init__(message)
        self.message = message
        self.status = status


def notice_quota_take(*, sender_id: int, recipient_id: int, recipient_name: str, kind: str) -> None:
    """Count one notice from `sender_id` to `recipient_id` (a friend request, an invitation, a column
    offered: SentNotice.Kind) against the sender's limits, or refuse it: PENTA_NOTICES_PER_HOUR in all
    and PENTA_NOTICES_PER_PERSON_HOUR to one person, within the last hour. Call it inside the
    transaction that sends the notice: the sender's row lock makes the check and the count one step (a
    burst sent at once cannot pass the limit), and a refused or failed send counts nothing."""
    list(get_user_model().objects.select_for_update().filter(pk=sender_id).values_list("pk"))
    if is_muted(sender_id):
        raise NoticeLimited(
            _("Your account is muted by the site's staff: you cannot send friend requests or invitations."),
            status=403,
        )
    now = timezone.now()
    # The sender's notices that no longer count go (the table holds at most an hour of anybody's).
    SentNotice.objects.filter(sender_id=sender_id, created_at__lte=now - NOTICE_WINDOW).delete()
    recent = SentNotice.objects.filter(sender_id=sender_id, created_at__gt=now - NOTICE_WINDOW)
    if recent.count() >= settings.PENTA_NOTICES_PER_HOUR:
        raise NoticeLimited(
            _(
                "You have sent %(n)d friend requests, invitations and offers in the last hour: wait a "
                "while before you send more."
            )
            % {"n": settings.PENTA_NOTICES_PER_HOUR}
        )
    if recent.filter(recipient_id=recipient_id).count() >= settings.PENTA_NOTICES_PER_PERSON_HOUR:
        raise NoticeLimited(
            _(
                "You have sent %(name)s %(n)d friend requests, invitations or offers in the last hour: "
                "wait a while before you send another."
            )
            % {"name": recipient_name, "n": settings.PENTA_NOTICES_PER_PERSON_HOUR}
        )
    SentNotice.objects.create(sender_id=sender_id, recipient_id=recipient_id, kind=kind, created_at=now)


# -- friends -------------------------------------------------------------------------------------------


class FriendError(ValueError):
    """A refused friends action: ``message`` for the player, ``status`` the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def lock_people(user_ids: Iterable[int | None]) -> None:
    """Take several people's row locks (inside a transaction) in one statement, in user-id order. Every
    transaction that locks more than one person's row takes them this way (the ratings lock their rows in
    user-id order too): two that lock the same people then wait for each other instead of each holding
    one row the other wants (a deadlock, a 500; locked in seat order, two rematches of the same two
    people in opposite seats deadlocked). SQLite locks the whole database at BEGIN."""
    ids = sorted({uid for uid in user_ids if uid is not None})
    if ids:
        list(get_user_model().objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk"))


def _lock_pair(a: int, b: int) -> None:
    """Serialise writes about one pair of players."""
    lock_people((a, b))


def _befriend(a: int, b: int) -> Friendship:
    low, high = sorted((a, b))
    friendship, _created = Friendship.objects.get_or_create(user_low_id=low, user_high_id=high)
    return friendship


ACCEPTED = gettext_lazy("%(name)s accepted your friend request.")


def _notify_after_commit(user_id: int, message: str, name: str) -> None:
    """A live notice: `message` (a lazy translation with a %(name)s) is rendered in each language, and
    every page of the recipient shows its own."""

    def notice() -> events.Notice:
        return events.Notice(str(message) % {"name": name}, reverse("accounts:friends"), _("Friends"))

    events.publish(events.PersonNotified(user_id, notice))


@transaction.atomic
def friend_request_send(*, from_user: AbstractBaseUser, username: str) -> FriendRequest:
    """Ask another player to be friends. Returns the request: status ``accepted`` when it answered
    their pending request to you (you are friends now), else ``pending``."""
    username = (username or "").strip()
    if not username:
        raise FriendError(_("Type the name of the player you want to add."), status=400)
    users = get_user_model().objects.filter(is_active=True)
    other = users.filter(username=username).first()
    if other is None:
        matches = list(users.filter(username__iexact=username)[:2])
        other = matches[0] if len(matches) == 1 else None
    if other is None:
        raise FriendError(_("There is no player called %(name)s.") % {"name": username}, status=404)
    if other.pk == from_user.pk:
        raise FriendError(_("You cannot add yourself as a friend."), status=400)
    name = other.get_username()
    # Under both people's row locks, as a block is made: a request and a block at once do not both pass.
    _lock_pair(from_user.pk, other.pk)
    if blocked_between(from_user.pk, other.pk):
        if Block.objects.filter(blocker_id=from_user.pk, blocked_id=other.pk).exists():
            raise FriendError(
                _("You have blocked %(name)s: unblock them on your preferences page first.") % {"name": name},
                status=409,
            )
        # Blocked by them: answered as for nobody of that name (they are not told).
        raise FriendError(_("There is no player called %(name)s.") % {"name": username}, status=404)
    low, high = sorted((from_user.pk, other.pk))
    if Friendship.objects.filter(user_low_id=low, user_high_id=high).exists():
        raise FriendError(_("You and %(name)s are already friends.") % {"name": name}, status=409)

    theirs = FriendRequest.objects.filter(
        from_user=other, to_user=from_user, status=FriendRequest.Status.PENDING
    ).first()
    if theirs is not None:
        # They asked first: saying yes is what the player wants.
        theirs.status = FriendRequest.Status.ACCEPTED
        theirs.save(update_fields=["status"])
        _befriend(from_user.pk, other.pk)
        FriendRequest.objects.filter(from_user=from_user, to_user=other).update(
            status=FriendRequest.Status.ACCEPTED
        )
        _notify_after_commit(other.pk, ACCEPTED, from_user.get_username())
        return theirs

    mine = FriendRequest.objects.filter(from_user=from_user, to_user=other).first()
    if mine is not None and mine.status == FriendRequest.Status.PENDING:
        raise FriendError(_("You have already asked %(name)s to be friends.") % {"name": name}, status=409)
    if (
        mine is not None
        and mine.status == FriendRequest.Status.DECLINED
        and mine.answered_at is not None
        and timezone.now() < mine.answered_at + ASK_AGAIN_AFTER
    ):
        again = formats.date_format(timezone.localtime(mine.answered_at + ASK_AGAIN_AFTER), "DATE_FORMAT")
        raise FriendError(
            _("%(name)s did not accept your friend request: you can ask again from %(date)s.")
            % {"name": name, "date": again},
            status=429,
        )
    try:
        notice_quota_take(
            sender_id=from_user.pk,
            recipient_id=other.pk,
            recipient_name=name,
            kind=SentNotice.Kind.FRIEND_REQUEST,
        )
    except NoticeLimited as exc:
        raise FriendError(exc.message, status=exc.status) from None
    if mine is None:
        mine = FriendRequest.objects.create(from_user=from_user, to_user=other)
    else:
        # Declined a week ago or more, or accepted before a friendship that has since been removed: ask
        # again.
        mine.status = FriendRequest.Status.PENDING
        mine.created_at = timezone.now()
        mine.answered_at = None
        mine.save(update_fields=["status", "created_at", "answered_at"])
    _notify_after_commit(
        other.pk, gettext_lazy("%(name)s wants to be your friend."), from_user.get_username()
    )
    return mine


def _open_request_to(user: AbstractBaseUser, request_id: int) -> FriendRequest:
    found = (
        FriendRequest.objects.select_for_update()
        .select_related("from_user")
        .filter(pk=request_id, to_user=user, status=FriendRequest.Status.PENDING)
        .first()
    )
    if found is None:
        # Someone else's request looks exactly like one that does not exist.
        raise FriendError(_("This friend request is not waiting for your answer."), status=404)
    return found


@transaction.atomic
def friend_request_accept(*, user: AbstractBaseUser, request_id: int) -> Friendship:
    """The addressee says yes: the two become friends."""
    request = _open_request_to(user, request_id)
    request.status = FriendRequest.Status.ACCEPTED
    request.answered_at = timezone.now()
    request.save(update_fields=["status", "answered_at"])
    friendship = _befriend(user.pk, request.from_user_id)
    # A request of theirs the other way round is answered too.
    FriendRequest.objects.filter(
        from_user=user, to_user_id=request.from_user_id, status=FriendRequest.Status.PENDING
    ).update(status=FriendRequest.Status.ACCEPTED)
    _notify_after_commit(request.from_user_id, ACCEPTED, user.get_username())
    return friendship


@transaction.atomic
def friend_request_decline(*, user: AbstractBaseUser, request_id: int) -> FriendRequest:
    """The addressee says no. The sender gets no notice (they may ask again after ASK_AGAIN_AFTER)."""
    request = _open_request_to(user, request_id)
    request.status = FriendRequest.Status.DECLINED
    request.answered_at = timezone.now()
    request.save(update_fields=["status", "answered_at"])
    return request


@transaction.atomic
def friend_remove(*, user: AbstractBaseUser, friend_id: int) -> AbstractBaseUser:
    """End a friendship (either friend may); returns the former friend. The other gets no notice;
    either may ask again later."""
    low, high = sorted((user.pk, int(friend_id)))
    deleted, _rows = Friendship.objects.filter(user_low_id=low, user_high_id=high).delete()
    if not deleted:
        raise FriendError(_("That player is not one of your friends."), status=404)
    return get_user_model().objects.get(pk=friend_id)


def profile_set_leaderboard_opt_in(*, user: AbstractBaseUser, on: bool) -> bool:
    """Show (or hide) the user on the site-wide leaderboard; their statistics page then becomes
    visible to everyone (or only to them and their friends again). Returns the new setting."""
    with transaction.atomic():
        profile, _created = Profile.objects.get_or_create(user=user)
        if profile.leaderboard_opt_in != on:
            profile.leaderboard_opt_in = on
            profile.save(update_fields=["leaderboard_opt_in"])
            versions.bump(versions.PEOPLE)  # who the site-wide boards show
    return on


class SettingError(ValueError):
    """A refused setting: ``message`` for the person, ``status`` the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def _cache_time_zone(user: AbstractBaseUser, name: str) -> None:
    # (An entry the outage left stands for at most TIME_ZONE_CACHE_SECONDS.)
    with contextlib.suppress(*CACHE_DOWN):
        cache.set(time_zone_cache_key(user), name, TIME_ZONE_CACHE_SECONDS)


@transaction.atomic
def profile_set_time_zone(*, user: AbstractBaseUser, name: str) -> str:
    """Show the user's times in this zone (an IANA name), or in their browser's ("" ). A name this
    server does not know is refused and nothing changes. Returns the setting."""
    if name and valid_time_zone(name) is None:
        message = _("“%(name)s” is not a time zone this site knows: choose one from the list.")
        raise SettingError(message % {"name": name[:TIME_ZONE_MAX_LENGTH]})
    profile, _created = Profile.objects.get_or_create(user=user)
    if profile.time_zone != name:
        profile.time_zone = name
        profile.save(update_fields=["time_zone"])
    # After the commit: a request reading the cache between the two must not keep the old zone.
    transaction.on_commit(lambda: _cache_time_zone(user, name))
    return name


def profile_set_play_settings(*, user_id: int, auto_commit: int | None, fast_computer: bool) -> None:
    """Keep the person's play settings (checked by dicegame.play.games.play_settings_set, which applies
    them to their games)."""
    profile, _created = Profile.objects.get_or_create(user_id=user_id)
    profile.auto_commit_seconds = auto_commit
    profile.fast_computer = fast_computer
    profile.save(update_fields=["auto_commit_seconds", "fast_computer"])
