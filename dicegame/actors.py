"""Who is making a request: a logged-in user, or a guest known by a random key in their session."""

import secrets

from django.http import HttpRequest
from django.utils.translation import gettext as _

from dicegame.services import Actor

GUEST_SESSION_KEY = "penta_guest"


def actor_from_request(request: HttpRequest, *, create_guest: bool = False) -> Actor:
    if request.user.is_authenticated:
        return Actor(user_id=request.user.pk, name=request.user.get_username())
    key = request.session.get(GUEST_SESSION_KEY, "")
    if not key and create_guest:
        key = secrets.token_urlsafe(24)
        request.session[GUEST_SESSION_KEY] = key
    return Actor(guest_key=key, name=_("Guest"))
