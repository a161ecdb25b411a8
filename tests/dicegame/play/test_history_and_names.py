"""My games and exports show rooms as what they are, and computer players speak the viewer's language."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from dicegame import play
from dicegame.models import Game, Player
from dicegame.play import rooms
from tests.support.environment import forget_cached
from tests.support.factories import actor, client_for
from tests.support.games import make_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    forget_cached()


def history_row(html: str, game_id: int) -> str:
    match = re.search(rf'<tr data-game="{game_id}">(.*?)</tr>', html, re.S)
    assert match, f"game {game_id} is not in the history"
    return re.sub(r"\s+", " ", match.group(1))


def csv_rows(c: Client) -> list[dict]:
    response = c.get("/games/export.csv")
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_a_waiting_room_shows_as_a_room_in_my_games_and_on_home(host, room):
    c = client_for(host)
    row = history_row(c.get("/games/").content.decode(), room.pk)
    assert f'href="/games/{room.pk}/"' in row  # to the room
    assert "Against friends" in row and "Waiting for players" in row
    assert "Solo" not in row and "In play" not in row and 'data-total="0"' not in row
    home = c.get("/").content.decode()
    item = re.search(rf'<li[^>]*><a href="/games/{room.pk}/">.*?</li>', home, re.S).group(0)
    assert "Against friends" in item and "Waiting for players" in item
    assert "Solo" not in item and "In play" not in item and "· 0" not in item


def test_cancelled_and_expired_rooms_are_not_games(host, friend, room):
    rooms.room_cancel(game_id=room.pk, actor=actor(host))
    idle = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    Game.objects.filter(pk=idle.pk).update(updated_at=timezone.now() - timedelta(days=8))
    assert rooms.games_expire_idle() == 1
    waiting = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    c = client_for(host)
    html = c.get("/games/").content.decode()
    assert f'data-game="{room.pk}"' not in html and f'data-game="{idle.pk}"' not in html
    assert f'data-game="{waiting.pk}"' in html
    assert f'href="/games/{room.pk}/"' not in c.get("/").content.decode()
    assert [int(r["game"]) for r in csv_rows(c)] == [waiting.pk]
    assert csv_rows(c)[0]["result"] == "Waiting for players"


def test_a_dutch_viewer_sees_dutch_computer_names_in_a_game_created_in_english(user):
    with translation.override("en"):
        game = play.game_create_vs_computer(actor=actor(user), strengths=["hard", "easy"])
        solo_bot = play.game_create_vs_computer(actor=actor(user), strengths=["medium"])
    assert list(game.players.filter(seat__gt=0).values_list("name", flat=True)) == [
        "Computer 1 (hard)",
        "Computer 2 (easy)",
    ]
    dutch = client_for(user, "nl")
    page = dutch.get(f"/games/{game.pk}/").content.decode()
    assert "Computer 1 (moeilijk)" in page and "Computer 2 (makkelijk)" in page
    assert "(hard)" not in page and "(easy)" not in page
    assert "Computer (gemiddeld)" in dutch.get(f"/games/{solo_bot.pk}/").content.decode()
    row = history_row(dutch.get("/games/").content.decode(), game.pk)
    assert "Computer 1 (moeilijk), Computer 2 (makkelijk)" in row
    assert {r["opponents"] for r in csv_rows(dutch)} >= {"Computer 1 (moeilijk); Computer 2 (makkelijk)"}
    # And the other way round: an English viewer of a game created in Dutch.
    with translation.override("nl"):
        dutch_game = play.game_create_vs_computer(actor=actor(user), strengths=["hard"])
    assert Player.objects.get(game=dutch_game, seat=1).name == "Computer (moeilijk)"
    assert "Computer (hard)" in client_for(user).get(f"/games/{dutch_game.pk}/").content.decode()


def test_the_review_and_the_json_export_name_computers_in_the_viewers_language(user):
    game = make_game([user, "hard"])  # stored as "Computer 1"
    dutch = client_for(user, "nl")
    review = dutch.get(f"/games/{game.pk}/review/").content.decode()
    assert "Computer 1 (moeilijk)" in review
    data = json.loads(dutch.get(f"/games/{game.pk}/export.json").content)
    assert [(p["seat"], p["name"]) for p in data["players"]] == [
        (1, user.username),
        (2, "Computer 1 (moeilijk)"),
    ]


def test_the_csv_and_json_exports_number_seats_alike(user):
    game = make_game(["easy", user])  # the person sits second
    c = client_for(user)
    [row] = csv_rows(c)
    data = json.loads(c.get(f"/games/{game.pk}/export.json").content)
    mine = next(p for p in data["players"] if p["name"] == user.username)
    assert int(row["seat"]) == mine["seat"] == 2
    assert set(data["analysis"]["seats"]) == {"1", "2"}
    assert {t["seat"] for t in data["turns"]} == {1, 2}
