"""Pushes sent side by side, with bounds: at most PER_PERSON at once for one person's devices, one
device's pushes one after another in the order given (a device shows the last of a game's notifications:
"time almost up" must not arrive before "your turn"), and QUICK at once in a call while pushes are quick,
plus one for each push under way for longer than SLOW_SECONDS, up to SENDERS. Each push ends by its own
deadline (PENTA_PUSH_TIMEOUT_SECONDS), so a slow or hostile device holds one sender for that long, and
within SLOW_SECONDS another takes its place for everyone else's pushes; a person with many slow devices
holds PER_PERSON senders, not all of them. (Quick pushes gain nothing from more threads than that: they
would only contend for the interpreter with the thread that records them.)

`run` does no database work in the senders: the caller's thread gets each result as soon as its push
ends (`on_done`, to record it there and then) and renews what it holds (`keep_alive`) every so often
while pushes are under way."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

SENDERS = 8
PER_PERSON = 2
QUICK = 2
SLOW_SECONDS = 0.2

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="push-sender")
        return _pool


@dataclass(eq=False)
class Job:
    person: int
    device: int  # a device's jobs run one at a time, in their order
    work: Callable[[], Any]  # must not touch the database (it runs in a sender's thread)
    tag: Any = None  # the caller's, handed back with the result


def run(
    jobs: list[Job],
    *,
    on_done: Callable[[Job, Any], None],
    keep_alive: Callable[[], None] = lambda: None,
    every: float = 30.0,
    more: Callable[[], list[Job]] | None = None,
    more_every: float = 1.0,
    more_for: float = 60.0,
) -> None:
    """Do the jobs (in their order, within the bounds) and hand each result (or the exception it
    raised) to `on_done`, in this thread, as it comes; `keep_alive()` every `every` seconds meanwhile.
    While jobs are under way and a sender is free, `more()` is asked for further jobs every
    `more_every` seconds (for `more_for` seconds at most), so that work that comes due meanwhile does
    not wait for the slowest job. If `keep_alive` fails, no further job is started; those under way
    are waited for and handed on, then its error is raised."""
    waiting: deque[Job] = deque(jobs)
    running: dict[Future, Job] = {}
    since: dict[Future, float] = {}
    busy: Counter[int] = Counter()
    started = time.monotonic()
    renew_at, more_at = started + every, started + more_every
    failure: BaseException | None = None
    while waiting or running:
        held = {job.device for job in running.values()}
        now = time.monotonic()
        slow = sum(1 for started_at in since.values() if now - started_at >= SLOW_SECONDS)
        room = min(SENDERS, QUICK + slow)
        for job in list(waiting):
            if len(running) >= room:
                break
            if busy[job.person] >= PER_PERSON or job.device in held:
                held.add(job.device)  # its later jobs wait for it
                continue
            waiting.remove(job)
            busy[job.person] += 1
            held.add(job.device)
            future = _executor().submit(job.work)
            running[future], since[future] = job, time.monotonic()
        now = time.monotonic()
        wake = [renew_at]
        if more is not None and len(running) < SENDERS and now < started + more_for:
            wake.append(more_at)
        if waiting and len(running) < SENDERS:  # a push turning slow makes room
            wake.extend(t + SLOW_SECONDS for t in since.values() if now - t < SLOW_SECONDS)
        done, _running = wait(running, timeout=max(0.0, min(wake) - now), return_when=FIRST_COMPLETED)
        for future in done:
            job = running.pop(future)
            del since[future]
            busy[job.person] -= 1
            try:
                result = future.result()
            except Exception as exc:  # the job's own bug: its caller decides what it means
                result = exc
            on_done(job, result)
        now = time.monotonic()
        if now >= renew_at and (waiting or running):
            renew_at = now + every
            try:
                keep_alive()
            except Exception as exc:
                logger.exception("could not renew the senders' claim: no further push is started")
                failure, more = exc, None
                waiting.clear()
        if more is not None and now >= more_at and running and now < started + more_for:
            more_at = now + more_every
            if len(running) < SENDERS:
                try:
                    waiting.extend(more())
                except Exception:
                    logger.exception("could not take on more pushes: the next sweep will")
                    more = None
    if failure is not None:
        raise failure
