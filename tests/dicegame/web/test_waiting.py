"""The games waiting for a person's move: the home page's list (the soonest out of time first), the
header's count on every page, the answer a pinged page asks for, and the next game offered on a board
that waits for someone else. And the installable app's manifest, service worker and offline page."""

import datetime as dt
import json
import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse

from dicegame.models import Player, Turn
from dicegame.rules.scoring import Box
from notifications import services
from tests.support import HX
from tests.support.clock import Clock
from tests.support.factories import actor, client_for
from tests.support.games import current, place, play_turn, roll, started_two_player_game

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
WAITING = reverse("dicegame:waiting")


@pytest.fixture
def three_games(host, friend):
    """Games of the host: a day a move (the host to move), an hour a move (the host to move) and a
    live game where the friend is to move."""
    a_day = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    an_hour = started_two_player_game(host, friend, turn_seconds=0, move_seconds=3600)
    theirs = started_two_player_game(friend, host, turn_seconds=60)
    return a_day, an_hour, theirs


def listed(page: str) -> list[int]:
    section = page[page.index('id="waiting"') :]
    section = section[: section.index("</section>")]
    return [int(n) for n in re.findall(r'data-game="(\d+)"', section)]


def test_the_home_page_lists_the_games_waiting_soonest_out_of_time_first(host, three_games):
    a_day, an_hour, _theirs = three_games
    page = client_for(host).get("/").content.decode()
    assert listed(page) == [an_hour.pk, a_day.pk]
    assert "Correspondence, an hour a move" in page and "Against femke" in page
    assert 'data-waiting="2"' in page  # the header's count


def test_the_count_is_on_every_page_of_a_logged_in_person(host, three_games):
    page = client_for(host).get(reverse("dicegame:history")).content.decode()
    assert 'id="waiting-count"' in page and 'data-waiting="2"' in page
    assert 'id="waiting-count"' not in Client().get("/").content.decode()


def test_a_game_played_by_the_computer_for_the_person_is_not_waiting(host, three_games):
    a_day, an_hour, _theirs = three_games
    Player.objects.filter(game=a_day, user=host).update(stand_in=True)
    assert listed(client_for(host).get("/").content.decode()) == [an_hour.pk]


def test_a_pinged_page_gets_the_count_and_the_list_out_of_band(host, friend, three_games):
    a_day, an_hour, theirs = three_games
    roll(theirs, actor(friend))
    place(theirs, actor(friend), Box.CHANCE)  # now the host's turn there too
    response = client_for(host).get(WAITING, **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.count('hx-swap-oob="morph"') == 2
    assert 'data-waiting="3"' in body
    assert listed(body) == [theirs.pk, an_hour.pk, a_day.pk]  # a live turn's 60 seconds run out first


def test_a_page_without_the_list_gets_the_count_alone(host, friend, three_games):
    """A game page asks as well (its header's badge): no list comes it has no place for (htmx logged
    oobErrorNoTarget #waiting at every ping)."""
    game = three_games[0]
    game_page = f"http://testserver/games/{game.pk}/"
    body = client_for(host).get(WAITING, HTTP_HX_CURRENT_URL=game_page, **HX).content.decode()
    assert body.count('hx-swap-oob="morph"') == 1 and 'id="waiting-count"' in body
    assert 'id="waiting"' not in body
    home = client_for(host).get(WAITING, HTTP_HX_CURRENT_URL="http://testserver/", **HX).content.decode()
    assert 'id="waiting"' in home


def test_nobody_logged_in_gets_nothing_to_swap():
    response = Client().get(WAITING, **HX)
    assert response.status_code == 204 and response.content == b""


def test_the_ping_makes_the_page_ask_for_its_own_list():
    """The element the notice socket delivers: the page then asks, in its own language."""
    ping = services.waiting_ping()
    assert f'hx-get="{WAITING}"' in ping and 'id="waiting-ping"' in ping and 'hx-trigger="load"' in ping


def test_the_board_offers_the_next_game_waiting_once_the_move_is_made(host, friend):
    first = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    second = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    c = client_for(host)
    assert 'data-next-game="' not in c.get(f"/games/{first.pk}/").content.decode()  # my turn here
    roll(first, actor(host))
    t = current(first.pk)
    c.post(f"/games/{first.pk}/choose/CHANCE/", {"turn": t.number, "roll": t.rolls_used}, **HX)
    response = c.post(f"/games/{first.pk}/confirm/", {"turn": t.number, "roll": t.rolls_used}, **HX)
    assert response.status_code == 200
    assert f'data-next-game="{second.pk}"' in response.content.decode()
    assert f'data-next-game="{second.pk}"' in c.get(f"/games/{first.pk}/").content.decode()
    # The friend, whose turn it is now in the first game, is offered nothing from the host's list.
    assert 'data-next-game="' not in client_for(friend).get(f"/games/{first.pk}/").content.decode()


def test_the_time_left_is_said_as_by_when_in_the_persons_zone(host, friend, monkeypatch):
    """Each entry says when the move is due as a person says it, in their zone: "by 06:30 tomorrow"."""
    now = dt.datetime(2026, 6, 1, 10, 0, tzinfo=dt.UTC)
    Clock(monkeypatch, now)
    game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    due = now + timedelta(hours=18, minutes=30)  # 04:30 UTC the next day
    Turn.objects.filter(game=game).update(deadline_at=due)
    page = client_for(host).get("/").content.decode()  # in Amsterdam (summer time) before a zone is known
    local = due.astimezone(ZoneInfo("Europe/Amsterdam")).isoformat()
    assert f'<time datetime="{local}" data-time-left>by 06:30 tomorrow</time>' in page
    new_york = client_for(host)
    new_york.cookies["penta_tz"] = "America/New_York"
    assert ">by 00:30 tomorrow</time>" in new_york.get("/").content.decode()
    Turn.objects.filter(game=game).update(deadline_at=now + timedelta(hours=3))
    assert ">by 15:00</time>" in client_for(host).get("/").content.decode()
    Turn.objects.filter(game=game).update(deadline_at=now + timedelta(days=3))
    assert ">by 12:00 on Thursday</time>" in client_for(host).get("/").content.decode()
    dutch = client_for(host, language="nl").get("/").content.decode()
    assert ">donderdag vóór 12:00</time>" in dutch
    Turn.objects.filter(game=game).update(deadline_at=now + timedelta(days=9))
    assert ">by 10 Jun 2026, 12:00</time>" in client_for(host).get("/").content.decode()


def test_each_entry_tells_the_games_apart(host, friend):
    """The opponents, the round, the score against them: two games against femke are not alike."""
    first = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    second = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    for _ in range(2):
        play_turn(second, host, None)
        play_turn(second, friend, None)
    page = client_for(host).get("/").content.decode()
    section = page[page.index('id="waiting"') :]
    section = section[: section.index("</section>")]
    entries = dict(re.findall(r'<li data-game="(\d+)">(.*?)</li>', section, re.S))
    assert 'data-round="1"' in entries[str(first.pk)] and "round 1 of 13" in entries[str(first.pk)]
    assert "round 3 of 13" in entries[str(second.pk)]
    totals = {p.user_id: p.total for p in second.players.all()}
    assert f"you {totals[host.pk]}, femke {totals[friend.pk]}" in entries[str(second.pk)]
    assert "you 0, femke 0" in entries[str(first.pk)]


# -- the installable app -------------------------------------------------------------------------------


def test_the_manifest_names_the_app_in_the_pages_language():
    data = json.loads(Client().get("/manifest.webmanifest").content)
    assert data["name"] == "Penta" and data["display"] == "standalone" and data["start_url"] == "/"
    assert {icon["sizes"] for icon in data["icons"]} == {"192x192", "512x512"}
    assert any(icon.get("purpose") == "maskable" for icon in data["icons"])
    for icon in data["icons"]:
        assert Client().get(icon["src"]).status_code == 200
    dutch = Client(headers={"cookie": "django_language=nl"}).get("/manifest.webmanifest")
    assert dutch["Content-Type"] == "application/manifest+json" and json.loads(dutch.content)["lang"] == "nl"


def test_every_page_links_the_manifest_but_the_game_page_keeps_its_weight(host, friend):
    assert 'rel="manifest"' in Client().get("/").content.decode()
    game = started_two_player_game(host, friend, turn_seconds=60)
    assert 'rel="manifest"' not in client_for(host).get(f"/games/{game.pk}/").content.decode()


def test_the_service_worker_is_served_from_the_root_fresh_each_time():
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/" and "no-cache" in response["Cache-Control"]
    source = response.content.decode()
    assert '"/offline/"' in source and "__OFFLINE_URL__" not in source
    assert 'addEventListener("push"' in source


def test_the_offline_page_stands_alone():
    """Kept by the worker and shown with no network: no script, only what the worker keeps beside it."""
    response = Client().get("/offline/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "No connection" in page and "<script" not in page
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert assets and all(Client().get(a).status_code == 200 for a in assets)
