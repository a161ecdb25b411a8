"""The threads a web process runs its game sockets' moves on (roll, hold, choose, confirm, hurry, take
back): their database work and the pushes rendered after it.

Channels' `database_sync_to_async` runs every socket's database work on the process's one
thread-sensitive thread, one call after the other. A move holds that thread for about twice its CPU:
it waits on PostgreSQL for each of its statements and for the commit. With PostgreSQL a network round
trip away, as in most production set-ups, those waits add up: behind a proxy adding 0.3 ms each way (a
round trip of 0.82 ms; `bench/live_games.py --db-delay-ms 0.3`), the one thread let two web processes
serve 117-146 moves a second to 200 games whose players wanted 180, 305-646 ms from a tap to the other
screen (median), and one process 102-142 moves a second in a closed loop with its core less than half busy.
Here moves run on a few threads (PENTA_SOCKET_DB_THREADS), each lending a connection from the process's
pool for the call, so that one move's waits overlap another's work: 180 moves a second, 13-15 ms
(p99 45-46 ms), and 345-375 in the closed loop (two threads: 240).

The price, with the database on the same machine: the threads and the event loop take turns at the
interpreter lock, and the tail grows (K = 200 on loopback: p99 19-51 ms with four threads, 16-20 ms with
one). Where PostgreSQL runs beside the web processes, PENTA_SOCKET_DB_THREADS=1 is the better choice.
When the event loop runs late it is mostly back from a call that let go of the lock (zlib compressing a
push, a socket's or Redis's write, epoll) and waiting to take it back from a move's CPU: the loop's many
short I/O calls queue behind these threads (docs/performance.md), which no switch interval
tried (0.2-1 ms) undid. Moves on the loop itself did no better: the loop then waits out their round trips.
Nor did moves on the loop in greenlets whose database waits hand the loop back (tried, not kept):
the loop's stalls went, but the tail moved into the moves and their wait for a connection.

Moves of one game still take turns at the game's row lock, as they already did between processes. A
socket's next message is handled only once its last move is done: a consumer handles its messages one
at a time. The sockets' other database work (opening and closing them, a whole board) stays on
channels' thread, in the order the sockets asked for it.

On SQLite there is one thread: a second writer would only wait on the file's lock, polling."""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.db import close_old_connections

# Threads are started on the first calls only (and never more than the setting).
_EXECUTOR = ThreadPoolExecutor(max_workers=settings.PENTA_SOCKET_DB_THREADS, thread_name_prefix="socket-db")


def in_db_thread(func) -> SyncToAsync:
    """`func` as a coroutine function run on the sockets' database threads, old connections closed
    before and after the call (on PostgreSQL the connection goes back to the pool), as channels'
    `database_sync_to_async` does. Django's close_old_connections itself, not through channels.db, whose
    name channels' test communicators replace with a no-op while they run: that is for a call that may
    run in the test's own thread, and these never do."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        close_old_connections()
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False, executor=_EXECUTOR)
