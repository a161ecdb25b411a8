"""Races on PostgreSQL: two deletion requests at once are one; two clocks erasing at once erase once; a
deletion racing a game's end leaves consistent data; exports asked at once cannot pass the day's limit;
a block and a friend request at once do not both pass."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts import blocks, deletion, erasure, export, services
from accounts.models import AccountDeletion, Block, DataExport, FriendRequest
from dicegame.models import Game, Player
from ratings.models import RatingChange
from tests.support.factories import PASSWORD, UserFactory, client_for
from tests.support.games import race
from tests.support.ratings import play_out, rated_room

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")


def test_two_deletion_requests_at_once_are_one():
    hana = UserFactory(username="hana")
    clients = [client_for(hana) for _n in range(4)]
    answers = race(4, lambda: clients.pop().post("/accounts/delete/", {"password": PASSWORD}))
    assert all(a.status_code == 302 for a in answers), answers
    assert AccountDeletion.objects.count() == 1


def test_two_clocks_erase_once():
    hana = UserFactory(username="hana")
    deletion.deletion_request(user=hana, password=PASSWORD)
    AccountDeletion.objects.update(due_at=timezone.now() - timedelta(seconds=1))
    results = race(3, lambda: erasure.erase(user_id=hana.pk))
    assert sorted(results, key=str) == [False, False, True], results
    hana.refresh_from_db()
    assert hana.username == f"deleted-{hana.pk}"


def test_a_deletion_and_a_games_end_at_the_same_moment(strategy, settings):
    settings.PENTA_BOT_STEP_SECONDS = 0
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    game = play_out(rated_room(hana, [femke]), [hana, femke], until_last=True)
    deletion.deletion_request(user=hana, password=PASSWORD)
    AccountDeletion.objects.update(due_at=timezone.now() - timedelta(seconds=1))
    jobs = [
        lambda: play_out(Game.objects.get(pk=game.pk), [hana, femke]),
        lambda: erasure.erase(user_id=hana.pk),
    ]
    results = race(2, lambda: jobs.pop()())
    for r in results:
        assert not isinstance(r, Exception), r
    game.refresh_from_db()
    hana.refresh_from_db()
    assert game.is_finished and hana.username == f"deleted-{hana.pk}"
    assert set(Player.objects.filter(game=game).values_list("name", flat=True)) == {
        f"deleted-{hana.pk}",
        "femke",
    }
    assert RatingChange.objects.filter(game=game).count() == 2


def test_exports_asked_at_once_cannot_pass_the_limit():
    hana = UserFactory(username="hana")
    clients = [client_for(hana) for _n in range(6)]
    answers = race(6, lambda: clients.pop().post("/accounts/export/ask/"))
    assert sorted(a.status_code for a in answers) == [302] * export.EXPORTS_A_DAY + [429] * 3
    assert DataExport.objects.count() == export.EXPORTS_A_DAY


def test_a_block_and_a_friend_request_at_once():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    jobs = [
        lambda: blocks.block_add(user=hana, username="femke"),
        lambda: services.friend_request_send(from_user=femke, username="hana"),
    ]
    race(2, lambda: jobs.pop()())
    assert Block.objects.count() == 1
    # Either the request came first and the block declined it, or the block came first and refused it.
    assert not FriendRequest.objects.filter(status=FriendRequest.Status.PENDING).exists()
