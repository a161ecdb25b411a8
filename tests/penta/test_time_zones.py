"""Times in the person's own zone and an unambiguous format (issue 22, item 11): a game at 20:14 in
Amsterdam read 19:14 (UTC), and English dates read "12/01/2026 7 p.m.".

The zone: the person's setting (a profile's), else the one their browser reported (the cookie set by
static/js/app.js), else Europe/Amsterdam; a cookie naming no zone is ignored (penta.middleware)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client, RequestFactory

from accounts.models import Profile
from accounts.services import profile_set_time_zone
from dicegame.models import Game
from penta.middleware import request_time_zone
from tests.support.factories import GameFactory, PlayerFactory, client_for

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 12, 1, 19, 14, tzinfo=dt.UTC)  # 20:14 in Amsterdam (winter time), 14:14 in New York


def finished_game(user) -> Game:
    game = GameFactory(status=Game.Status.FINISHED, finished_at=AT)
    Game.objects.filter(pk=game.pk).update(created_at=AT - dt.timedelta(minutes=10))  # 19:04 UTC
    PlayerFactory(game=game, user=user, total=200, rank=1)
    return game


def shown(client: Client, game: Game) -> tuple[str, str]:
    """(the history's start time, the review's end time) of the game, as the pages show them."""
    history = client.get("/games/").content.decode()
    review = client.get(f"/games/{game.pk}/review/").content.decode()
    started = history.split(f'data-game="{game.pk}"')[1].split("</time>")[0].rsplit(">", 1)[1]
    finished = review.split('<time datetime="')[1].split("</time>")[0].split(">", 1)[1]
    return started, finished


@pytest.mark.parametrize(
    ("language", "started", "finished"),
    [("en", "1 Dec 2026, 20:04", "1 Dec 2026, 20:14"), ("nl", "1 dec 2026, 20:04", "1 dec 2026, 20:14")],
)
def test_a_game_at_19_14_utc_shows_20_14_to_an_amsterdam_browser(user, language, started, finished):
    client = client_for(user)
    client.cookies["penta_tz"] = "Europe/Amsterdam"
    client.cookies["django_language"] = language
    assert shown(client, finished_game(user)) == (started, finished)


def test_the_browsers_zone_and_then_the_persons_setting_decide(user, django_capture_on_commit_callbacks):
    game = finished_game(user)
    client = client_for(user)
    client.cookies["penta_tz"] = "Asia/Tokyo"  # 04:14 the next day
    assert shown(client, game) == ("2 Dec 2026, 04:04", "2 Dec 2026, 04:14")
    with django_capture_on_commit_callbacks(execute=True):  # the cache is told once the write is in
        profile_set_time_zone(user=user, name="America/New_York")  # the setting beats the browser
    assert shown(client, game) == ("1 Dec 2026, 14:04", "1 Dec 2026, 14:14")
    with django_capture_on_commit_callbacks(execute=True):
        profile_set_time_zone(user=user, name="")  # back to the browser's
    assert shown(client, game) == ("2 Dec 2026, 04:04", "2 Dec 2026, 04:14")


@pytest.mark.parametrize(
    "cookie", ["", "Mars/Olympus_Mons", "../../../etc/passwd", "Europe/" + "x" * 300, "utc "]
)
def test_a_cookie_that_names_no_zone_is_ignored(user, cookie):
    client = client_for(user)
    if cookie:
        client.cookies["penta_tz"] = cookie
    assert shown(client, finished_game(user)) == ("1 Dec 2026, 20:04", "1 Dec 2026, 20:14")  # Amsterdam


def test_a_guest_gets_the_browsers_zone_too(client):
    client.post("/games/solo/")  # a guest with a game of their own
    client.cookies["penta_tz"] = "America/New_York"
    game = Game.objects.get()
    Game.objects.filter(pk=game.pk).update(created_at=AT)
    row = client.get("/games/").content.decode().split(f'data-game="{game.pk}"')[1]
    assert "1 Dec 2026, 14:14" in row


# -- the setting ---------------------------------------------------------------------------------------


def test_the_preferences_page_sets_the_zone_and_refuses_an_unknown_one(
    user, user_client, django_capture_on_commit_callbacks
):
    user_client.cookies["penta_tz"] = "Europe/Amsterdam"
    page = user_client.get("/accounts/preferences/").content.decode()
    assert 'data-current-zone="Europe/Amsterdam"' in page
    assert "This browser's time zone (now Europe/Amsterdam)" in page
    assert '<option value="America/New_York">' in page and '<option value="US/Eastern">' not in page

    with django_capture_on_commit_callbacks(execute=True):
        response = user_client.post("/accounts/preferences/", {"time_zone": "Asia/Kolkata"})
    assert response.status_code == 302 and response["Location"] == "/accounts/preferences/"
    assert Profile.objects.get(user=user).time_zone == "Asia/Kolkata"
    page = user_client.get("/accounts/preferences/").content.decode()
    assert "Times are now shown in Asia/Kolkata." in page and 'data-current-zone="Asia/Kolkata"' in page
    assert '<option value="Asia/Kolkata" selected>' in page

    for bad in ("Mars/Olympus_Mons", "Asia/Kolkata\x00", "x" * 500):
        refused = user_client.post("/accounts/preferences/", {"time_zone": bad})
        assert refused.status_code == 400
        if "\x00" not in bad:  # (a NUL is refused before the view: penta.middleware.RejectNulMiddleware)
            assert "is not a time zone this site knows: choose one from the list." in refused.content.decode()
        assert Profile.objects.get(user=user).time_zone == "Asia/Kolkata"  # unchanged

    with django_capture_on_commit_callbacks(execute=True):
        response = user_client.post("/accounts/preferences/", {"time_zone": ""})
    assert response.status_code == 302 and Profile.objects.get(user=user).time_zone == ""
    assert "Times are now shown in this browser" in user_client.get("/accounts/preferences/").content.decode()


def test_the_refusal_speaks_dutch(user, user_client):
    user_client.cookies["django_language"] = "nl"
    refused = user_client.post("/accounts/preferences/", {"time_zone": "Mars/Olympus_Mons"})
    assert refused.status_code == 400
    assert "is geen tijdzone die deze site kent" in refused.content.decode()


def test_the_preferences_need_an_account_and_are_in_the_header(client, user, user_client):
    assert client.get("/accounts/preferences/")["Location"].startswith("/accounts/login/")
    assert client.post("/accounts/preferences/", {"time_zone": "UTC"}).status_code == 302
    assert 'href="/accounts/preferences/"' in user_client.get("/").content.decode()


def test_the_zone_is_read_at_login_and_then_costs_no_query(user, django_assert_num_queries):
    Profile.objects.create(user=user, time_zone="Asia/Tokyo")
    client_for(user)  # logs in: the zone is read into the cache
    request = RequestFactory().get("/")
    request.user = user
    with django_assert_num_queries(0):
        assert request_time_zone(request) == "Asia/Tokyo"
