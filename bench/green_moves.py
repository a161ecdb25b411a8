"""An experiment, not a server to run in production: live moves on the event loop, in greenlets.

    .venv/bin/python bench/live_games.py ... --server-module bench.green_moves

The web processes run `penta.server` with one change: a game socket's move (`GameConsumer._act`) runs
on the event loop in a greenlet instead of on a database thread (`live.db_threads`). Whenever the move
waits, for PostgreSQL (psycopg's `Connection.wait`) or for an awaitable (asgiref's `async_to_sync`: the
courier, notices), the greenlet hands the loop back and is resumed when the wait is over, as
SQLAlchemy's asyncio bridge does. A move borrows one of GREEN_MOVES_SLOTS slots (default 4), each with a
Django connection of its own, as a thread has.

It measures the one direction issue 21 had left: moves whose database waits do not hold the loop, with
no threads taking turns at the interpreter lock with it. Result (README, the live bench's row): the
loop's own stalls went, the tail did not. It needs DJANGO_ALLOW_ASYNC_UNSAFE (set here), runs Django's
ORM where Django does not support it, and works on PostgreSQL only.
"""

import asyncio
import contextvars
import os
import types

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings")
# Django refuses its ORM on a thread with a running event loop; the greenlets are on that thread.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
django.setup(set_prefix=False)

import greenlet  # noqa: E402
import psycopg  # noqa: E402
from asgiref import sync as asgiref_sync  # noqa: E402
from django.db import close_old_connections, connections  # noqa: E402

from dicegame import courier  # noqa: E402
from dicegame.web import consumers  # noqa: E402

SLOTS_N = int(os.environ.get("GREEN_MOVES_SLOTS", "4"))


class MoveGreenlet(greenlet.greenlet):
    slot = None


class GreenAwareLocal:
    """Django's per-thread connections, but per slot inside a move's greenlet."""

    def __init__(self, base):
        object.__setattr__(self, "_base", base)

    def _target(self):
        g = greenlet.getcurrent()
        slot = getattr(g, "slot", None)
        return slot if slot is not None else object.__getattribute__(self, "_base")

    def __getattr__(self, key):
        return getattr(self._target(), key)

    def __setattr__(self, key, value):
        setattr(self._target(), key, value)

    def __delattr__(self, key):
        delattr(self._target(), key)


connections._connections = GreenAwareLocal(connections._connections)


def _in_move():
    return isinstance(greenlet.getcurrent(), MoveGreenlet)


def _await(awaitable):
    """From a move's greenlet: await on the loop, return its result."""
    return greenlet.getcurrent().parent.switch(awaitable)


async def _ready(fileno, wait):
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def on(flag):
        if not fut.done():
            fut.set_result(flag)

    if wait & psycopg.waiting.Wait.R:
        loop.add_reader(fileno, on, psycopg.waiting.Ready.R)
    if wait & psycopg.waiting.Wait.W:
        loop.add_writer(fileno, on, psycopg.waiting.Ready.W)
    try:
        return await fut
    finally:
        if wait & psycopg.waiting.Wait.R:
            loop.remove_reader(fileno)
        if wait & psycopg.waiting.Wait.W:
            loop.remove_writer(fileno)


_orig_wait = psycopg.Connection.wait


def _wait(self, gen, interval=0.1, timeout=None):
    if not _in_move():
        return _orig_wait(self, gen, interval, timeout)
    fileno = self.pgconn.socket
    try:
        s = next(gen)
        while True:
            ready = _await(_ready(fileno, s))
            s = gen.send(ready)
    except StopIteration as ex:
        return ex.value


psycopg.Connection.wait = _wait

_orig_a2s_call = asgiref_sync.AsyncToSync.__call__


def _a2s_call(self, *args, **kwargs):
    if not _in_move():
        return _orig_a2s_call(self, *args, **kwargs)
    return _await(self.awaitable(*args, **kwargs))


asgiref_sync.AsyncToSync.__call__ = _a2s_call

_orig_dispatch = courier.dispatch


# The courier finds the loop through asgiref's record of the thread it works for; on the loop's own
# thread there is none, and the move is on the loop already: queue the pushes directly.
def _dispatch(messages):
    if not _in_move():
        return _orig_dispatch(messages)
    courier.post(messages)


courier.dispatch = _dispatch

# A slot keeps a Django connection between moves, as a thread does. Fewer slots than the pool's
# connections: a move that found the pool empty would block the whole loop in psycopg_pool's getconn.
_slots = [types.SimpleNamespace() for _ in range(SLOTS_N)]
_sem = None


async def run_move(func, *args):
    global _sem
    if _sem is None:
        _sem = asyncio.Semaphore(SLOTS_N)
    async with _sem:
        slot = _slots.pop()
        try:

            def body():
                close_old_connections()
                try:
                    return func(*args)
                finally:
                    close_old_connections()

            g = MoveGreenlet(body)
            g.gr_context = contextvars.copy_context()  # as sync_to_async gives its thread
            g.slot = slot
            value = g.switch()
            while not g.dead:
                try:
                    result = await value
                except BaseException as exc:  # the failure, a cancellation included, raised in the move
                    value = g.throw(exc)
                else:
                    value = g.switch(result)
            return value
        finally:
            _slots.append(slot)


_orig_act = consumers.GameConsumer.__dict__["_act"].func


async def _act(self, action, message, received_at):
    return await run_move(_orig_act, self, action, message, received_at)


consumers.GameConsumer._act = _act

if __name__ == "__main__":
    from penta.server import main

    main()
