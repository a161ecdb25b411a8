"""Reads about people: who is whose friend, who asked whom, who shows on the site-wide boards. (Who is
online is presence's: `live.presence.online_user_ids`.)"""

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from accounts.models import FriendRequest, Friendship, Profile


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
    """Active players whose name contains ``query`` (any case), at most 20; nothing for an empty query."""
    query = (query or "").strip()
    users = get_user_model().objects
    if not query:
        return users.none()
    found = users.filter(is_active=True, username__icontains=query)
    if exclude_user_id is not None:
        found = found.exclude(pk=exclude_user_id)
    return found.order_by("username")[:PLAYERS_SEARCH_LIMIT]


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
