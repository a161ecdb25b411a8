"""Who is making a request: a logged-in user, or a guest known by a random key in their session.

Every layer above the stored game asks an `Actor` whether a seat is theirs (`owns`); the views make one
from the request (`actor_from_request`), the sockets from their scope."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from dicegame.models import Player

GUEST_SESSION_KEY = "penta_guest"
# A guest's play settings (an account's are on its Profile): {"auto_commit": seconds or None, "fast": bool}.
PLAY_SETTINGS_SESSION_KEY = "penta_play"


@dataclass(frozen=True)
class Actor:
    """Who is asking: a logged-in user, or a guest known by the key kept in their session."""

    user_id: int | None = None
    guest_key: str = ""
    name: str = ""
    # A guest's play settings, from their session (an account's are read from its Profile when needed):
    # the seconds to choose a box after the last roll (None: the site's default; 0: off), and whether
    # the computer players move fast.
    auto_commit: int | None = None
    fast_computer: bool = False

    def owns(self, player: Player) -> bool:
        if player.is_bot:
            return False
        if self.user_id is not None and player.user_id == self.user_id:
            return True
        if self.guest_key and player.user_id is None and player.guest_key == self.guest_key:
            return True
        # Local games (pass and play): the creator's device acts for every person's seat, whichever is
        # current, so the turn flow's who-may-act checks hold unchanged (dicegame.play.local).
        if self.user_id is not None and player.controller_id == self.user_id:
            return True
        return (
            bool(self.guest_key)
            and player.controller_id is None
            and player.controller_guest_key == self.guest_key
        )


def actor_from_request(request: HttpRequest, *, create_guest: bool = False) -> Actor:
    if request.user.is_authenticated:
        return Actor(user_id=request.user.pk, name=request.user.get_username())
    key = request.session.get(GUEST_SESSION_KEY, "")
    if not key and create_guest:
        key = secrets.token_urlsafe(24)
        request.session[GUEST_SESSION_KEY] = key
    chosen = request.session.get(PLAY_SETTINGS_SESSION_KEY) or {}
    return Actor(
        guest_key=key,
        name=_("Guest"),
        auto_commit=chosen.get("auto_commit"),
        fast_computer=bool(chosen.get("fast")),
    )
