"""The cache's Redis connections: one pool per server for the whole process.

Django makes a cache object per thread and per asyncio context (`django.core.cache.caches` is an
asgiref Local), and each of its Redis cache objects opens a connection pool of its own. Every game and
notice socket runs in a context of its own, so every open socket held a Redis connection of its own
from its first session read on (400 sockets: 408 Redis clients), each opened with a TCP handshake and
redis-py's HELLO and CLIENT SETINFO. Redis refuses clients past its `maxclients` (10,000 by default):
a few thousand open screens across the web processes would have reached it, and then every session
read of every process failed over to the database (penta.sessions). With this pool every cache object
of a process borrows from the same connections: as many as run a command at once (the threads that
read sessions and counters), however many sockets are open.

redis-py's pool is thread-safe, and after a fork it drops what the parent opened (it checks the pid).
"""

from __future__ import annotations

import threading

import redis


class SharedConnectionPool(redis.ConnectionPool):
    """`CACHES[...]["OPTIONS"]["pool_class"]`: Django asks each new cache object's pool from `from_url`;
    every ask with the same server and options gets the same pool."""

    _shared: dict[tuple[str, str], SharedConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs) -> SharedConnectionPool:
        # The options are Django's (socket timeouts, the parser class): their repr tells them apart.
        key = (url, repr(sorted(kwargs.items())))
        with cls._lock:
            pool = cls._shared.get(key)
            if pool is None:
                pool = cls._shared[key] = super().from_url(url, **kwargs)
            return pool
