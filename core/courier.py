"""The process's courier: channel-layer messages sent from synchronous code (a service, a worker
thread) in order, without waiting for Redis.

Messages are (how, where, event): "send" to a channel, "group" to a group. On a server the courier runs
on the process's event loop (the one asgiref's sync_to_async records for the thread), one queue per
loop, so every push of the process leaves in the order it was handed over and a request never waits for
Redis; plain synchronous code (a test, a command with no event loop) delivers them itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import weakref

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError

logger = logging.getLogger(__name__)

Message = tuple[str, str, dict]


def game_group(game_id: int) -> str:
    """Every socket of the game: for what all of them handle alike (the room's changes, the winning
    chances bar)."""
    return f"game_{game_id}"


def dispatch(messages: list[Message]) -> None:
    """Hand the messages to this process's courier on its event loop, in order, without waiting for
    Redis (the action answers sooner, and a process that is stopping cannot hang on a loop that no
    longer runs); plain synchronous code (a test, a command with no event loop) delivers them itself."""
    loop = event_loop()
    if loop is None:
        async_to_sync(deliver)(messages)
        return
    try:
        loop.call_soon_threadsafe(post, messages)
    except RuntimeError:  # the loop closed under us: the process is stopping
        logger.warning("the process is stopping: %d pushes not sent", len(messages))


def event_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this thread works for (asgiref's sync_to_async records it, in an
    undocumented thread-local that tests/test_private_names.py pins), if any."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


_outboxes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def post(messages: list[Message]) -> None:
    """On the event loop: queue the messages for the loop's one courier, which sends them in order."""
    loop = asyncio.get_running_loop()
    if loop not in _outboxes:
        outbox = asyncio.Queue()
        # The task is kept with its queue: the loop holds tasks only weakly.
        _outboxes[loop] = (outbox, loop.create_task(_courier(outbox)))
    _outboxes[loop][0].put_nowait(messages)


async def _courier(outbox: asyncio.Queue) -> None:
    while True:
        messages = await outbox.get()
        # Whatever else was handed over meanwhile goes with it, in order: a busy process sends its
        # backlog in one go (the production layer publishes it in one round trip) instead of queueing
        # each push behind the last one's answer from Redis.
        while not outbox.empty():
            messages = messages + outbox.get_nowait()
        await deliver(messages)


async def deliver(messages: list[Message]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    # When they left: a push's "queued" stage ends here, its "transit" begins (core.metrics).
    sent_at = time.time()
    for _how, _where, event in messages:
        event["sent_at"] = sent_at
    send_many = getattr(layer, "send_many", None)
    if send_many is not None:  # the production layer (live.layer): its own retry, one pipeline
        try:
            await send_many(messages)
        except Exception as exc:
            # In a Redis outage every push fails alike: one line for the lot.
            versions = sorted({str(event.get("version")) for _how, _where, event in messages})
            logger.warning(
                "could not broadcast %d push(es) (versions %s): %r", len(messages), ", ".join(versions), exc
            )
        return
    for how, where, event in messages:
        send = layer.send if how == "send" else layer.group_send
        try:
            try:
                await send(where, event)
            except RedisConnectionError:
                # A pooled connection that Redis dropped (it restarted) fails its first command, and
                # redis-py connects afresh for the next: without this retry the first push after a
                # Redis restart was lost, and a screen waiting on it stayed stale.
                await send(where, event)
        except Exception as exc:  # one screen's channel (full, of a dead process) must not stop the others
            # One line each: in a Redis outage every push fails alike.
            logger.warning("could not broadcast version %s to %s: %r", event.get("version"), where, exc)
