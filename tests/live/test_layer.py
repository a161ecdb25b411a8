"""The production channel layer (live.layer): a message to a screen of this process is delivered in
memory, the dict itself; a screen of another process and every group still go through Redis."""

from __future__ import annotations

import asyncio
import os

import pytest
from channels.layers import channel_layers

from core import courier
from live.layer import BATCH, LocalFirstPubSubLayer
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


def test_many_messages_at_once_reach_each_process_in_the_order_sent():
    """`send_many` (what the courier hands over): a channel of this process gets the dict itself at
    once, the rest go through Redis in pipelines of BATCH, in order, groups to every member once."""
    require_redis()
    count = BATCH * 2 + 5  # three pipelines

    async def exchange():
        here, there = a_layer(), a_layer()
        mine, theirs = await here.new_channel(), await there.new_channel()
        await here.group_add("watchers", mine)
        await there.group_add("watchers", theirs)
        local = {"type": "game.push", "version": 0}
        messages = [("send", mine, local)]
        messages += [("send", theirs, {"type": "game.push", "version": v}) for v in range(1, count)]
        messages.append(("group", "watchers", {"type": "game.push", "version": count}))
        try:
            await here.send_many(messages)
            got_mine = [await asyncio.wait_for(here.receive(mine), 5) for _ in range(2)]
            got_theirs = [await asyncio.wait_for(there.receive(theirs), 5) for _ in range(count)]
            with pytest.raises(TimeoutError):  # nothing twice
                await asyncio.wait_for(there.receive(theirs), 0.3)
        finally:
            await here.flush()
            await there.flush()
        return local, got_mine, got_theirs

    local, got_mine, got_theirs = asyncio.run(exchange())
    assert got_mine[0] is local  # never serialised
    assert got_mine[1] == {"type": "game.push", "version": count}  # the group, heard back from Redis
    assert [m["version"] for m in got_theirs] == list(range(1, count + 1))


def test_the_courier_sends_a_backlog_in_order_in_one_go(settings):
    """Pushes handed to the courier while it waits on Redis leave together, in the order handed over:
    the screen of another process sees every version in turn."""
    require_redis()
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "live.layer.LocalFirstPubSubLayer",
            "CONFIG": {"hosts": [{"address": os.environ["REDIS_URL"]}], "prefix": f"courier-{os.getpid()}"},
        }
    }
    channel_layers.backends = {}
    batches: list[int] = []

    async def exchange():
        layer = channel_layers["default"]
        there = a_layer()
        theirs = await there.new_channel()
        real = layer.send_many

        async def counted(messages):
            batches.append(len(messages))
            await real(messages)

        layer.send_many = counted
        try:
            # Handed over one by one, as the actions' threads do, faster than Redis answers.
            for version in range(1, 41):
                courier.post([("send", theirs, {"type": "game.push", "version": version})])
            got = [await asyncio.wait_for(there.receive(theirs), 5) for _ in range(40)]
        finally:
            await layer.flush()
            await there.flush()
        return [m["version"] for m in got]

    try:
        assert asyncio.run(exchange()) == list(range(1, 41))
    finally:
        channel_layers.backends = {}
    assert sum(batches) == 40
    assert len(batches) < 40  # a backlog left together
