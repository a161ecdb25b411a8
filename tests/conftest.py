"""Shared fixtures: users and clients from factories, a daphne live server, and Chromium for Playwright;
and the guard that keeps every test's connections on this machine (tests/support/network_guard.py).

With CI=true a test that needs Chromium, PostgreSQL or Redis fails when it is missing; elsewhere it is
skipped with a message that says how to enable it.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from channels.layers import channel_layers
from daphne.testing import DaphneProcess
from django.test import Client
from django.utils import translation

from dicegame.actors import GUEST_SESSION_KEY, Actor
from dicegame.play import rooms
from tests.support import network_guard
from tests.support.environment import (
    chromium_path,
    forget_login_failures,
    forget_throttle_counts,
    require,
)
from tests.support.factories import PASSWORD, UserFactory, befriend
from tests.support.live_server import make_application, use_test_database
from tests.support.strategy import (
    install_small_win_tables,
    strategy,  # noqa: F401  (a session fixture: the solved table)
)


def pytest_configure(config):
    # fork would copy asgiref's thread pool without its thread, and the daphne child would hang.
    multiprocessing.set_start_method("spawn", force=True)
    install_small_win_tables()
    network_guard.install()


def pytest_collection_modifyitems(config, items):
    browser_dir = Path(__file__).parent / "browser"
    for item in items:
        if browser_dir in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _loopback_only():
    """A test that tried to reach beyond this machine fails, even if the code it ran swallowed the
    refusal (the guard refused the connection before any packet left)."""
    network_guard.start_test()
    yield
    outside = network_guard.end_test()
    if outside:
        pytest.fail("connections beyond this machine:\n" + "\n".join(outside), pytrace=False)


@pytest.fixture
def resolver() -> network_guard.Resolver:
    """The test's own name lookups: `resolver.map(name, *addresses)`; forgotten after the test."""
    return network_guard.resolver


@pytest.fixture(autouse=True)
def _english_unless_asked():
    """A request in Dutch leaves Dutch active in its thread (Django never switches back): each test
    starts in English."""
    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Each test gets its own channel layer: a Redis layer keeps asyncio locks bound to the event loop
    it first ran on, and every async test has a loop of its own."""
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@pytest.fixture(autouse=True)
def _fresh_login_throttle():
    """Every test starts with no failed logins, sign-ups or confirmation mails counted (the test client's
    address is always the same)."""
    forget_login_failures()
    forget_throttle_counts()
    yield


# -- people ------------------------------------------------------------------------------------------


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def user_client(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def guest_client(db) -> Client:
    """A visitor with a guest key in their session (as after pressing Play solo)."""
    client = Client()
    session = client.session
    session[GUEST_SESSION_KEY] = "guest-key-for-tests"
    session.save()
    return client


@pytest.fixture
def guest_actor() -> Actor:
    return Actor(guest_key="guest-key-for-tests", name="Guest")


@pytest.fixture
def user_actor(user) -> Actor:
    return Actor(user_id=user.pk, name=user.username)


# -- a room of a game against friends ----------------------------------------------------------------------


@pytest.fixture
def host(db):
    return UserFactory(username="hana")


@pytest.fixture
def friend(host):
    friend = UserFactory(username="femke")
    befriend(host, friend)
    return friend


@pytest.fixture
def room(host):
    """A room for three, created by the host, with a turn timer of 60 s."""
    return rooms.room_create(actor=Actor(user_id=host.pk, name=host.username), seats=3, turn_seconds=60)


# -- the live server (daphne, so WebSockets work too) -------------------------------------------------


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker):
    # The server runs the game clock (auto-commits, turn timers) as production does.
    os.environ["PENTA_CLOCK_IN_WEB"] = "true"
    server = DaphneProcess("127.0.0.1", make_application, setup=use_test_database)
    server.daemon = True
    server.start()
    if not server.ready.wait(timeout=60):
        server.terminate()
        raise RuntimeError("the daphne test server did not start")
    try:
        yield f"http://127.0.0.1:{server.port.value}"
    finally:
        server.terminate()
        server.join(timeout=10)


# -- Chromium for Playwright -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    path = chromium_path()
    require(
        path is not None,
        "Chromium",
        "apt-get install chromium (the Debian build; Playwright cannot download one)",
    )
    return {**browser_type_launch_args, "executable_path": path}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "locale": "en-GB", "viewport": {"width": 1100, "height": 900}}
