"""A bare Channels consumer that sends back every text frame: the baseline of `bench/live_games.py`.

Routed only when the setting PENTA_BENCH_ECHO is on (the benchmark's own server), never in production.
"""

from channels.generic.websocket import AsyncWebsocketConsumer


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None):
        if text_data is not None:
            await self.send(text_data=text_data)
