"""Sessions read from the shared cache (Redis in production) and written through to the database.

Django's `cached_db` store: a request that reads its session costs a cache read instead of a database
query, and the database keeps every session, so nobody is logged out when the cache is emptied. One
difference: a cache that fails (Redis down or restarting) is skipped instead of failing the request,
as the login throttle does (accounts.throttle): the session is read from and written to the database
alone until the cache answers again, logged at most once a minute. It wraps the store's private
`_cache` (tests/test_private_names.py pins the Django version it was checked in).
"""

from __future__ import annotations

import logging
import time

from django.contrib.sessions.backends import cached_db

logger = logging.getLogger(__name__)
WARN_EVERY_SECONDS = 60.0
_last_warning = 0.0


def _warn(exc: Exception) -> None:
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= WARN_EVERY_SECONDS:
        _last_warning = now
        logger.warning("sessions: the cache failed (%r); using the database alone", exc)


class _CacheOrNothing:
    """The session cache's reads and writes, each answering "not cached" when the cache fails."""

    def __init__(self, cache):
        self.cache = cache

    def get(self, key, default=None):
        try:
            return self.cache.get(key, default)
        except Exception as exc:
            _warn(exc)
            return default

    def set(self, key, value, timeout=None):
        try:
            self.cache.set(key, value, timeout)
        except Exception as exc:
            _warn(exc)

    def delete(self, key):
        try:
            return self.cache.delete(key)
        except Exception as exc:
            _warn(exc)
            return False

    def __contains__(self, key):
        return self.get(key) is not None

    async def aget(self, key, default=None):
        try:
            return await self.cache.aget(key, default)
        except Exception as exc:
            _warn(exc)
            return default

    async def aset(self, key, value, timeout=None):
        try:
            await self.cache.aset(key, value, timeout)
        except Exception as exc:
            _warn(exc)

    async def adelete(self, key):
        try:
            return await self.cache.adelete(key)
        except Exception as exc:
            _warn(exc)
            return False


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = _CacheOrNothing(self._cache)
