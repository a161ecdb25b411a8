"""The cache the statistics and leaderboards share: values stored under keys naming what they depend on."""

from __future__ import annotations

import hashlib

from django.core.cache import cache

STATS_CACHE_SECONDS = 24 * 3600  # the key changes with every new finished or analysed game anyway


def cached(key: str, compute):
    """The value stored under `key`, or computed and stored (the keys name what the value depends on)."""
    key = "penta:review:" + hashlib.sha256(key.encode()).hexdigest()  # safe for any cache backend
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, STATS_CACHE_SECONDS)
    return value
