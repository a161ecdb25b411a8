"""WebSocket clients of the game socket, through the real ASGI application (its origin check and the
session cookie included), and what tests read from its frames."""

from __future__ import annotations

import re

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from penta.asgi import application
from tests.support import ORIGIN
from tests.support.factories import session_cookie


async def cookie_header(user) -> tuple[bytes, bytes]:
    """The Cookie header of a fresh logged-in session of `user`."""
    return (b"cookie", (await database_sync_to_async(session_cookie)(user)).encode())


async def open_game_socket(game_id, user=None, *, origin=ORIGIN, query=""):
    """The game socket as `user` (None: a visitor) opens it: (communicator, connected, close code)."""
    headers = [origin]
    if user is not None:
        headers.append(await cookie_header(user))
    communicator = WebsocketCommunicator(application, f"/ws/games/{game_id}/{query}", headers=headers)
    connected, code = await communicator.connect(timeout=5)
    return communicator, connected, code


async def connect(game_id, user=None, *, query=""):
    """An open game socket as `user` (it must be let in)."""
    communicator, connected, _code = await open_game_socket(game_id, user, query=query)
    assert connected
    return communicator


async def open_notice_socket(user=None, *, origin=ORIGIN, extra=()):
    """The notification socket of every logged-in page, as `user` (None: a visitor) opens it:
    (communicator, connected, close code)."""
    headers = [origin, *extra]
    if user is not None:
        headers.append(await cookie_header(user))
    communicator = WebsocketCommunicator(application, "/ws/notifications/", headers=headers)
    connected, code = await communicator.connect()
    return communicator, connected, code


def version_of(html: str) -> int:
    return int(re.search(r'id="game-status"[^>]*data-version="(\d+)"', html).group(1))


async def frame_with_version(communicator, version: int) -> str:
    """The first frame of at least this version."""
    for _ in range(10):
        html = await communicator.receive_from(timeout=5)
        found = re.search(r'data-version="(\d+)"', html)
        if found and int(found.group(1)) >= version:
            return html
    raise AssertionError(f"no frame of version {version}")


async def receive_until(communicator, predicate, attempts=10):
    for _ in range(attempts):
        html = await communicator.receive_from(timeout=5)
        if predicate(html):
            return html
    raise AssertionError("the expected frame never came")


async def closed_with(communicator) -> int:
    """A refused screen is accepted, then closed with a code the page sees (and does not retry)."""
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close"
    return output["code"]
