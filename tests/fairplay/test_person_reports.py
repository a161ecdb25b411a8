"""Reporting a person (cheating, abuse, an offensive name) with the game attached, into staff's queue
beside the fair-play cases, within the problem reports' limits; staff rename, mute or close the account."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Profile
from accounts.selectors import is_muted
from dicegame.models import Player
from fairplay.models import PersonReport
from tests.support.factories import PASSWORD, UserFactory, client_for
from tests.support.games import two_player_game

pytestmark = pytest.mark.django_db


def report(client, name: str, **data):
    return client.post(f"/fair-play/report/{name}/", {"reason": "abuse", "message": "rude", **data})


def test_a_report_keeps_a_game_the_reporter_saw_with_the_person_in_it():
    game, hana, femke = two_player_game()
    other_game, _a, _b = two_player_game(names=("anna", "bob"))
    client = client_for(hana)
    page = client.get(f"/fair-play/report/femke/?game={game.pk}").content.decode()
    assert f'data-report-game="{game.pk}"' in page
    assert report(client, "femke", game=game.pk).status_code == 302
    assert report(client, "femke", game=other_game.pk).status_code == 302  # not theirs: dropped
    first, second = PersonReport.objects.order_by("pk")
    assert (first.reported, first.reporter, first.game_id, first.reason) == (femke, hana, game.pk, "abuse")
    assert second.game_id is None


def test_bad_reports_are_refused_and_store_nothing():
    hana = UserFactory(username="hana")
    UserFactory(username="femke")
    client = client_for(hana)
    assert report(client, "femke", reason="bored").status_code == 400
    assert report(client, "nobody").status_code == 404
    assert report(client, "hana").status_code == 400
    assert report(client, "femke", message="x" * 2001).status_code == 400
    assert Client().post("/fair-play/report/femke/", {"reason": "abuse"}).status_code == 302  # log in
    assert not PersonReport.objects.exists()


def test_reports_are_limited_like_problem_reports(settings):
    settings.PENTA_REPORTS_PER_PERSON = 2
    hana = UserFactory(username="hana")
    UserFactory(username="femke")
    client = client_for(hana)
    assert [report(client, "femke").status_code for _n in range(3)] == [302, 302, 429]
    assert PersonReport.objects.count() == 2


def test_staff_rename_mute_and_close_from_the_queue(admin_user):
    game, hana, femke = two_player_game(names=("hana", "rudename"))
    report(client_for(hana), "rudename", reason="name", game=game.pk)
    [item] = PersonReport.objects.all()
    staff = Client()
    staff.force_login(admin_user)
    url = f"/admin/fairplay/personreport/{item.pk}/handle/"
    assert "rudename" in staff.get(url).content.decode()
    assert staff.post(url, {"action": "rename", "name": "hana"}).status_code == 409  # taken
    assert staff.post(url, {"action": "rename", "name": "deleted-9"}).status_code == 400
    assert staff.post(url, {"action": "rename", "name": "player-42"}).status_code == 302
    femke.refresh_from_db()
    assert femke.username == "player-42"
    assert Player.objects.get(game=game, user=femke).name == "player-42"
    assert staff.post(url, {"action": "mute"}).status_code == 302
    assert is_muted(femke.pk) and Profile.objects.get(user=femke).muted_at is not None
    assert staff.post(url, {"action": "close_account"}).status_code == 302
    femke.refresh_from_db()
    assert not femke.is_active and not Client().login(username="player-42", password=PASSWORD)
    assert staff.post(url, {"action": "close", "note": "done"}).status_code == 302
    item.refresh_from_db()
    assert (item.status, item.handled_by, item.note) == ("closed", admin_user, "done")
    assert staff.post(url, {"action": "explode"}).status_code == 400
    # The queue lists it beside the cases.
    assert "rudename" in staff.get("/admin/fairplay/personreport/").content.decode()
