"""The check psycopg_pool makes before it lends a PostgreSQL connection.

Every socket action and every request borrows a connection from the process's pool and gives it back
(channels' database_sync_to_async and Django's request end both return it). psycopg_pool's own check
asks the server an empty query each time: a round trip more for every action, when the connection was
in use a moment ago. Here a connection lent within the last RECENT_SECONDS is lent as it is; one that
waited longer is checked (the server may have restarted meanwhile: a broken one is dropped and another
lent). A connection that failed while in use is not lent again either way: the pool drops what comes
back broken.
"""

from __future__ import annotations

import time
import weakref

from psycopg_pool import ConnectionPool

RECENT_SECONDS = 0.5
_lent_at: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def check(conn) -> None:
    now = time.monotonic()
    last = _lent_at.get(conn)
    if last is None or now - last >= RECENT_SECONDS:
        ConnectionPool.check_connection(conn)  # raises for a broken one: the pool drops it
    _lent_at[conn] = now
