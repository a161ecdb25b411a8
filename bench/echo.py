"""Bare Channels consumers: the baselines of `bench/live_games.py`.

Routed only by the benchmarks' own server (`bench.asgi`, with `bench.settings`), never in production.

- `EchoConsumer` sends back every text frame: a socket's round trip through one process.
- `RelayConsumer` is the floor under a live action: a frame received on one process makes a board of a
  real game (the HTML of its `#game`, the size of a push) go through the channel layer to a socket on
  another process, as a push does, with no database, no template and no game behind it. A pair of
  sockets shares a group: the receiving one joins it, the sending one's every frame publishes the board
  to it (with the frame's text appended, so the bench can match what arrives to what it sent).
"""

from functools import cache
from pathlib import Path

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None):
        if text_data is not None:
            await self.send(text_data=text_data)


@cache
def relay_board() -> str:
    """The board the relay sends: a file the bench writes (a real game's `#game`), read once."""
    path = settings.BENCH_RELAY_BOARD
    return Path(path).read_text() if path else "<section id='game'></section>"


class RelayConsumer(AsyncWebsocketConsumer):
    """`ws/relay/<pair>/send/` publishes the board to the pair's group for every frame it receives;
    `ws/relay/<pair>/receive/` is in the group and writes what comes to its socket."""

    async def connect(self):
        kwargs = self.scope["url_route"]["kwargs"]
        self.group = f"relay_{kwargs['pair']}"
        self.receiving = kwargs["role"] == "receive"
        if self.receiving:
            await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if self.receiving:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is not None and not self.receiving:
            html = f"{relay_board()}<!--{text_data}-->"
            await self.channel_layer.group_send(self.group, {"type": "relay.push", "html": html})

    async def relay_push(self, event):
        await self.send(text_data=event["html"])
