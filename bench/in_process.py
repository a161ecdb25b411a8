"""What the in-process benches share (action_cpu.py, chat_line.py): the checkout's settings for a process
without a server, and a temporary database, SQLite or PostgreSQL, dropped at the end."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
from urllib.parse import urlsplit, urlunsplit


@contextlib.contextmanager
def temporary_site(pg_server: str | None, prefix: str):
    """Settings for the checkout in the current directory (its code is imported from there), no Redis
    and no cache server, on a temporary SQLite file or (pg_server) a temporary PostgreSQL database."""
    sys.path.insert(0, os.getcwd())
    os.environ.update(
        DJANGO_SETTINGS_MODULE="penta.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(40),
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        WHITENOISE_USE_FINDERS="true",
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("CACHE_URL", None)
    if not pg_server:
        os.environ.pop("DATABASE_URL", None)
        os.environ["SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(), "db.sqlite3")
        yield
        return
    import psycopg

    database = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    os.environ["DATABASE_URL"] = urlunsplit(urlsplit(pg_server)._replace(path=f"/{database}"))
    try:
        yield
    finally:
        from django.db import connections

        connections.close_all()
        connections["default"].close_pool()  # the pool keeps its connections open otherwise
        with psycopg.connect(pg_server, autocommit=True) as admin:
            # Connections of other threads (the pool's, a bench's workers) are theirs to close: FORCE
            # ends them.
            admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
