"""Reads about people: who is whose friend, who asked whom, who blocked whom and who may reach whom (a
challenge, an invitation, a friend request), who may see a person's games, who shows on the site-wide
boards, the time zone a person's times are shown in, where a person is logged in. (Who is online is
presence's: `live.presence.online_user_ids`.)"""

import contextlib
import functools
import zoneinfo
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from accounts.models import AccountDeletion, Block, FriendRequest, Friendship, LoginSession, Profile
from dicegame.offers import Challenge

# Only the shared cache's own failures (the server gone, a timeout): the zone is then read from the
# database; a bug still raises.
try:
    from redis.exceptions import RedisError

    CACHE_DOWN: tuple[type[Exception], ...] = (RedisError, OSError)
except ImportError:  # pragma: no cover - redis is a dependency of the production set-up
    CACHE_DOWN = (OSError,)


def friend_ids(*, user_id: int) -> set[int]:
    pairs = Friendship.objects.filter(Q(user_low_id=user_id) | Q(user_high_id=user_id)).values_list(
        "user_low_id", "user_high_id"
    )
    return {low if high == user_id else high for low, high in pairs}


def friends_of(*, user_id: int) -> QuerySet:
    # With their ratings (ratings.PlayerRating): the friends list shows them, in the same query; and
    # their standing (a marked account's rating is on no list).
    return (
        get_user_model()
        .objects.filter(pk__in=friend_ids(user_id=user_id))
        .select_related("rating", "profile")
        .order_by("username")
    )


def are_friends(*, a: int, b: int) -> bool:
    low, high = sorted((a, b))
    return Friendship.objects.filter(user_low_id=low, user_high_id=high).exists()


# -- who may offer whom a game -------------------------------------------------------------------------

# A stranger (not a friend) who let this many of a person's challenges in a row go unanswered (declined
# or expired) gets no more from them, until they challenge that person themselves or become friends.
STRANGER_IGNORED_MAX = 3


@dataclass(frozen=True)
class Refusal:
    """Why one person may not offer another a game: the message to show and the HTTP status."""

    message: str
    status: int


def may_challenge(
    *, from_user_id: int, to_user_id: int, name: str = "", pairing: bool = False
) -> Refusal | None:
    """Whether `from_user_id` may offer `to_user_id` a game: None if so, else why not. The one rule
    between two people that every offer of a game asks, whichever way it comes: a challenge (a Play
    button, a rematch, Play again), a room's invitation, and a pairing of two seekers (`pairing`: both
    asked for a game with anyone, so it is asked both ways, and neither the recipient's choice nor the
    stranger's rule below applies). `name`: the other person's, for the message.

    Nobody challenges themselves; a person muted by staff offers nobody a game; a block either way
    answers as if the other did not exist (a block is never revealed); the recipient's choice of who
    may challenge them (everyone, friends, nobody) holds; a stranger who let your last
    STRANGER_IGNORED_MAX challenges go unanswered gets no more from you."""
    if from_user_id == to_user_id:
        return Refusal(_("You can't play against yourself: challenge someone else."), 400)
    who = name or _("This player")
    if blocked_between(from_user_id, to_user_id):
        return Refusal(_("There is no player called %(name)s.") % {"name": who}, 404)
    if is_muted(from_user_id):
        return Refusal(_("You cannot offer anyone a game for now."), 403)
    if pairing:
        return None
    chosen = (
        Profile.objects.filter(user_id=to_user_id).values_list("challenges_from", flat=True).first()
        or Profile.Challenges.EVERYONE
    )
    friends = are_friends(a=from_user_id, b=to_user_id)
    if chosen == Profile.Challenges.NOBODY or (chosen == Profile.Challenges.FRIENDS and not friends):
        return Refusal(_("%(name)s is not taking challenges now.") % {"name": who}, 403)
    if friends:
        return None
    if _ignored_in_a_row(from_user_id, to_user_id) >= STRANGER_IGNORED_MAX:
        return Refusal(
            _(
                "%(name)s has not taken up your last %(n)d challenges: you can challenge them again once "
                "they challenge you or you are friends."
            )
            % {"name": who, "n": STRANGER_IGNORED_MAX},
            403,
        )
    return None


def _ignored_in_a_row(from_user_id: int, to_user_id: int) -> int:
    """How many of the latest challenges between the two were from `from_user_id` and went unanswered,
    counting back to the latest that was accepted, or that came the other way."""
    latest = (
        Challenge.objects.filter(
            Q(from_user_id=from_user_id, to_user_id=to_user_id)
            | Q(from_user_id=to_user_id, to_user_id=from_user_id)
        )
        .order_by("-created_at", "-pk")
        .values_list("from_user_id", "status")[:STRANGER_IGNORED_MAX]
    )
    ignored = 0
    for sender, status in latest:
        if sender != from_user_id or status not in (Challenge.Status.DECLINED, Challenge.Status.EXPIRED):
            break
        ignored += 1
    return ignored


PLAYERS_SEARCH_LIMIT = 20


def friend_requests_incoming(user_id: int) -> QuerySet:
    """Requests waiting for the user's answer, oldest first."""
    return (
        FriendRequest.objects.filter(to_user_id=user_id, status=FriendRequest.Status.PENDING)
        .select_related("from_user")
        .order_by("created_at", "pk")
    )


def friend_requests_outgoing(user_id: int) -> QuerySet:
    """The user's requests still waiting for an answer, oldest first."""
    return (
        FriendRequest.objects.filter(from_user_id=user_id, status=FriendRequest.Status.PENDING)
        .select_related("to_user")
        .order_by("created_at", "pk")
    )


def players_search(query: str, *, exclude_user_id: int | None) -> QuerySet:
    """Active players whose name contains ``query`` (any case), at most 20; nothing for an empty query.
    Left out: those who chose not to be found by name, and anyone between whom and the searcher there is
    a block (either way: the blocked person is not told)."""
    query = (query or "").strip()
    users = get_user_model().objects
    if not query:
        return users.none()
    found = users.filter(is_active=True, username__icontains=query).exclude(
        pk__in=Profile.objects.filter(findable=False).values("user_id")
    )
    if exclude_user_id is not None:
        found = found.exclude(pk=exclude_user_id).exclude(pk__in=hidden_from(exclude_user_id))
    return found.order_by("username")[:PLAYERS_SEARCH_LIMIT]


# -- blocks and who may reach whom ---------------------------------------------------------------------


def blocked_between(a: int | None, b: int | None) -> bool:
    """Either of the two blocked the other. Every way one person reaches another asks this (a friend
    request, an invitation, a challenge, watching, presence, later chat), in both directions: a blocked
    person is not told, so nothing may work one way that would not work the other."""
    if a is None or b is None or a == b:
        return False
    return Block.objects.filter(Q(blocker_id=a, blocked_id=b) | Q(blocker_id=b, blocked_id=a)).exists()


def hidden_from(user_id: int | None) -> set[int]:
    """The people a block stands between the person and (those they blocked and those who blocked them):
    neither side finds, watches, challenges, is paired with or sees the presence of the other."""
    if user_id is None:
        return set()
    rows = Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).values_list(
        "blocker_id", "blocked_id"
    )
    return {blocked if blocker == user_id else blocker for blocker, blocked in rows}


def blocks_by(user_id: int) -> QuerySet:
    """The people the person blocked, newest first (their preferences page lists them)."""
    return Block.objects.filter(blocker_id=user_id).select_related("blocked").order_by("-created_at", "-pk")


def blocks_among(user_ids) -> dict[frozenset[int], object]:
    """Every two of `user_ids` between whom there is a block, with when the first of them was made."""
    ids = list(user_ids)
    found: dict[frozenset[int], object] = {}
    for blocker, blocked, at in Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list(
        "blocker_id", "blocked_id", "created_at"
    ):
        pair = frozenset((blocker, blocked))
        found[pair] = min(at, found.get(pair, at))
    return found


def is_muted(user_id: int | None) -> bool:
    return user_id is not None and Profile.objects.filter(user_id=user_id, muted_at__isnull=False).exists()


def may_contact(*, sender_id: int, recipient_id: int) -> bool:
    """Whether one person may make the site tell another something (a friend request, later a chat
    line): not muted by staff, and no block between them."""
    if sender_id == recipient_id:
        return False
    return not is_muted(sender_id) and not blocked_between(sender_id, recipient_id)


def privacy_of(*, user_id: int) -> Profile:
    """The person's settings (an unsaved default profile for one who never changed any)."""
    return Profile.objects.filter(user_id=user_id).first() or Profile(user_id=user_id)


def audiences(user_ids) -> dict[int, str]:
    """Who may see each person's games and statistics (Profile.Audience), for every one of `user_ids`."""
    ids = [uid for uid in user_ids if uid is not None]
    chosen = dict(Profile.objects.filter(user_id__in=ids).values_list("user_id", "games_visible_to"))
    return {uid: chosen.get(uid, Profile.Audience.FRIENDS) for uid in ids}


def may_see_games_of(*, viewer_id: int | None, target_id: int, audience: str, friend_ids=None) -> bool:
    """Whether the viewer may see the person's statistics page (their games follow `game_visible`'s
    rule): themselves; else no block between them and the person's choice (everyone, friends, only me).
    `friend_ids`: the viewer's friends when the caller has read them."""
    if viewer_id is not None and viewer_id == target_id:
        return True
    if blocked_between(viewer_id, target_id):
        return False
    if audience == Profile.Audience.EVERYONE:
        return True
    if audience == Profile.Audience.ME or viewer_id is None:
        return False
    if friend_ids is not None:
        return target_id in friend_ids
    return are_friends(a=viewer_id, b=target_id)


# -- sessions and requests about the account ---------------------------------------------------------


def login_sessions(*, user_id: int) -> list[LoginSession]:
    return list(LoginSession.objects.filter(user_id=user_id))


def deletion_pending(*, user_id: int) -> AccountDeletion | None:
    return AccountDeletion.objects.filter(user_id=user_id, erased_at__isnull=True).first()


def opted_in_ids():
    """The people shown on the site-wide leaderboards (they said so): a subquery of user ids."""
    return Profile.objects.filter(leaderboard_opt_in=True).values("user_id")


def off_board_ids(*, viewer_id: int | None = None):
    """The people whose games stay off every leaderboard, rating list and daily rank (fair play): those
    under review, except to themselves (nothing shows them they are), and those marked by staff. A
    subquery of user ids, for `.exclude(user_id__in=...)`."""
    review = Q(standing=Profile.Standing.REVIEW)
    if viewer_id is not None:
        review &= ~Q(user_id=viewer_id)
    return Profile.objects.filter(review | Q(standing=Profile.Standing.MARKED)).values("user_id")


def on_boards(*, user_id: int, standing: str | None, viewer_id: int | None) -> bool:
    """`off_board_ids`'s rule for one person whose standing is known (a cached board's row): shown
    unless marked, or under review and seen by someone else. No profile is a good standing."""
    if standing == Profile.Standing.MARKED:
        return False
    return standing != Profile.Standing.REVIEW or user_id == viewer_id


def off_board_sets() -> tuple[frozenset[int], frozenset[int]]:
    """(under review, marked): the people `off_board_ids` names, for boards cached for every viewer."""
    review, marked = set(), set()
    rows = Profile.objects.exclude(standing=Profile.Standing.GOOD).values_list("user_id", "standing")
    for user_id, standing in rows:
        (marked if standing == Profile.Standing.MARKED else review).add(user_id)
    return frozenset(review), frozenset(marked)


# -- time zones ----------------------------------------------------------------------------------------

# Before a browser has said its zone (and for a person who chose none): the daily challenge's zone, that
# of most players.
DEFAULT_TIME_ZONE = "Europe/Amsterdam"
# The browser's zone, as static/js/app.js reports it (an IANA name, e.g. "Europe/Amsterdam").
TIME_ZONE_COOKIE = "penta_tz"
TIME_ZONE_MAX_LENGTH = 64  # Profile.time_zone's; the longest IANA name is 32
TIME_ZONE_CACHE_SECONDS = 24 * 60 * 60
# The zones a person is offered (the IANA names of places and UTC, without the database's aliases and
# legacy names such as "US/Eastern" or "EST5EDT"; those are still accepted from a browser).
_OFFERED_AREAS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe")
_OFFERED_AREAS += ("Indian", "Pacific")


@functools.cache
def time_zone_names() -> frozenset[str]:
    """Every zone this server knows (the IANA database's names)."""
    return frozenset(zoneinfo.available_timezones())


@functools.cache
def offered_time_zones() -> list[str]:
    return ["UTC", *sorted(z for z in time_zone_names() if z.split("/")[0] in _OFFERED_AREAS)]


def valid_time_zone(name: object) -> str | None:
    """The name if it is a zone this server knows, else None (a made-up cookie or form value)."""
    if isinstance(name, str) and len(name) <= TIME_ZONE_MAX_LENGTH and name in time_zone_names():
        return name
    return None


def time_zone_cache_key(user) -> str:
    # With the moment the account was made: an id alone may name another account after a deletion (or
    # a rolled-back test), which must not inherit the zone.
    return f"penta:tz:{user.pk}:{user.date_joined.timestamp()}"


def time_zone_of(*, user) -> str:
    """The zone the person chose ("" for their browser's). Read on every request of theirs, so kept in
    the cache (filled when they log in; the setting's write replaces it there): no query per page."""
    key = time_zone_cache_key(user)
    try:
        zone = cache.get(key)
    except CACHE_DOWN:
        zone = None
    if zone is None:
        zone = Profile.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first() or ""
        with contextlib.suppress(*CACHE_DOWN):  # read from the database again next time
            cache.set(key, zone, TIME_ZONE_CACHE_SECONDS)
    return zone


def time_zone_on_login(sender, request, user, **kwargs) -> None:
    """(user_logged_in) Read the person's zone into the cache as they log in, not on their first page."""
    time_zone_of(user=user)
