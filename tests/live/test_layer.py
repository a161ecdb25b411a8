"""The production channel layer (live.layer): a message to a screen of this process is delivered in
memory, the dict itself; a screen of another process and every group still go through Redis."""

from __future__ import annotations

import asyncio
import os

import pytest

from live.layer import LocalFirstPubSubLayer
from tests.support.environment import require_redis

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the layer of the Redis pass")


def a_layer() -> LocalFirstPubSubLayer:
    """A layer as a process makes it (each process has its own), on the run's Redis."""
    return LocalFirstPubSubLayer(
        hosts=[{"address": os.environ["REDIS_URL"]}], prefix=f"layer-test-{os.getpid()}"
    )


def test_a_send_to_a_channel_of_this_process_is_the_dict_itself_and_another_process_gets_a_copy():
    require_redis()

    async def exchange():
        here, there = a_layer(), a_layer()  # two processes' layers on one Redis
        mine, theirs = await here.new_channel(), await there.new_channel()
        local, remote = {"type": "game.push", "version": 3}, {"type": "game.push", "version": 4}
        try:
            await here.send(mine, local)
            await here.send(theirs, remote)
            got_local = await asyncio.wait_for(here.receive(mine), 5)
            got_remote = await asyncio.wait_for(there.receive(theirs), 5)
        finally:
            await here.flush()
            await there.flush()
        return local, got_local, remote, got_remote

    local, got_local, remote, got_remote = asyncio.run(exchange())
    assert got_local is local  # never serialised: no trip to Redis and back
    assert got_remote == remote and got_remote is not remote  # through Redis: a copy


def test_a_group_reaches_its_members_in_both_processes_once_each():
    require_redis()

    async def exchange():
        here, there = a_layer(), a_layer()
        mine, theirs = await here.new_channel(), await there.new_channel()
        await here.group_add("watchers", mine)
        await there.group_add("watchers", theirs)
        try:
            await here.group_send("watchers", {"type": "game.push", "version": 9})
            first = await asyncio.wait_for(here.receive(mine), 5)
            second = await asyncio.wait_for(there.receive(theirs), 5)
            # Nothing else comes: the sender's own member got it once.
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(here.receive(mine), 0.3)
        finally:
            await here.flush()
            await there.flush()
        return first, second

    first, second = asyncio.run(exchange())
    assert first == second == {"type": "game.push", "version": 9}
