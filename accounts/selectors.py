"""Reads about people: who is whose friend."""

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from accounts.models import Friendship


def friend_ids(*, user_id: int) -> set[int]:
    pairs = Friendship.objects.filter(Q(user_low_id=user_id) | Q(user_high_id=user_id)).values_list(
        "user_low_id", "user_high_id"
    )
    return {low if high == user_id else high for low, high in pairs}


def friends_of(*, user_id: int) -> QuerySet:
    return get_user_model().objects.filter(pk__in=friend_ids(user_id=user_id)).order_by("username")


def are_friends(*, a: int, b: int) -> bool:
    low, high = sorted((a, b))
    return Friendship.objects.filter(user_low_id=low, user_high_id=high).exists()
