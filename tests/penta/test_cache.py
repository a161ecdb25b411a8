"""The cache's Redis connections (penta.cache): open sockets share a few, instead of one each."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from tests.support.environment import require_redis
from tests.support.factories import UserFactory
from tests.support.sockets import open_notice_socket

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the cache of the Redis pass")

SOCKETS = 12


def connections_to(port: int) -> int:
    """This process's open TCP connections to `port` on loopback (its sockets' inodes in /proc)."""
    mine = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    count = 0
    for line in Path("/proc/self/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port, state, inode = int(fields[2].split(":")[1], 16), fields[3], fields[9]
        if remote_port == port and state == "01" and inode in mine:  # 01: established
            count += 1
    return count


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_open_sockets_share_the_caches_redis_connections():
    require_redis()
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    port = urlsplit(settings.CACHES["default"]["LOCATION"]).port or 6379
    users = await database_sync_to_async(lambda: [UserFactory() for _ in range(SOCKETS + 1)])()
    # The first socket opens what any number of them share (the layer's connections, the pool's first).
    first, connected, _ = await open_notice_socket(users[0])
    assert connected
    before = connections_to(port)
    sockets = []
    try:
        for user in users[1:]:
            communicator, connected, _ = await open_notice_socket(user)
            assert connected  # each read its session, through the cache
            sockets.append(communicator)
        opened = connections_to(port) - before
    finally:
        for communicator in [first, *sockets]:
            await communicator.disconnect()
    # Django's own pool per cache object: one more connection for every socket.
    assert opened <= 3, f"{SOCKETS} more sockets opened {opened} more Redis connections"
