"""Real servers a test starts for itself: a private PostgreSQL cluster that it may stop and start at will
(CI's shared one must never be restarted), and the project's own processes (`run_timers`, daphne)
pointed at it.

The cluster lives in a temporary directory, listens on a free port of 127.0.0.1 only and runs with
fsync off. As root, initdb and pg_ctl refuse to run: they run as the `postgres` user (`runuser`), which
owns the directory. Everything the tests write goes through subprocesses that run the project's own
settings against the cluster, so none of this touches the test database of the pytest process."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tests.support import ROOT

PG_BIN = Path(os.environ.get("PENTA_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
SECRET_KEY = "penta-tests-private-servers-secret-key-0123456789abcdef"

# Settings of the pytest process and of CI that must not leak into a process meant for the private
# cluster (the test settings would rename its database; CI's Redis and database are not its own).
_INHERITED_NOT = (
    "DATABASE_URL",
    "REDIS_URL",
    "CACHE_URL",
    "DJANGO_SETTINGS_MODULE",
    "PENTA_TEST_RUN",
    "PENTA_USE_TEST_DB",
    "PENTA_CLOCK_IN_WEB",
    "PENTA_PRODUCTION",
    "DEBUG",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(
    predicate: Callable[[], object], *, timeout: float, what: str | Callable[[], str], every: float = 0.05
):
    """Poll `predicate` until it returns something true (returned), failing the test after `timeout`
    with `what` (or what it returns then: a process's output, say)."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what() if callable(what) else what}")
        time.sleep(every)


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own: start, stop, restart, query."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="penta-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            os.chown(self.base, pwd.getpwnam("postgres").pw_uid, -1)

    def _run(self, tool: str, *args: str) -> None:
        command = [str(PG_BIN / tool), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        # In its own directory: the postgres user may not enter the caller's.
        result = subprocess.run(command, cwd=self.base, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(args)} failed: {result.stdout}{result.stderr}")

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth-local=trust", "--auth-host=trust",
            "--encoding=UTF8", "--no-locale", "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.base} -c fsync=off"
        options += " -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start"
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def url(self, database: str = "penta") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, params: tuple = (), database: str = "penta") -> list[tuple]:
        """Run one statement on a connection of its own (none is kept across a restart)."""

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []


def project_env(database_url: str, **extra: str) -> dict[str, str]:
    """The environment of a project process on `database_url`: production settings (DEBUG off, an
    explicit SECRET_KEY) over plain HTTP, static files from the finders, no Redis unless `extra` says."""
    env = {key: value for key, value in os.environ.items() if key not in _INHERITED_NOT}
    env.update(
        DJANGO_SETTINGS_MODULE="penta.settings",
        DATABASE_URL=database_url,
        SECRET_KEY=SECRET_KEY,
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        WHITENOISE_USE_FINDERS="true",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def run_django(env: dict[str, str], code: str, timeout: float = 60):
    """Run `code` in a fresh Django process with `env`; it prints one JSON value, which is returned."""
    script = f"import django, json\ndjango.setup()\n{code}"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode != 0:
        raise RuntimeError(f"the Django script failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


class ProjectProcess:
    """A long-running project process (run_timers, daphne) whose output goes to a file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log_path = log
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def terminate(self, timeout: float = 15) -> int:
        """SIGTERM, then wait; returns the exit status (killed after `timeout`: the test then fails)."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"{self.process.args} did not stop on SIGTERM:\n{self.output()}")
        finally:
            self._log.close()
        return status


def wait_for_port(port: int, process: ProjectProcess, timeout: float = 30) -> None:
    def listening() -> bool:
        if not process.alive():
            pytest.fail(f"the process for port {port} exited:\n{process.output()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    wait_until(listening, timeout=timeout, what=f"a server on port {port}")
