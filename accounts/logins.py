"""Where a person is logged in: each session they logged in with is recorded (`LoginSession`) as they log
in and seen again at most every few minutes after, so the sessions page can list them and end the others.

The session store (penta.sessions: the cache, written through to the database) keeps sessions by key
only: it cannot be asked for one person's. Ending a session deletes it from the store (cache and
database), so its next request is anonymous; changing the password ends the others too (Django's
session hash would refuse them at their next request anyway, this also takes them off the list).
"""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import LoginSession
from core.devices import device_name

# A session is seen again (its row written) at most this often: not a write per request.
SEEN_EVERY_SECONDS = 300
SEEN_KEY = "penta_seen"
DEVICE_MAX_LENGTH = LoginSession._meta.get_field("device").max_length


def _store(session_key: str | None = None):
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key)


def record(request: HttpRequest, user) -> None:
    """The request's session is the user's (just logged in, or seen again): its row, by its key."""
    session = getattr(request, "session", None)
    if session is None or user is None or not user.is_authenticated:
        return
    if session.session_key is None:
        session.save()
    now = timezone.now()
    device = device_name(request.headers.get("User-Agent", ""))[:DEVICE_MAX_LENGTH]
    LoginSession.objects.update_or_create(
        session_key=session.session_key,
        defaults={"user_id": user.pk, "device": device, "last_seen": now},
        create_defaults={"user_id": user.pk, "device": device, "last_seen": now, "created_at": now},
    )
    session[SEEN_KEY] = int(now.timestamp())


def on_logged_in(sender, request, user, **kwargs) -> None:
    """(user_logged_in) Record the session the person logged in with."""
    if request is not None:
        record(request, user)


def on_logged_out(sender, request, user, **kwargs) -> None:
    """(user_logged_out) The session is gone: so is its row."""
    session = getattr(request, "session", None) if request is not None else None
    if session is not None and session.session_key:
        LoginSession.objects.filter(session_key=session.session_key).delete()


def seen(request: HttpRequest) -> None:
    """A logged-in request: the session's row says when it was last used (at most every few minutes).
    A session from before the list existed is recorded here on its first request."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return
    last = request.session.get(SEEN_KEY, 0)
    if not isinstance(last, int) or timezone.now().timestamp() - last >= SEEN_EVERY_SECONDS:
        record(request, user)


def end(session_keys) -> int:
    """End these sessions (whoever is using them is logged out at their next request)."""
    keys = list(session_keys)
    for key in keys:
        _store(key).delete(key)
    LoginSession.objects.filter(session_key__in=keys).delete()
    return len(keys)


def end_others(*, user_id: int, keep: str | None) -> int:
    """End every session of the person but `keep` (the one asking); returns how many."""
    keys = LoginSession.objects.filter(user_id=user_id).exclude(session_key=keep or "")
    return end(keys.values_list("session_key", flat=True))


def end_all(*, user_id: int) -> int:
    return end_others(user_id=user_id, keep=None)


def end_one(*, user_id: int, session_id: int) -> bool:
    """End one session of the person's, by its row (another person's row answers False, as none)."""
    keys = list(
        LoginSession.objects.filter(pk=session_id, user_id=user_id).values_list("session_key", flat=True)
    )
    return end(keys) > 0


def has_two_factor(user) -> bool:
    """The person logs in with a second factor: they confirmed an authenticator app (django-otp's TOTP
    device; their recovery codes are a static device beside it)."""
    return TOTPDevice.objects.filter(user_id=user.pk, confirmed=True).exists()
