"""The channel layer of the production set-up: channels-redis's pub/sub layer, with two shortcuts.

A message sent to a channel of this very process (a screen served here) is put straight on that
channel's queue, as the dict it is: no serialising, no round trip through Redis and back, no
deserialising. In a live game the player who acts is served by the process that applied the action,
so one of every game's two pushes stays in the process. A channel of another process, and every group,
goes through Redis as before (a group's members may be anywhere; this process hears its own group
messages back from Redis like everyone else's).

And many messages at once (`send_many`, what the process's courier hands over) leave in one Redis
pipeline per shard: one round trip for all of them. channels-redis publishes one message at a time under
its shard's lock, waiting for Redis's answer before the next, and each answer waits for the event loop
to come round to it: on a busy process that capped its pushes at one per turn of the loop, and under
load they queued behind each other for tens of milliseconds (`bench/publish_batch.py`).
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer
from redis.exceptions import ConnectionError as RedisConnectionError

# Messages per pipeline: a backlog leaves in a few round trips, none of which holds the shard's lock (and
# with it the process's subscriptions: a socket opening) for long.
BATCH = 64


class LocalFirstPubSubLayer(RedisPubSubChannelLayer):
    async def send(self, channel, message):
        # The layer of this event loop holds a queue for each channel a consumer of it listens on.
        layer = self._get_layer()
        queue = layer.channels.get(channel)
        if queue is not None:
            queue.put_nowait(message)
            return
        await layer.send(channel, message)

    async def send_many(self, messages: list[tuple[str, str, dict]]) -> None:
        """("send", channel, message) and ("group", group, message), in order: a channel of this process
        at once, the rest published through one pipeline per shard.

        Built on channels-redis 4.3's pub/sub internals (its shards, their lock and client, the name of a
        group's channel; tests/test_private_names.py pins the version they were checked in): what
        `send` and `group_send` do for one message, for many. `tests/live/test_layer.py` checks it
        against two layers on a real Redis.

        A pipeline that fails is tried once more, the others are still sent, and then the first
        error is raised: a pooled connection that Redis dropped (it restarted) fails its first command,
        and redis-py connects afresh for the next."""
        layer = self._get_layer()
        by_shard: dict = {}
        for how, where, message in messages:
            if how == "send":
                queue = layer.channels.get(where)
                if queue is not None:
                    queue.put_nowait(message)
                    continue
                channel = where
            else:
                channel = layer._get_group_channel_name(where)
            shard = layer._get_shard(channel)
            by_shard.setdefault(shard, []).append((channel, self.serialize(message)))
        failure: Exception | None = None
        for shard, published in by_shard.items():
            for start in range(0, len(published), BATCH):
                chunk = published[start : start + BATCH]
                try:
                    try:
                        await _publish(shard, chunk)
                    except RedisConnectionError:
                        await _publish(shard, chunk)
                except Exception as exc:
                    failure = failure or exc
        if failure is not None:
            raise failure

    def deserialize(self, message):
        # A message delivered in the process is the dict itself; one from Redis is bytes.
        return message if isinstance(message, dict) else super().deserialize(message)


async def _publish(shard, published: list[tuple[str, bytes]]) -> None:
    async with shard._lock:
        shard._ensure_redis()
        if len(published) == 1:  # the usual case: a pipeline would only add its own cost (~70 us)
            await shard._redis.publish(*published[0])
            return
        pipe = shard._redis.pipeline(transaction=False)
        for channel, data in published:
            pipe.publish(channel, data)
        await pipe.execute()
