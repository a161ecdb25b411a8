"""Export my data (a zip made by the clock, behind a link only its person can use, a few a day, every
field documented) and delete my account (the password again, 7 days in which a login cancels it, then
the clock anonymises the account and leaves its games, even with no browser open)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts import deletion, erasure, export
from accounts.models import AccountDeletion, Block, DataExport, Friendship, LoginSession
from chat.models import ChatLine, ChatReport, ChatTimeout
from dicegame.models import Game, Player
from fairplay.models import GameSignals, PersonReport
from feedback.models import Report
from notifications.models import MailSettings, Notification, PushSubscription
from ratings.models import PlayerRating, RatingChange
from tests.support import ROOT
from tests.support.factories import PASSWORD, UserFactory, befriend, client_for
from tests.support.games import make_game, mark_finished, two_player_game
from tests.support.notifications import confirmed_mail

pytestmark = pytest.mark.django_db


def made_export(client: Client) -> zipfile.ZipFile:
    assert client.post("/accounts/export/ask/").status_code == 302
    export.build_due()
    page = client.get("/accounts/export/").content.decode()
    [url] = re.findall(r'href="(/accounts/export/[^"/]+/)" download', page)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(response.content))


def test_the_export_holds_the_persons_data_and_its_json_parses():
    game, hana, femke = two_player_game()
    Block.objects.create(blocker=hana, blocked=UserFactory(username="pest"))
    confirmed_mail(hana, address="hana@example.com")
    archive = made_export(client_for(hana))
    names = set(archive.namelist())
    assert {"account.json", "games.json", "games.csv", "friends.json", "notifications.json"} <= names
    data = {n: json.loads(archive.read(n)) for n in names if n.endswith(".json")}
    assert data["account.json"]["username"] == "hana"
    assert data["friends.json"]["friends"] == [{"name": "femke"}]
    assert data["friends.json"]["blocked"][0]["name"] == "pest"
    assert data["notifications.json"]["mail"]["address"] == "hana@example.com"
    [played] = [g for g in data["games.json"] if g["game"] == game.pk]
    assert played["seed"] is None  # still in play: its seed is secret
    assert "femke" in archive.read("games.csv").decode()  # the opponents of each game


def test_the_export_holds_ones_own_chat_lines_and_not_the_others():
    game, hana, femke = two_player_game()
    now = timezone.now()
    ChatLine.objects.create(
        game=game, sender=hana, room="players", kind="text", text="your move", created_at=now
    )
    theirs = ChatLine.objects.create(
        game=game, sender=femke, room="players", kind="text", text="soon", created_at=now
    )
    ChatReport.objects.create(line=theirs, reporter=hana, created_at=now)
    chat = json.loads(made_export(client_for(hana)).read("chat.json"))
    assert [(line["game"], line["text"]) for line in chat["lines"]] == [(game.pk, "your move")]
    assert [r["line"] for r in chat["reported"]] == [theirs.pk]
    assert chat["timeouts"] == []


def test_every_exported_field_is_documented(strategy):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    game = make_game([hana, "easy"], kind=Game.Kind.COMPUTER)
    assert game.is_finished
    PlayerRating.objects.create(user=hana, rating=1600, rd=60, games=10)
    confirmed_mail(hana, address="hana@example.com")
    PushSubscription.objects.create(user=hana, endpoint="https://push.example/1", p256dh="x", auth="y")
    Report.objects.create(message="it broke", user=hana)
    PersonReport.objects.create(reporter=hana, reported=femke, reported_name="femke", reason="abuse")
    Block.objects.create(blocker=hana, blocked=UserFactory(username="pest"))
    line = ChatLine.objects.create(
        game=game, sender=femke, room="spectators", kind="text", text="hi", created_at=timezone.now()
    )
    ChatLine.objects.create(
        game=game, sender=hana, room="players", kind="phrase", text="gg", created_at=timezone.now()
    )
    ChatReport.objects.create(line=line, reporter=hana, created_at=timezone.now())
    ChatTimeout.objects.create(user=hana, until=None, reason="spam", created_at=timezone.now())
    data = json.loads(json.dumps({n: json.loads(v) for n, v in _files(export.build(user_id=hana.pk))}))
    assert all(data["chat.json"][part] for part in ("lines", "reported", "timeouts"))
    doc = (ROOT / "docs" / "data-export.md").read_text()
    missing = set()

    def walk(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                if f"`{key}`" not in doc:
                    missing.add(key)
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for name, value in data.items():
        if f"`{name}`" not in doc:
            missing.add(name)
        walk(value)
    assert missing == set()


def _files(content: bytes):
    archive = zipfile.ZipFile(io.BytesIO(content))
    return [(n, archive.read(n)) for n in archive.namelist() if n.endswith(".json")]


def test_an_export_link_never_opens_another_persons_export():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    export.export_request(user=hana)
    export.build_due()
    token = export.link_token(DataExport.objects.get())
    assert client_for(femke).get(f"/accounts/export/{token}/").status_code == 404
    assert Client().get(f"/accounts/export/{token}/").status_code == 302  # to the login page
    assert client_for(hana).get(f"/accounts/export/{token}x/").status_code == 404
    assert client_for(hana).get(f"/accounts/export/{token}/").status_code == 200
    DataExport.objects.update(expires_at=timezone.now())
    assert client_for(hana).get(f"/accounts/export/{token}/").status_code == 404


def test_a_few_exports_a_day():
    hana = UserFactory(username="hana")
    client = client_for(hana)
    statuses = [client.post("/accounts/export/ask/").status_code for _n in range(export.EXPORTS_A_DAY + 1)]
    assert statuses == [302] * export.EXPORTS_A_DAY + [429]
    assert DataExport.objects.count() == export.EXPORTS_A_DAY


# -- deletion -------------------------------------------------------------------------------------------


def test_the_wrong_password_deletes_nothing():
    hana = UserFactory(username="hana")
    client = client_for(hana)
    for bad in ({"password": "wrong"}, {}):
        response = client.post("/accounts/delete/", bad)
        assert response.status_code == 400 and 'role="alert"' in response.content.decode()
    assert not AccountDeletion.objects.exists()
    assert client.get("/accounts/preferences/").status_code == 200


def test_asking_logs_out_everywhere_and_logging_in_within_the_grace_cancels_it():
    hana = UserFactory(username="hana")
    client, elsewhere = client_for(hana), client_for(hana)
    response = client.post("/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert AccountDeletion.objects.get().due_at > timezone.now() + timedelta(days=6)
    assert elsewhere.get("/accounts/preferences/").status_code == 302
    assert client.get("/accounts/preferences/").status_code == 302
    back = Client()
    response = back.post("/accounts/login/", {"username": "hana", "password": PASSWORD}, follow=True)
    assert "your account will not be deleted" in response.content.decode()
    assert not AccountDeletion.objects.exists()


def test_two_requests_are_one():
    hana = UserFactory(username="hana")
    first = deletion.deletion_request(user=hana, password=PASSWORD)
    second = deletion.deletion_request(user=hana, password=PASSWORD)
    assert first.pk == second.pk and AccountDeletion.objects.count() == 1


def due(user) -> None:
    deletion.deletion_request(user=user, password=PASSWORD)
    AccountDeletion.objects.filter(user=user).update(due_at=timezone.now() - timedelta(seconds=1))


def test_the_clock_erases_the_account_and_anonymises_its_seats():
    game, hana, femke = two_player_game(names=("hana", "femke"))
    mark_finished(game)
    Player.objects.filter(game=game).update(rank=1)
    PlayerRating.objects.create(user=hana, rating=1600, rd=60, games=10)
    PlayerRating.objects.create(user=femke, rating=1400, rd=60, games=10)
    confirmed_mail(hana, address="hana@example.com")
    PushSubscription.objects.create(user=hana, endpoint="https://push.example/1", p256dh="x", auth="y")
    Notification.objects.create(user=hana, kind=Notification.Kind.CONFIRM, due_at=timezone.now())
    Block.objects.create(blocker=hana, blocked=UserFactory(username="pest"))
    Report.objects.create(message="it broke", user=hana, user_agent="Firefox")
    PersonReport.objects.create(reporter=hana, reported=femke, reported_name="femke", reason="abuse")
    due(hana)
    assert erasure.erase_due() == 0
    hana.refresh_from_db()
    name = f"deleted-{hana.pk}"
    assert hana.username == name and not hana.is_active and not hana.has_usable_password()
    assert list(Player.objects.filter(user=hana).values_list("name", flat=True)) == [name]
    assert not MailSettings.objects.exists() and not PushSubscription.objects.exists()
    assert not Notification.objects.filter(user=hana).exists()
    assert not Friendship.objects.exists() and not Block.objects.exists()
    assert not LoginSession.objects.filter(user=hana).exists()
    assert Report.objects.get().user is None and PersonReport.objects.get().reporter is None
    assert PlayerRating.objects.get(user=femke).rating == 1400  # the other player's records unchanged
    # The opponent still sees the finished game, with the seat anonymised.
    page = client_for(femke).get(f"/games/{game.pk}/").content.decode()
    assert name in page and ">hana<" not in page
    # Done once: a second sweep finds nothing to do; the name cannot log in.
    assert erasure.erase(user_id=hana.pk) is False
    assert not Client().login(username=name, password=PASSWORD)
    assert AccountDeletion.objects.get().erased_at is not None


def test_a_game_in_play_is_left_as_leaving_does(strategy):
    game, hana, femke = two_player_game(names=("hana", "femke"))
    due(hana)
    erasure.erase_due()
    seat = Player.objects.get(game=game, user=hana)
    assert seat.left_at is not None and seat.stand_in
    game.refresh_from_db()
    assert game.is_active  # the computer plays the seat: the table finishes


def test_fair_play_signals_go_unless_a_case_is_open():
    from fairplay.models import Case

    game, hana, femke = two_player_game()
    mark_finished(game)
    for user in (hana, femke):
        GameSignals.objects.create(game=game, user=user, decisions=1, best=1, loss=0, evidence=0, table=b"")
    Case.objects.create(user=femke, status=Case.Status.FLAGGED)
    due(hana)
    due(femke)
    erasure.erase_due()
    assert list(GameSignals.objects.values_list("user_id", flat=True)) == [femke.pk]


def test_sign_up_cannot_take_an_erased_accounts_name():
    new = "a-fine-password-9"
    response = Client().post(
        "/accounts/signup/", {"username": "deleted-7", "password1": new, "password2": new}
    )
    assert response.status_code == 400
    assert not get_user_model().objects.filter(username="deleted-7").exists()


def test_a_deletion_never_acts_on_another_account():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    due(hana)
    erasure.erase_due()
    femke.refresh_from_db()
    assert femke.username == "femke" and femke.is_active
    assert RatingChange.objects.count() == 0
