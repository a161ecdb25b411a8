"""The game clock's loop: applies what is due (auto-commits, turn timers, the computer's moves:
`clock.games_settle_overdue`), expires idle rooms, challenges not answered in time and searches whose
page is gone, and runs what the apps register (`register`: the sockets of dead processes, the daily
games of ended days), whether or not any browser is watching.

Each web process runs it in the background (started by the first request it serves); `manage.py
run_timers` runs the same sweep as a process of its own. Any number may run at once: each change
takes the game's row lock and happens exactly once.

Both run the one loop, `run_clock`, which outlives its database and Redis: a sweep that fails on a
lost connection (a database restart, Redis down) logs one warning line, drops the broken database
connection and tries again after a pause that doubles from BACKOFF_FIRST_SECONDS up to
BACKOFF_MAX_SECONDS; when a sweep works again it logs that it recovered. Any other error is logged
with its traceback and the loop carries on the same way. It never stops on an error."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from dicegame.play.challenges import challenges_expire_due
from dicegame.play.clock import games_settle_overdue
from dicegame.play.rooms import games_expire_idle
from dicegame.play.seeks import seeks_expire_due

logger = logging.getLogger(__name__)

EXPIRY_SWEEP_SECONDS = 60.0
# Challenges and searches lapse within this of their time (their pages and inboxes hide them at once).
OFFERS_SWEEP_SECONDS = 5.0
# The pause after a failed sweep: doubles from the first to the largest, back to the interval on success.
BACKOFF_FIRST_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0
# Errors of a lost or refused connection, which the next attempts may not meet: one warning line each.
DATABASE_ERRORS = (OperationalError, InterfaceError)
TRANSIENT_ERRORS = (*DATABASE_ERRORS, RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError)
_task: asyncio.Task | None = None


# How often the work kept apart from the games' sweep runs (see `register`).
APART_INTERVAL = 0.5


@dataclass
class _Periodic:
    work: Callable[[], int | None]
    every: float
    before_settling: bool
    apart: bool | str
    last: float = field(default=-math.inf)

    @property
    def lane(self) -> str:
        """The loop it runs in: "" the games' sweep, "apart" the shared one kept apart, or its own."""
        return "" if not self.apart else "apart" if self.apart is True else self.apart


_periodic: list[_Periodic] = []


def register(
    work: Callable[[], int | None], *, every: float, before_settling: bool = False, apart: bool | str = False
) -> None:
    """Run `work` in the clock's sweeps, at most once every `every` seconds (apps register theirs from
    their AppConfig.ready). It returns how many games it changed (None: none counted). `before_settling`:
    ahead of the games' due turns (the sockets of dead processes, whose seats may owe their turn an
    absence grace period); else after them. `apart`: in a loop and a thread beside the games'
    (`sweep_apart`), for work that waits on other servers (a mail server) or takes long (an analysis),
    which must never hold up an auto-commit or a turn timer; True shares that loop with the other such
    work, a name gives the work a loop of that name (the pushes, whose services may be slow or hostile,
    hold up nothing else)."""
    if not any(p.work is work for p in _periodic):
        _periodic.append(_Periodic(work, every, before_settling, apart))


def sweep(*, force: bool = False) -> int:
    """One pass of the clock; returns how many games changed. `force`: every registered sweep runs now,
    whatever its interval."""
    try:
        return _sweep(force)
    finally:
        # The connection goes back to the pool between sweeps (with persistent connections it stays).
        if not connection.in_atomic_block:
            close_old_connections()


def _sweep(force: bool) -> int:
    # A long-lived loop must not keep a connection the database has dropped (but never closes one
    # that is inside a transaction, as in a test).
    if not connection.in_atomic_block:
        close_old_connections()
    changed = _run_periodic(before_settling=True, force=force)
    changed += games_settle_overdue()
    now = time.monotonic()
    global _last_expiry_sweep
    if force or now - _last_expiry_sweep > EXPIRY_SWEEP_SECONDS:
        _last_expiry_sweep = now
        changed += games_expire_idle()
    global _last_offers_sweep
    if force or now - _last_offers_sweep > OFFERS_SWEEP_SECONDS:
        _last_offers_sweep = now
        changed += challenges_expire_due() + seeks_expire_due()
    return changed + _run_periodic(before_settling=False, force=force)


_last_expiry_sweep = -math.inf
_last_offers_sweep = -math.inf


def sweep_apart(*, force: bool = False, lane: str | None = None) -> int:
    """One pass of the work kept apart from the games' sweep (see `register`): all of it, one after
    another, or that of one `lane` (a pass of that loop, in `run_clocks`)."""
    try:
        if not connection.in_atomic_block:
            close_old_connections()
        return _run_periodic(before_settling=False, force=force, apart=True, lane=lane)
    finally:
        if not connection.in_atomic_block:
            close_old_connections()


def _run_periodic(*, before_settling: bool, force: bool, apart: bool = False, lane: str | None = None) -> int:
    changed = 0
    for periodic in _periodic:
        if bool(periodic.apart) != apart or (not apart and periodic.before_settling != before_settling):
            continue
        if lane is not None and periodic.lane != lane:
            continue
        now = time.monotonic()
        if force or now - periodic.last > periodic.every:
            periodic.last = now
            changed += periodic.work() or 0
    return changed


def _sweep_in_thread(sweep_fn: Callable[[], int]) -> int:
    """One sweep, in the thread whose database connection it uses. A broken connection is closed
    there, so that the next sweep opens a new one instead of failing on the dead one again."""
    try:
        return sweep_fn()
    except DATABASE_ERRORS:
        drop_connection()
        raise


def drop_connection() -> None:
    """Close this thread's database connection, quietly; never inside a transaction (a test's atomic
    block), which closing would break."""
    if connection.in_atomic_block:
        return
    try:
        connection.close()
    except Exception as exc:  # a dead connection may fail to close; it is dropped all the same
        logger.debug("closing the broken database connection failed: %s", exc)


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or repr(exc)
    return f"{type(exc).__name__}: {text[:limit]}"


def backoff_seconds(failures: int) -> float:
    """The pause after the `failures`-th failed sweep in a row (1, 2, ...)."""
    return min(BACKOFF_FIRST_SECONDS * 2 ** min(failures - 1, 32), BACKOFF_MAX_SECONDS)


async def _pause(seconds: float, stop: asyncio.Event | None) -> None:
    if stop is None:
        await asyncio.sleep(seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def run_clock(
    interval: float,
    *,
    thread_sensitive: bool,
    stop: asyncio.Event | None = None,
    sweep_fn: Callable[[], int] | None = None,
    on_sweep: Callable[[int], None] | None = None,
    executor: ThreadPoolExecutor | None = None,
) -> None:
    """Sweep every `interval` seconds until `stop` is set (forever without one), surviving every error.

    Each sweep runs in a thread (`sync_to_async`): with `thread_sensitive=True` always the same one,
    so it keeps one database connection; else one of `executor`'s (a loop's own thread). Pushes sent
    after commit from a sweep come back to this event loop (asgiref's async_to_sync finds it), so they
    share one loop and one channel layer."""
    run_sweep = sync_to_async(
        partial(_sweep_in_thread, sweep_fn or sweep),
        thread_sensitive=thread_sensitive,
        executor=None if thread_sensitive else executor,
    )
    failures = 0
    failing_since = 0.0
    while stop is None or not stop.is_set():
        try:
            changed = await run_sweep()
        except TRANSIENT_ERRORS as exc:
            failures += 1
            failing_since = failing_since if failures > 1 else time.monotonic()
            pause = backoff_seconds(failures)
            logger.warning(
                "game clock: sweep failed (%s); retry %d in %.1f s", _one_line(exc), failures, pause
            )
        except Exception:
            failures += 1
            failing_since = failing_since if failures > 1 else time.monotonic()
            pause = backoff_seconds(failures)
            logger.exception("game clock: sweep failed unexpectedly; retry %d in %.1f s", failures, pause)
        else:
            if failures:
                logger.warning(
                    "game clock: recovered after %d failed sweep(s), %.1f s",
                    failures,
                    time.monotonic() - failing_since,
                )
                failures = 0
            if on_sweep is not None:
                on_sweep(changed)
            pause = interval
        await _pause(pause, stop)


async def run_clocks(
    interval: float,
    *,
    thread_sensitive: bool,
    stop: asyncio.Event | None = None,
    on_sweep: Callable[[int], None] | None = None,
) -> None:
    """The games' clock (`run_clock` of `sweep`) and, beside it, each loop of the work kept apart
    (`sweep_apart` of its lane), in a thread of its own, until `stop` is set: a push service that answers
    slowly delays neither the games nor the mails, the analyses or the assessments."""
    lanes = list(dict.fromkeys(periodic.lane for periodic in _periodic if periodic.apart))
    threads = [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"clock-{lane}") for lane in lanes]
    try:
        await asyncio.gather(
            run_clock(interval, thread_sensitive=thread_sensitive, stop=stop, on_sweep=on_sweep),
            *(
                run_clock(
                    APART_INTERVAL,
                    thread_sensitive=False,
                    stop=stop,
                    sweep_fn=partial(sweep_apart, lane=lane),
                    executor=thread,
                )
                for lane, thread in zip(lanes, threads, strict=True)
            ),
        )
    finally:
        # Each loop's database connection lives in its thread: closed there.
        loop = asyncio.get_running_loop()
        for thread in threads:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(loop.run_in_executor(thread, drop_connection), timeout=5)
            thread.shutdown(wait=False)


async def _run(interval: float) -> None:
    # In a web process the sweeps stay off the thread that serves requests' database work.
    await run_clocks(interval, thread_sensitive=False)


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
