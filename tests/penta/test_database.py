"""The pool's check before lending a PostgreSQL connection (penta.database)."""

from __future__ import annotations

import os

import psycopg
import pytest

from penta import database

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="the PostgreSQL pool's check"
)


def test_a_connection_lent_a_moment_ago_is_lent_again_unasked_and_one_that_waited_is_checked(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(database.time, "monotonic", lambda: clock[0])
    conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    database.check(conn)  # lent for the first time: checked (it answers)
    conn.close()  # it breaks while it is out (as when the server restarts)

    clock[0] += database.RECENT_SECONDS / 2
    database.check(conn)  # lent again a moment later: no round trip to find out

    clock[0] += database.RECENT_SECONDS
    with pytest.raises(psycopg.Error):
        database.check(conn)  # it waited: checked, and the pool drops it
