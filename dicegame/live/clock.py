"""The game clock: applies what is due (auto-commits, turn timers, the computer's moves) and expires
idle rooms, whether or not any browser is watching.

Each web process runs it in the background (started by the first request it serves); `manage.py
run_timers` runs the same sweep as a process of its own. Any number may run at once: each change
takes the game's row lock and happens exactly once."""

from __future__ import annotations

import asyncio
import logging
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection

logger = logging.getLogger(__name__)

EXPIRY_SWEEP_SECONDS = 60.0
_task: asyncio.Task | None = None
_last_expiry_sweep = 0.0


def sweep() -> int:
    """One pass of the clock; returns how many games changed."""
    global _last_expiry_sweep
    from dicegame.live.rooms import games_expire_idle
    from dicegame.services import games_settle_overdue

    # A long-lived loop must not keep a connection the database has dropped (but never closes one
    # that is inside a transaction, as in a test).
    if not connection.in_atomic_block:
        close_old_connections()
    changed = games_settle_overdue()
    now = time.monotonic()
    if now - _last_expiry_sweep > EXPIRY_SWEEP_SECONDS:
        _last_expiry_sweep = now
        changed += games_expire_idle()
    return changed


async def _run(interval: float) -> None:
    while True:
        try:
            await sync_to_async(sweep, thread_sensitive=False)()
        except Exception:  # the clock must keep going; the error is logged
            logger.exception("the game clock's sweep failed")
        await asyncio.sleep(interval)


def ensure_running() -> None:
    """Start this process's clock once, on its event loop."""
    global _task
    if _task is not None and not _task.done():
        return
    _task = asyncio.get_running_loop().create_task(_run(settings.PENTA_CLOCK_INTERVAL))


class ClockMiddleware:
    """ASGI wrapper that starts the process's clock with the first connection it serves."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if settings.PENTA_CLOCK_IN_WEB and scope["type"] in ("http", "websocket"):
            ensure_running()
        return await self.app(scope, receive, send)
