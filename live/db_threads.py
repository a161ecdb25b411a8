"""The threads a web process runs its game sockets' actions on (roll, hold, choose, confirm, hurry,
take back: the path a game page's actions take while its socket is open, docs/live-play.md): their
database work, their answer, and the pushes rendered after the commit.

Channels' `database_sync_to_async` runs every socket's database work on the process's one
thread-sensitive thread, one call after the other. An action holds that thread for about twice its
CPU: it waits on PostgreSQL for each of its statements and for the commit, and with PostgreSQL a
network round trip away those waits add up (one thread served two web processes 117-146 actions a
second where 200 games wanted 180). Here actions run on a few threads (PENTA_SOCKET_DB_THREADS), each
lending a connection from the process's pool for the call, so that one action's waits overlap another's
work. What else was tried is in docs/performance.md.

Actions of one game still take turns at the game's row lock, as they do between processes. A socket's
next message is handled only once its last action is done: a consumer handles its messages one at a
time. The sockets' other database work (opening and closing them, a whole board) stays on channels'
thread, in the order the sockets asked for it.

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
