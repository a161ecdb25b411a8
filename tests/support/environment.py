"""The test run's surroundings: what CI requires (a missing Chromium, PostgreSQL or Redis fails there and
is skipped elsewhere), and forgetting this run's cache keys (and only them) between tests."""

from __future__ import annotations

import fnmatch
import os
import shutil
from pathlib import Path

import pytest
import redis
from axes.helpers import get_cache
from django.core.cache import cache as default_cache

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")


def require(condition: bool, what: str, how: str) -> None:
    """Fail in CI, skip elsewhere, when a real part the test needs is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but missing: {how}")
    pytest.skip(f"{what} is missing: {how}")


def require_redis() -> None:
    """The Redis of REDIS_URL answers (fail in CI, skip elsewhere, when it does not)."""
    try:
        redis.Redis.from_url(os.environ["REDIS_URL"]).ping()
        reachable = True
    except redis.exceptions.ConnectionError:
        reachable = False
    require(reachable, "Redis", f"start redis-server for REDIS_URL={os.environ['REDIS_URL']}")


def forget_cached(cache=None, key: str = "*") -> None:
    """Delete this test run's cache keys matching `key`, and only them. Not `cache.clear()`: on Redis it
    flushes the whole database, the other xdist worker's keys (its login counters mid-test) included."""
    if cache is None:
        cache = default_cache
    pattern = cache.make_key(key)
    if hasattr(cache._cache, "get_client"):  # Django's RedisCache
        client = cache._cache.get_client(write=True)
        keys = list(client.scan_iter(match=pattern))
        if keys:
            client.delete(*keys)
    else:  # LocMemCache: its keys are made as PREFIX:VERSION:KEY
        for made in list(getattr(cache, "_cache", {})):
            if fnmatch.fnmatchcase(made, pattern):
                cache.delete(made.split(":", 2)[2])


def forget_login_failures() -> None:
    """Delete the login throttle's counters (django-axes' "axes-*" keys) from the cache, and only
    them: a shared Redis also carries the channel layer, and this run's other keys stay."""
    forget_cached(get_cache(), "axes-*")


def forget_throttle_counts() -> None:
    """Delete the counts of what a client may do only so often (accounts.throttle.take: sign-ups,
    confirmation mails, password resets, reports about people): every test's client has the same
    address."""
    forget_cached(key="penta:signups:*")
    forget_cached(key="penta:confirmations:*")
    forget_cached(key="penta:resets:*")
    forget_cached(key="penta:person-reports:*")


def chromium_path() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")
