"""The statements the ORM cannot express (core.statements): an UPDATE that answers the row it changed,
and on PostgreSQL the game's lock with its seats and turn in play in one statement. Their rows are the
models the ORM itself makes of the same rows, on either database."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from core.statements import LockAndRead, UpdateReturning
from dicegame.models import Game, Player, Turn
from dicegame.play import kernel
from tests.support.factories import actor
from tests.support.games import roll, two_player_game


def _fields(instance):
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def _bump(q) -> str:
    return f"{q('version')} = {q('version')} + 1, {q('updated_at')} = %s"


@pytest.mark.django_db
def test_an_update_that_returns_the_row_gives_the_model_the_orm_reads():
    game, _host, _friend = two_player_game()
    before = Game.objects.get(pk=game.pk)
    at = timezone.now()
    returned = UpdateReturning(Game, _bump).fetch(at, game.pk)
    read = Game.objects.get(pk=game.pk)
    assert type(returned) is Game and _fields(returned) == _fields(read)
    assert returned.version == before.version + 1 and returned.updated_at == at
    assert returned._state.adding is False and returned._state.db == "default"
    # Its foreign keys load their objects, and it saves like any model read by the ORM.
    assert returned.host_id == game.host_id and returned.host == game.host
    returned.hints_used = True
    returned.save(update_fields=["hints_used"])
    assert Game.objects.get(pk=game.pk).hints_used


@pytest.mark.django_db
def test_the_returned_columns_go_through_djangos_converters():
    """A JSON column comes back as the JSON's value (on SQLite a date as a date, not text)."""
    game, host, _friend = two_player_game()
    roll(game, actor(host))
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    returned = UpdateReturning(Turn, lambda q: f"{q('chosen_box')} = %s").fetch("CHANCE", turn.pk)
    assert returned.chosen_box == "CHANCE"
    assert _fields(returned) == _fields(Turn.objects.get(pk=turn.pk))
    assert isinstance(returned.dice, list) and len(returned.dice) == 5 and returned.held == turn.held


@pytest.mark.django_db
def test_no_such_row_is_none_and_changes_nothing():
    game, _host, _friend = two_player_game()
    assert UpdateReturning(Game, _bump).fetch(game.updated_at, game.pk + 1000) is None
    assert Game.objects.get(pk=game.pk).version == game.version


# -- PostgreSQL: the lock, the seats and the turn in play in one statement ------------------------------

LOCK_AND_READ = LockAndRead(
    Game,
    _bump,
    "version",
    many=(Player, "game_id", "seat"),
    first=(Turn, "game_id", lambda c: f"{c('completed_at')} IS NULL", "number"),
)


@pytest.fixture
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL statement: run with DATABASE_URL=postgres://...")


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.usefixtures("_postgres_only")
def test_the_lock_reads_the_seats_and_the_turn_in_play_as_the_orm_does():
    game, host, _friend = two_player_game()
    roll(game, actor(host))
    version = Game.objects.get(pk=game.pk).version
    with transaction.atomic():
        parent, seats, turn, stale = LOCK_AND_READ.fetch(game.pk, game.updated_at)
    assert not stale and parent.version == version + 1
    assert _fields(parent) == _fields(Game.objects.get(pk=game.pk))
    assert [_fields(p) for p in seats] == [
        _fields(p) for p in Player.objects.filter(game=game).order_by("seat")
    ]
    in_play = Turn.objects.get(game=game, completed_at__isnull=True)
    assert _fields(turn) == _fields(in_play) and isinstance(turn.dice, list)
    assert all(s._state.adding is False for s in [parent, *seats, turn])
    assert LOCK_AND_READ.fetch(game.pk + 1000, game.updated_at) is None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_postgres_only")
def test_seats_changed_while_the_lock_waited_are_read_again():
    """The statement reads the seats in the snapshot it took before waiting for the game's lock: when
    the transaction that held the lock changed them, it answers `stale`, and the kernel reads them
    again."""
    game, _host, _friend = two_player_game()
    holding, changed = threading.Event(), threading.Event()
    found: dict = {}

    def holder():
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game.pk)
                holding.set()
                changed.wait(10)
                Player.objects.filter(game=game, seat=1).update(name="Renamed")
                Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
        finally:
            connection.close()

    def locker():
        try:
            holding.wait(10)
            with transaction.atomic():
                found["raw"] = LOCK_AND_READ.fetch(game.pk, game.updated_at)
            with transaction.atomic():
                found["kernel"] = kernel.lock_bump_and_read(game.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=holder), threading.Thread(target=locker)]
    for thread in threads:
        thread.start()
    holding.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the locker waits for the game's row lock
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                break
        time.sleep(0.02)
    changed.set()
    for thread in threads:
        thread.join(30)
    parent, seats, _turn, stale = found["raw"]
    assert stale and parent.version == game.version + 2
    assert seats[1].name != "Renamed"  # as they were before the lock was granted
    assert found["kernel"].seats[1].name == "Renamed"
