"""What every browser test shares: patient expectations, a desktop and a phone for the tests that run on
both, and browsers that close before the database is flushed.

Each test's own contexts (two players, a spectator) keep their sockets open on the live server until
they close, and the server answers a closing socket with writes (the seat's presence, the connection
row). Left open, they would write while the next flush truncates the tables: PostgreSQL then finds a
deadlock and fails the test's teardown. So: close them, then wait until the server has let go of
every socket, then flush (and flush again if the clock still got in the way)."""

from __future__ import annotations

import time

import pytest
from django.core.management.base import CommandError
from django.db import OperationalError
from django.test import TransactionTestCase
from playwright.sync_api import expect

from live.models import Connection
from tests.browser.pages import VIEWPORTS, WAIT_MS

SOCKETS_GONE_WITHIN_S = 5
_flush = TransactionTestCase._fixture_teardown


def _flush_again_after_a_deadlock(self):
    # The live server's own clock may hold a row lock as the flush truncates the tables; PostgreSQL
    # breaks such a deadlock by failing one side, and a failed flush (rolled back) is simply run again.
    for attempt in range(4):
        try:
            return _flush(self)
        except (OperationalError, CommandError) as exc:
            if "deadlock" not in str(exc.__cause__ or exc) or attempt == 3:
                raise
            time.sleep(0.2)


TransactionTestCase._fixture_teardown = _flush_again_after_a_deadlock


@pytest.fixture(autouse=True)
def _close_browsers_before_the_flush(transactional_db, browser):
    # Set up after the database (it asks for it), so torn down before the database's flush.
    yield
    for context in list(browser.contexts):
        context.close()
    deadline = time.monotonic() + SOCKETS_GONE_WITHIN_S
    while Connection.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _patient_expectations():
    expect.set_options(timeout=WAIT_MS)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture(params=sorted(VIEWPORTS))
def viewport(request) -> dict:
    return VIEWPORTS[request.param]


@pytest.fixture(scope="session", autouse=True)
def browser_mail():
    """A real SMTP server (aiosmtpd on loopback) for the live server's mail: set in the environment
    before the server's process starts (an autouse session fixture comes first), so its mail sweep
    sends there through Django's SMTP backend, as production does."""
    import os

    from tests.support.smtp import SmtpServer

    with SmtpServer() as server:
        os.environ["EMAIL_HOST"], os.environ["EMAIL_PORT"] = "127.0.0.1", str(server.port)
        yield server
