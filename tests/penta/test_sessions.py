"""Sessions (penta.sessions): read from the shared cache, written through to the database, and still
working, from the database alone, while the cache is down."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from penta import sessions
from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

DEAD_CACHE = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",  # nobody listens there: every call fails at once
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    }
}


def session_queries(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return [q["sql"] for q in queries.captured_queries if "django_session" in q["sql"]]


def test_a_session_is_read_from_the_cache_and_kept_in_the_database():
    user = UserFactory()
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    client.get("/")  # the first read may fill the cache
    assert session_queries(client, "/") == []  # then no request asks the database for it
    key = client.cookies["sessionid"].value
    assert Session.objects.filter(session_key=key).exists()  # and the database has it all along


def test_with_the_cache_down_a_person_logs_in_plays_and_logs_out_on_the_database_alone(caplog, monkeypatch):
    # The warning is said once a minute per process: an earlier test's dead cache may have said it.
    monkeypatch.setattr(sessions, "_last_warning", float("-inf"))
    user = UserFactory()
    with override_settings(CACHES=DEAD_CACHE):
        client = Client()
        answer = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
        assert answer.status_code == 302  # was a 500 with Django's own cached_db: the write-back failed
        assert session_queries(client, "/")  # read from the database
        assert client.post("/games/solo/").status_code == 302
        assert client.post("/accounts/logout/").status_code == 302
        assert not Session.objects.exists()
    assert "the cache failed" in caplog.text
