"""The channel layer of the production set-up: channels-redis's pub/sub layer, with one shortcut.

A message sent to a channel of this very process (a screen served here) is put straight on that
channel's queue, as the dict it is: no serialising, no round trip through Redis and back, no
deserialising. In a live game the player who acts is served by the process that applied the action,
so one of every game's two pushes stays in the process. A channel of another process, and every group,
goes through Redis as before (a group's members may be anywhere; this process hears its own group
messages back from Redis like everyone else's).
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer


class LocalFirstPubSubLayer(RedisPubSubChannelLayer):
    async def send(self, channel, message):
        # The layer of this event loop holds a queue for each channel a consumer of it listens on.
        layer = self._get_layer()
        queue = layer.channels.get(channel)
        if queue is not None:
            queue.put_nowait(message)
            return
        await layer.send(channel, message)

    def deserialize(self, message):
        # A message delivered in the process is the dict itself; one from Redis is bytes.
        return message if isinstance(message, dict) else super().deserialize(message)
