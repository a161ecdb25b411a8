"""Deployment settings, and that CI really runs on the services it claims to."""

import asyncio
import os
import subprocess
import sys

import pytest
from channels.layers import get_channel_layer
from django.db import connection

from tests.support import ROOT
from tests.support.environment import IN_CI, require_redis


def test_check_deploy_is_clean_under_production_settings(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "penta.settings",
        "DEBUG": "false",
        "PENTA_PRODUCTION": "true",
        "SECRET_KEY": "x" * 20 + "production-secret-key-with-enough-entropy-0123456789",
        "ALLOWED_HOSTS": "penta.example.com",
        "SQLITE_PATH": str(tmp_path / "deploy.sqlite3"),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "penta.settings",
        "DEBUG": "false",
        "PENTA_PRODUCTION": "true",
        "SECRET_KEY": "",
        "SQLITE_PATH": str(tmp_path / "x.sqlite3"),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def _import_settings(env_changes: dict[str, str | None], tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "settings.sqlite3")}
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, "-c", "import penta.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("secret_key", [None, ""], ids=["unset", "empty"])
def test_debug_off_without_a_secret_key_refuses_to_start(tmp_path, secret_key):
    """DEBUG off is production whatever else the environment says: no key, no server."""
    result = _import_settings({"DEBUG": None, "SECRET_KEY": secret_key, "PENTA_PRODUCTION": None}, tmp_path)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_development_without_a_secret_key_starts_with_debug_on(tmp_path):
    assert _import_settings({"DEBUG": "true", "SECRET_KEY": None}, tmp_path).returncode == 0
    assert _import_settings({"DEBUG": None, "SECRET_KEY": "k" * 50}, tmp_path).returncode == 0


@pytest.mark.parametrize("name", ["PENTA_REQUEST_THREADS", "PENTA_SOCKET_DB_THREADS"])
def test_a_process_without_threads_for_its_work_refuses_to_start(tmp_path, name):
    result = _import_settings({"DEBUG": "true", name: "0"}, tmp_path)
    assert result.returncode != 0
    assert "PENTA_REQUEST_THREADS and PENTA_SOCKET_DB_THREADS must be at least 1" in result.stderr
    assert _import_settings({"DEBUG": "true", name: "2"}, tmp_path).returncode == 0


@pytest.mark.django_db
def test_database_is_the_one_the_environment_names():
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        assert connection.vendor == "postgresql"
    else:
        assert connection.vendor == "sqlite"
        if IN_CI:
            assert not url, "CI's PostgreSQL pass must set DATABASE_URL=postgres://..."


def test_channel_layer_round_trip():
    """The configured layer (Redis when REDIS_URL is set) carries a group message."""
    if os.environ.get("REDIS_URL"):
        require_redis()

    async def round_trip():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add("penta-test", channel)
        await layer.group_send("penta-test", {"type": "game.updated", "version": 7})
        message = await asyncio.wait_for(layer.receive(channel), timeout=5)
        await layer.group_discard("penta-test", channel)
        return layer, message

    layer, message = asyncio.run(round_trip())
    assert message == {"type": "game.updated", "version": 7}
    expected = "LocalFirstPubSubLayer" if os.environ.get("REDIS_URL") else "InMemoryChannelLayer"
    assert type(layer).__name__ == expected


def _site_url(**env) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("PENTA_SITE_URL", "PORT")}
    environment |= {"DJANGO_SETTINGS_MODULE": "penta.settings", "DEBUG": "true", **env}
    result = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.PENTA_SITE_URL)"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_mail_links_lead_to_the_running_server_s_port():
    """`make run PORT=8201`: the links in its mails use 8201, not 8000 (issue 40)."""
    assert _site_url(PORT="8201") == "http://127.0.0.1:8201"
    assert _site_url() == "http://127.0.0.1:8000"
    assert _site_url(PORT="8201", PENTA_SITE_URL="https://penta.example.com") == "https://penta.example.com"
    makefile = (ROOT / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:") :].split("\n\n")[0]
    assert "PORT=$(PORT) $(PY) manage.py runserver 127.0.0.1:$(PORT)" in run
