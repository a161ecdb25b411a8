"""Hostile HTTP input gets a clear 4xx and changes nothing, never a 500: NUL bytes, ids beyond 64 bits,
numbers out of range, simultaneous sign-ups with one name; and /healthz/ answers whatever the Host."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings
from django.urls import NoReverseMatch, reverse
from django.utils import translation

from accounts.forms import SignupForm
from accounts.models import FriendRequest, Friendship
from dicegame.models import Game, Invitation
from penta.routing import websocket_urlpatterns
from tests.support import HX
from tests.support.factories import PASSWORD, client_for

NUL_MESSAGE = "NUL character"
TOO_BIG = 2**70  # 1180591620717411303424
INT64_MAX = 2**63 - 1


@pytest.fixture(autouse=True)
def _default_language():
    """A request in Dutch leaves Dutch active in the thread: end each test in the default language."""
    yield
    translation.deactivate()


def everything() -> tuple:
    """What any of these requests could have written."""
    return (
        sorted(FriendRequest.objects.values_list("from_user_id", "to_user_id", "status")),
        sorted(Friendship.objects.values_list("user_low_id", "user_high_id")),
        sorted(Invitation.objects.values_list("game_id", "to_user_id", "status")),
        sorted(Game.objects.values_list("pk", "version", "status")),
        get_user_model().objects.count(),
    )


# -- NUL bytes (psycopg refuses them in strings: PostgreSQL answered 500) ---------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "url", "data"),
    [
        ("get", "/accounts/friends/?q=%00", None),
        ("get", "/accounts/friends/?q=a%00b", None),
        ("get", "/players/a%00/", None),
        ("get", "/players/a%00/leaderboard/", None),
        ("get", "/games/join/a%00/", None),
        ("post", "/games/join/a%00/", {}),
        ("post", "/accounts/friends/request/", {"username": "femke\x00"}),
        ("post", "/accounts/friends/request/", {"username": "\x00"}),
        ("post", "/accounts/friends/request/", {"username\x00": "femke"}),
        ("post", "/accounts/login/", {"username": "hana\x00", "password": PASSWORD}),
        ("post", "/accounts/signup/", {"username": "x\x00", "password1": PASSWORD, "password2": PASSWORD}),
        ("post", "ROOM/invite/", {"username": "femke\x00"}),
    ],
)
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_nul_anywhere_in_the_request_is_refused_with_400(host, friend, room, method, url, data, htmx):
    url = url.replace("ROOM", f"/games/{room.pk}")
    client = client_for(host)
    before = everything()
    extra = HX if htmx else {}
    response = getattr(client, method)(url, data, **extra) if data is not None else client.get(url, **extra)
    assert response.status_code == 400, response.content[:300]
    html = response.content.decode()
    assert NUL_MESSAGE in html and 'role="alert"' in html
    if htmx:  # only the message area, swapped out of band
        assert 'id="messages"' in html and 'hx-swap-oob="true"' in html and "<html" not in html
    else:
        assert "<html" in html
    assert everything() == before


@pytest.mark.django_db
def test_nul_refusal_speaks_dutch(host):
    client = client_for(host)
    client.cookies["django_language"] = "nl"
    response = client.get("/players/a%00/")
    assert response.status_code == 400
    assert "NUL-teken" in response.content.decode()


@pytest.mark.django_db
def test_nul_in_a_cookie_is_refused_before_the_session_is_read():
    response = Client().get("/games/", HTTP_COOKIE='sessionid="abcdefgh\\000ijk"')
    assert response.status_code == 400 and NUL_MESSAGE in response.content.decode()


@pytest.mark.django_db
def test_clean_requests_still_pass(host, friend, room):
    client = client_for(host)
    assert client.get("/accounts/friends/?q=fem").status_code == 200
    assert client.get("/players/hana/").status_code == 200
    response = client.post(f"/games/{room.pk}/invite/", {"username": "femke"})
    assert response.status_code == 302 and Invitation.objects.filter(to_user=friend).exists()


# -- ids beyond 64 bits ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("number", [TOO_BIG, INT64_MAX + 1, 0, "00"])
@pytest.mark.parametrize(
    ("method", "template"),
    [
        ("post", "/accounts/friends/{}/remove/"),
        ("post", "/accounts/friends/requests/{}/accept/"),
        ("post", "/accounts/friends/requests/{}/decline/"),
        ("get", "/games/{}/"),
        ("post", "/games/{}/roll/"),
        ("post", "/games/{}/invite/"),
        ("get", "/games/{}/review/"),
        ("get", "/games/{}/export.json"),
    ],
)
def test_ids_outside_1_to_2_63_are_not_found(host, method, template, number):
    before = everything()
    response = getattr(client_for(host), method)(template.format(number))
    assert response.status_code == 404
    assert everything() == before


@pytest.mark.django_db
def test_the_largest_id_is_an_ordinary_not_found(host):
    client = client_for(host)
    assert client.get(f"/games/{INT64_MAX}/").status_code == 404
    response = client.post(f"/accounts/friends/{INT64_MAX}/remove/")
    assert response.status_code in (400, 404)


@pytest.mark.django_db
def test_small_numbers_in_urls_beyond_64_bits_are_not_found(host, room):
    client = client_for(host)
    before = everything()
    assert client.post(f"/games/{room.pk}/hold/{TOO_BIG}/").status_code == 404
    assert client.post(f"/games/{room.pk}/seats/{TOO_BIG}/remove/").status_code == 404
    assert everything() == before


def test_urls_cannot_be_built_with_ids_out_of_range():
    assert reverse("dicegame:game", args=[INT64_MAX]) == f"/games/{INT64_MAX}/"
    for bad in (0, INT64_MAX + 1, TOO_BIG):
        with pytest.raises(NoReverseMatch):
            reverse("dicegame:game", args=[bad])


def test_the_game_socket_route_only_takes_ids_in_range():
    game_route = websocket_urlpatterns[0]
    assert game_route.resolve(f"ws/games/{INT64_MAX}/").kwargs == {"game_id": INT64_MAX}
    for bad in (0, INT64_MAX + 1, TOO_BIG):
        assert game_route.resolve(f"ws/games/{bad}/") is None


@pytest.mark.django_db
@pytest.mark.parametrize("value", [str(TOO_BIG), str(2**31), "-" + str(TOO_BIG), "1" * 5000, "١٢"])
def test_posted_numbers_out_of_range_are_refused_with_400(host, room, value):
    client = client_for(host)
    before = everything()
    response = client.post(f"/games/{room.pk}/roll/", {"turn": value, "roll": "0"}, **HX)
    assert response.status_code == 400
    assert "turn is missing or not a number" in response.content.decode()
    response = client.post("/games/friends/", {"seats": "2", "turn_seconds": value}, **HX)
    assert response.status_code == 400
    assert "turn_seconds is missing or not a number" in response.content.decode()
    assert everything() == before


# -- simultaneous sign-ups with one name ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_simultaneous_signups_with_one_name_make_one_account(monkeypatch):
    """Every request passes the form's uniqueness check before any of them inserts (a barrier holds them
    there), so all but one meet the unique index: on PostgreSQL as they would in production."""
    n = 20
    barrier = threading.Barrier(n, timeout=30)

    class RacingSignupForm(SignupForm):
        def is_valid(self):
            valid = super().is_valid()
            barrier.wait()
            return valid

    monkeypatch.setattr("accounts.views.SignupForm", RacingSignupForm)
    results: list = []

    def sign_up():
        try:
            client = Client(raise_request_exception=False)
            data = {"username": "racer", "password1": PASSWORD, "password2": PASSWORD}
            response = client.post("/accounts/signup/", data)
            results.append((response.status_code, response.content.decode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    statuses = sorted(status for status, _ in results)
    assert statuses == [302] + [400] * (n - 1), (statuses, results[0][1][-1500:])
    assert get_user_model().objects.filter(username="racer").count() == 1
    for status, html in results:
        if status == 400:
            assert "A user with that username already exists." in html


# -- /healthz/ before any host check or redirect --------------------------------------------------------


@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["penta.example.com"])
def test_healthz_answers_over_plain_http_whatever_the_host():
    client = Client()
    for host in ("10.0.0.7", "10.0.0.7:8001", "penta.example.com", "[::1]"):
        response = client.get("/healthz/", HTTP_HOST=host)
        assert response.status_code == 200, host
        assert response.content == b"ok"
    assert client.head("/healthz/", HTTP_HOST="10.0.0.7").status_code == 200
    # Everything else still goes through the host check and the redirect to HTTPS.
    assert client.get("/", HTTP_HOST="10.0.0.7").status_code == 400
    response = client.get("/", HTTP_HOST="penta.example.com")
    assert response.status_code == 301 and response["Location"].startswith("https://penta.example.com/")
