"""Telling every open screen of a game that it changed. Called by the services after commit.

The event carries only the new version: each connection renders the board for its own viewer (a
player sees their buttons, a spectator does not), so nothing private crosses to another seat."""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def game_group(game_id: int) -> str:
    return f"game_{game_id}"


def game_changed(game_id: int, version: int, change: str | None = None) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    event = {"type": "game.updated", "version": version, "change": change}
    try:
        async_to_sync(layer.group_send)(game_group(game_id), event)
    except Exception:  # the change is saved; a screen that misses it resyncs on reconnect
        logger.exception("could not broadcast version %s of game %s", version, game_id)
