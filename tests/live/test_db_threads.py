"""The sockets' database work runs on a few threads (live.db_threads): an action that waits on the
database (here a row lock another transaction holds) holds up its own game, not the sockets of the
other games of the process. With one thread, as before, every socket of the process waited behind it."""

import json

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

from dicegame.models import Game
from tests.support.games import two_player_game
from tests.support.row_lock import RowLock
from tests.support.sockets import connect, frame_with_version

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite runs the sockets' database work on one thread"
)


def version(game_id: int) -> int:
    return Game.objects.get(pk=game_id).version


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_action_waiting_on_the_database_holds_up_no_other_games_socket():
    assert settings.PENTA_SOCKET_DB_THREADS >= 2
    stuck, stuck_host, _ = await database_sync_to_async(two_player_game)()
    other, other_host, _ = await database_sync_to_async(two_player_game)(names=("sanne", "joost"))
    to_stuck = await connect(stuck.pk, stuck_host)
    to_other = await connect(other.pk, other_host)
    for communicator in (to_stuck, to_other):
        await communicator.receive_from(timeout=5)
    stuck_version = await database_sync_to_async(version)(stuck.pk)
    other_version = await database_sync_to_async(version)(other.pk)
    roll = json.dumps({"action": "roll", "turn": 1, "roll": 0})

    lock = await database_sync_to_async(lambda: RowLock(Game, stuck.pk).__enter__(), thread_sensitive=False)()
    try:
        await to_stuck.send_to(text_data=roll)
        assert await to_stuck.receive_nothing(timeout=0.3)  # its action waits for the row lock
        await to_other.send_to(text_data=roll)
        # The other game's roll is applied and pushed while the first still waits.
        pushed = await frame_with_version(to_other, other_version + 1)
        assert 'data-die="1" data-value="' in pushed
        assert lock.thread.is_alive()
    finally:
        lock.release.set()
    # Once the lock is let go, the first roll goes through too.
    await frame_with_version(to_stuck, stuck_version + 1)
    await database_sync_to_async(lock.thread.join, thread_sensitive=False)(10)
    for communicator in (to_stuck, to_other):
        await communicator.disconnect()
