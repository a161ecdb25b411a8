"""Login throttling with django-axes: failed logins are counted per account and per client address in
the Django cache (Redis when configured, so every process agrees), and past a limit further attempts are
refused for a while, the right password too, before any password is hashed. The same cache counts what
else a client may do only so often in a window (`take`): sign-ups per client address, confirmation mails
per recipient and per client (notifications).

django-axes gives one failure limit for all its counters; here each has its own (a few per account,
more per address: a household or an office shares one), so the handler compares each counter with
its limit (with axes' cache and its cache keys, undocumented: tests/test_private_names.py pins them).
See docs/security.md.

When the shared cache (Redis) cannot be reached, the counters fall back to this process's memory: logins
keep working and are still throttled, per process, instead of every login answering 500 until Redis is
back (a failed cache call is logged, at most once a minute).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import time
from collections.abc import Sequence

from asgiref.sync import sync_to_async
from axes.backends import AxesStandaloneBackend
from axes.handlers.cache import AxesCacheHandler
from axes.helpers import get_client_cache_keys
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import ngettext

ACCOUNT_PREFIX = "account:"

logger = logging.getLogger(__name__)
# Only the shared cache's own failures (the server gone, a timeout) fall back; a bug still raises.
try:
    from redis.exceptions import RedisError as _CacheDown
except ImportError:  # pragma: no cover - redis is a dependency of the production set-up
    _CacheDown = OSError


class FallbackCache:
    """The cache calls axes makes (get, add, incr, touch, delete), on the shared cache, or on a
    process-local one while the shared cache is unreachable."""

    LOG_EVERY = 60.0  # seconds between two log lines about the same outage

    def __init__(self, primary, fallback=None, what: str = "login throttle"):
        self.primary = primary
        self.fallback = fallback or LocMemCache("login-throttle-fallback", {})
        self.what = what  # whose counts, in the log
        self._logged_at = float("-inf")

    def _call(self, name: str, *args, **kwargs):
        try:
            return getattr(self.primary, name)(*args, **kwargs)
        except (_CacheDown, OSError) as exc:
            now = time.monotonic()
            if now - self._logged_at >= self.LOG_EVERY:
                self._logged_at = now
                logger.warning("%s: shared cache unreachable (%s); counting in memory", self.what, exc)
            return getattr(self.fallback, name)(*args, **kwargs)

    def get(self, key, default=None):
        return self._call("get", key, default)

    def add(self, key, value, timeout=None):
        return self._call("add", key, value, timeout)

    def incr(self, key, delta=1):
        return self._call("incr", key, delta)

    def decr(self, key, delta=1):
        return self._call("decr", key, delta)

    def touch(self, key, timeout=None):
        return self._call("touch", key, timeout)

    def delete(self, key):
        return self._call("delete", key)


def client_address(request: HttpRequest) -> str | None:
    """The address a login attempt counts against: the connection's peer. Behind a reverse proxy
    daphne's --proxy-headers puts the client's address (from X-Forwarded-For) there."""
    return request.META.get("REMOTE_ADDR")


def client_key(address: str | None) -> str:
    """The client a counter of ours counts (`take`): its IPv4 address, or the /64 network of its IPv6
    address (one subscriber's: a client may take any address in it at will); "unknown" without one."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return "unknown"
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def account_key(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The name an account's failures count under. Prefixed, so that no username (one may look like
    an address) shares a counter with an address."""
    field = settings.AXES_USERNAME_FORM_FIELD
    username = credentials.get(field) if credentials else getattr(request, "POST", {}).get(field)
    return f"{ACCOUNT_PREFIX}{username}" if username else None


def _limits() -> tuple[int, int]:
    return settings.PENTA_LOGIN_FAILURES_PER_ACCOUNT, settings.PENTA_LOGIN_FAILURES_PER_ADDRESS


class LoginThrottleHandler(AxesCacheHandler):
    """Axes' cache handler with a limit per counter; a successful login clears only its account's
    counter (clearing the address's too would let anyone with one account reset it at will)."""

    def __init__(self):
        super().__init__()
        self.cache = FallbackCache(self.cache)

    def _over_limit(self, request: HttpRequest, credentials: dict | None) -> bool:
        account, address = get_client_cache_keys(request, credentials)  # AXES_LOCKOUT_PARAMETERS order
        per_account, per_address = _limits()
        if account_key(request, credentials) and self.cache.get(account, 0) >= per_account:
            return True
        return self.cache.get(address, 0) >= per_address

    def is_locked(self, request: HttpRequest, credentials: dict | None = None) -> bool:
        return self._over_limit(request, credentials)

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        was_locked = request is not None and getattr(request, "axes_locked_out", False)
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is None or was_locked or getattr(request, "axes_locked_out", False):
            return
        if self._over_limit(request, credentials):
            request.axes_locked_out = True
            request.axes_credentials = credentials
            user_locked_out.send(
                "axes",
                request=request,
                username=account_key(request, credentials),
                ip_address=request.axes_ip_address,
            )

    def reset_attempts(self, *, ip_address=None, username=None, ip_or_username=False) -> int:
        """axes' reset API (`manage.py axes_reset_username NAME`, `axes_reset_ip ADDRESS`), with the
        account's counter under its prefixed name."""
        account = f"{ACCOUNT_PREFIX}{username}" if username else None
        return super().reset_attempts(ip_address=ip_address, username=account, ip_or_username=ip_or_username)

    def user_logged_in(self, sender, request, user, **kwargs):
        credentials = {settings.AXES_USERNAME_FORM_FIELD: user.get_username()}
        account, _address = get_client_cache_keys(request, credentials)
        self.cache.delete(account)


class LoginThrottleBackend(AxesStandaloneBackend):
    """First in AUTHENTICATION_BACKENDS: refuses a locked-out attempt (PermissionDenied) before the
    model backend hashes anything. Without a request (in-process calls: the test client's login, a
    script) there is no client to count, so nothing to throttle."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)

    async def aauthenticate(self, request, username=None, password=None, **kwargs):
        return await sync_to_async(self.authenticate)(request, username, password, **kwargs)


def lockout_minutes() -> int:
    return max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))


def login_locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page again, with why it refused and for how long (429)."""
    minutes = lockout_minutes()
    message = ngettext(
        "Too many failed attempts to log in to this account or from your address: "
        "try again in %(minutes)d minute.",
        "Too many failed attempts to log in to this account or from your address: "
        "try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}
    username = (credentials or {}).get(settings.AXES_USERNAME_FORM_FIELD) or request.POST.get("username", "")
    form = AuthenticationForm(request, initial={"username": username})
    next_url = request.POST.get("next", "")
    context = {"form": form, "error": message, "next": next_url}
    return render(request, "accounts/login.html", context, status=429)


# -- counters in a window: what a client may do only so often ------------------------------------------

_counters = FallbackCache(cache, LocMemCache("counters-fallback", {}), what="sign-up and mail limits")


def _take_one(key: str, limit: int, window: int) -> bool:
    _counters.add(key, 0, timeout=window)
    try:
        n = _counters.incr(key)
    except ValueError:  # expired between the two calls: a new window
        _counters.add(key, 1, timeout=window)
        n = 1
    if n > limit:
        give_back(key)
        return False
    return True


def give_back(key: str) -> None:
    """Return a count `take` took (what it counted did not happen after all)."""
    with contextlib.suppress(ValueError):  # the window ended meanwhile: nothing to give back
        _counters.decr(key)


def take(counters: Sequence[tuple[str, int]], window: int) -> int | None:
    """Count one against each (key, limit) for `window` seconds (a fixed window from its first count), all
    or none: returns None when every count is within its limit, else the index of the first over it,
    with nothing counted. Each count is one atomic step (incr in Redis or in memory), so requests sent
    at once cannot all read the old count and pass."""
    taken = []
    for i, (key, limit) in enumerate(counters):
        if not _take_one(key, limit, window):
            for done in taken:
                give_back(done)
            return i
        taken.append(key)
    return None
