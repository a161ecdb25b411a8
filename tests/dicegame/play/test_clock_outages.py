"""The game clock and the web processes outlive their database and Redis, as real processes.

Each test runs the project's own processes (`manage.py run_timers`, daphne) against a private
PostgreSQL cluster (tests/support/servers.py) that it stops and starts at will; the suite's database and CI's
shared PostgreSQL and Redis are never touched, so these run on both CI passes. Without PostgreSQL's
binaries they are skipped (in CI they fail)."""

from __future__ import annotations

import concurrent.futures
import pwd
import shutil
import time
import urllib.error
import urllib.request

import pytest

from tests.support.environment import require
from tests.support.servers import (
    PG_BIN,
    PrivatePostgres,
    ProjectProcess,
    free_port,
    project_env,
    run_django,
    wait_for_port,
    wait_until,
)


@pytest.fixture(scope="module")
def pg(strategy):  # the strategy table is built once here, not in every subprocess

    require(
        (PG_BIN / "initdb").exists(), "PostgreSQL 15", f"apt-get install postgresql (binaries in {PG_BIN})"
    )
    try:
        pwd.getpwnam("postgres")
        has_user = True
    except KeyError:
        has_user = False
    require(
        has_user and shutil.which("runuser") is not None,
        "the postgres user and runuser",
        "apt-get install postgresql (it creates the postgres user)",
    )
    server = PrivatePostgres()
    try:
        server.init()
        server.start()
        server.execute("CREATE DATABASE penta", database="postgres")
        run_django(
            project_env(server.url()),
            "from django.core.management import call_command\n"
            "call_command('migrate', interactive=False, verbosity=0)\nprint(json.dumps(True))",
            timeout=120,
        )
        yield server
    finally:
        server.destroy()


def rolled_game(pg: PrivatePostgres, *, computer: bool = False, due_in: float = 0.5) -> int:
    """A new game whose first turn has just had its third roll: its auto-commit comes due `due_in`
    seconds later. `computer`: against one easy computer player, and watched by a spectator (as the
    spectators' group of the language recorded), so that every change of it is pushed."""
    create = (
        "play.game_create_vs_computer(actor=actor, strengths=['easy'])\n"
        "game.spectator_languages = 'en'\n"
        "game.save(update_fields=['spectator_languages'])"
        if computer
        else "play.game_create_solo(actor=actor)"
    )
    return run_django(
        project_env(pg.url(), PENTA_AUTO_COMMIT_SECONDS=str(due_in)),
        "from dicegame import play\n"
        "from dicegame.actors import Actor\n"
        "actor = Actor(guest_key='clock-outage-test', name='Guest')\n"
        f"game = {create}\n"
        "for roll in range(3):\n"
        "    play.turn_roll(game_id=game.pk, actor=actor, turn=1, roll=roll)\n"
        "print(json.dumps(game.pk))",
    )


def turns(pg: PrivatePostgres, game_id: int) -> list[tuple[int, bool, bool]]:
    """(number, complete, auto-committed) of each turn of the game."""
    return pg.execute(
        "SELECT number, completed_at IS NOT NULL, auto_committed FROM dicegame_turn"
        " WHERE game_id = %s ORDER BY number",
        (game_id,),
    )


def auto_committed(pg: PrivatePostgres, game_id: int) -> bool:
    return turns(pg, game_id)[0][1:] == (True, True)


def run_timers(pg: PrivatePostgres, log, **env: str) -> ProjectProcess:
    return ProjectProcess(["manage.py", "run_timers", "--interval", "0.1"], project_env(pg.url(), **env), log)


def test_run_timers_survives_a_database_restart(pg, tmp_path):
    timers = run_timers(pg, tmp_path / "run_timers.log")
    pid = timers.pid
    try:
        first = rolled_game(pg)
        wait_until(lambda: auto_committed(pg, first), timeout=20, what="run_timers to auto-commit a turn")

        # An auto-commit that comes due while PostgreSQL is away (every connection is cut) and is
        # applied when it is back. Due 6 s after the roll: the process that rolled may take seconds to
        # exit on a busy machine, and the turn must still be open when the database goes.
        due_in = 6.0
        second = rolled_game(pg, due_in=due_in)
        rolled_at = time.monotonic()
        assert not auto_committed(pg, second)
        pg.stop()
        wait_until(
            lambda: "game clock: sweep failed (OperationalError" in timers.output(),
            timeout=10,
            what="run_timers to notice the database is gone",
        )
        time.sleep(max(0.0, due_in + 0.5 - (time.monotonic() - rolled_at)))  # it comes due meanwhile
        pg.start()

        wait_until(
            lambda: auto_committed(pg, second),
            timeout=40,  # at most one pause of the backoff (capped at 30 s) after the restart
            what=lambda: f"run_timers to auto-commit a turn after the restart\n{timers.output()}",
        )
        assert timers.alive() and timers.pid == pid
        output = timers.output()
        assert "recovered after" in output, output
        # One line per failed sweep, no traceback storm.
        assert "Traceback" not in output, output
    finally:
        status = timers.terminate()
    assert status == 0, timers.output()  # SIGTERM stops it cleanly
    assert "the game clock stopped" in timers.output()


def guest_game(env: dict[str, str], guest_key: str) -> tuple[int, str]:
    """A guest's session and their solo game, made in a process of the project's: (game id, cookie)."""
    return run_django(
        env,
        "from importlib import import_module\n"
        "from django.conf import settings\n"
        "from dicegame import play\n"
        "from dicegame.actors import GUEST_SESSION_KEY, Actor\n"
        "session = import_module(settings.SESSION_ENGINE).SessionStore()\n"
        f"session[GUEST_SESSION_KEY] = {guest_key!r}\n"
        "session.create()\n"
        f"actor = Actor(guest_key={guest_key!r}, name='Guest')\n"
        "game = play.game_create_solo(actor=actor)\n"
        "print(json.dumps([game.pk, f'{settings.SESSION_COOKIE_NAME}={session.session_key}']))",
    )


def http_status(url: str, cookie: str) -> int:
    request = urllib.request.Request(url, headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_web_process_serves_a_game_page_across_a_database_restart(pg, tmp_path):
    env = project_env(pg.url(), PENTA_CLOCK_IN_WEB="false")
    port = free_port()
    web = ProjectProcess(
        ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "penta.asgi:application"],
        env,
        tmp_path / "daphne.log",
    )
    try:
        # While it starts: a guest's session (a logged-in one would do as well) and their solo game.
        game_id, cookie = guest_game(env, "restart-viewer")
        wait_for_port(port, web)
        url = f"http://127.0.0.1:{port}/games/{game_id}/"
        assert [http_status(url, cookie) for _ in range(5)] == [200] * 5, web.output()

        pg.stop()
        time.sleep(1.0)  # the outage: every connection the web process kept is cut
        pg.start()

        # The very first request may still meet a dead connection; a retry a moment later must not.
        wait_until(lambda: http_status(url, cookie) == 200, timeout=5, what="the game page after the restart")
        statuses = [http_status(url, cookie) for _ in range(20)]
        assert statuses == [200] * 20, web.output()
        assert web.alive()
    finally:
        web.terminate()


def test_run_timers_settles_due_turns_while_redis_is_unreachable(pg, tmp_path):
    nowhere = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    timers = run_timers(pg, tmp_path / "run_timers.log", REDIS_URL=nowhere, PENTA_BOT_STEP_SECONDS="0.05")
    try:
        game = rolled_game(pg, computer=True)
        # The auto-commit, then the computer's whole turn, each change pushed (and each push failing).
        wait_until(
            lambda: [t[:2] for t in turns(pg, game)] == [(1, True), (2, True), (3, False)],
            timeout=30,
            what=lambda: f"the auto-commit and the computer's turn\n{timers.output()}",
        )
        assert turns(pg, game)[0][2], "the first turn was auto-committed"
        assert timers.alive()
        output = timers.output()
        assert "could not broadcast" in output, output  # the pushes failed, and were logged
        assert "game clock: sweep failed" not in output, output  # but never failed a sweep
    finally:
        status = timers.terminate()
    assert status == 0, timers.output()


def test_a_busy_web_process_keeps_its_database_connections_bounded(pg, tmp_path):
    """Under ASGI each request runs in a thread of its own: with persistent connections a busy process
    kept one per request until PostgreSQL refused more ("too many clients"). The pool bounds them."""
    env = project_env(pg.url(), PENTA_CLOCK_IN_WEB="false", PENTA_DB_POOL_MAX="4")
    port = free_port()
    web = ProjectProcess(
        ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "penta.asgi:application"],
        env,
        tmp_path / "daphne.log",
    )

    def connections() -> int:
        sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = 'penta' AND pid <> pg_backend_pid()"
        return pg.execute(sql)[0][0]

    try:
        game_id, cookie = guest_game(env, "busy-viewer")
        wait_for_port(port, web)
        url = f"http://127.0.0.1:{port}/games/{game_id}/"
        most = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            pending = [pool.submit(http_status, url, cookie) for _ in range(200)]
            while not all(f.done() for f in pending):
                most = max(most, connections())
                time.sleep(0.05)
            statuses = [f.result() for f in pending]
        assert statuses == [200] * 200, web.output()
        assert most <= 4, f"{most} connections for a pool of 4"
        assert connections() <= 4
    finally:
        web.terminate()
