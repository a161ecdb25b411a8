"""Account writes: a guest's games move into the account they sign up for or log in to."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from dicegame.models import Player


@transaction.atomic
def guest_games_claim(*, user: AbstractBaseUser, guest_key: str) -> int:
    """Give the guest's seats to the user; returns how many seats moved."""
    if not guest_key:
        return 0
    return Player.objects.filter(guest_key=guest_key, user__isnull=True, bot_strength="").update(
        user=user, guest_key="", name=user.get_username()
    )
