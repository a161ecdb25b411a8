"""Sign up, log in, log out, change password; a guest's games move into the account."""

import re
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from dicegame import play
from dicegame.models import Player
from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def play_as_guest(client: Client) -> Player:
    client.post("/games/solo/")
    return Player.objects.filter(user__isnull=True).latest("pk")


def test_signup_keeps_the_guests_games(client):
    seat = play_as_guest(client)
    response = client.post(
        "/accounts/signup/",
        {"username": "anna", "password1": "dice-are-nice-42", "password2": "dice-are-nice-42"},
    )
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.user.username == "anna" and seat.guest_key == "" and seat.name == "anna"
    history = client.get("/games/").content.decode()
    assert f'data-game="{seat.game_id}"' in history
    assert "Your games as a guest are now in your account." in history


def test_login_keeps_the_guests_games(client):
    user = UserFactory()
    seat = play_as_guest(client)
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.user == user
    assert client.get(f"/games/{seat.game_id}/").status_code == 200


def test_a_guest_key_cannot_be_claimed_twice(client):
    seat = play_as_guest(client)
    first = UserFactory()
    client.post("/accounts/login/", {"username": first.username, "password": PASSWORD})
    client.post("/accounts/logout/")
    other = UserFactory()
    client.post("/accounts/login/", {"username": other.username, "password": PASSWORD})
    seat.refresh_from_db()
    assert seat.user == first


def test_bad_signup_and_login_answer_400_with_messages(client):
    response = client.post("/accounts/signup/", {"username": "bob", "password1": "x", "password2": "y"})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not get_user_model().objects.filter(username="bob").exists()
    response = client.post("/accounts/login/", {"username": "nobody", "password": "nope"})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()


def test_logout_is_a_post(client):
    user = UserFactory()
    client.force_login(user)
    assert client.get("/accounts/logout/").status_code == 405
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


def test_change_password(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-dice-secret-7",
            "new_password2": "a-new-dice-secret-7",
        },
    )
    assert response.status_code == 302
    assert Client().login(username=user.username, password="a-new-dice-secret-7")


def test_change_password_needs_login(client):
    response = client.get("/accounts/password/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_admin_lists_games_and_players(client, user_actor):

    admin = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    play.game_create_solo(actor=user_actor)
    client.force_login(admin)
    assert client.get("/admin/dicegame/game/").status_code == 200
    assert client.get("/admin/dicegame/player/").status_code == 200


# -- the way back: `next` survives the login page's "Sign up" and the header's links --------------------


def hrefs(html: str, path: str) -> list[str]:

    return [unescape(h) for h in re.findall(rf'href="({path}[^"]*)"', html)]


def test_an_invitation_link_survives_login_then_sign_up(client, room):
    join = f"/games/join/{room.invite_token}/"
    page = client.get(join).content.decode()
    login_url = next(h for h in hrefs(page, "/accounts/login/") if "next=" in h)
    login_page = client.get(login_url).content.decode()
    # Both "Sign up" links of the login page (the page's own and the header's) carry the way back.
    signups = hrefs(login_page, "/accounts/signup/")
    assert signups and all(h == f"/accounts/signup/?next={join}" for h in signups)
    signup_page = client.get(signups[0]).content.decode()
    assert f'name="next" value="{join}"' in signup_page
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newcomer",
            "password1": "dice-are-nice-42",
            "password2": "dice-are-nice-42",
            "next": join,
        },
    )
    assert response.status_code == 302 and response["Location"] == join
    assert "Take a seat" in client.get(join).content.decode()


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/", "javascript:alert(1)"])
def test_sign_up_never_sends_anyone_off_site(client, target):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "careful",
            "password1": "dice-are-nice-42",
            "password2": "dice-are-nice-42",
            "next": target,
        },
    )
    assert response.status_code == 302 and response["Location"] == "/games/"
    assert "evil" not in client.get(f"/accounts/signup/?next={target}").content.decode()


def test_the_headers_links_carry_the_page_they_were_on(client):
    page = client.get("/leaderboard/?scope=site").content.decode()
    assert "/accounts/login/?next=/leaderboard/%3Fscope%3Dsite" in page
    assert "/accounts/signup/?next=/leaderboard/%3Fscope%3Dsite" in page
    # On the sign-up page itself, without a way back, they carry none (not "back to the sign-up page").
    page = client.get("/accounts/signup/").content.decode()
    assert "?next=" not in page


def test_dutch_account_pages_say_je_not_u(client, user):

    client.cookies["django_language"] = "nl"

    def text(html: str) -> str:
        main = html.split('id="main"', 1)[1]
        return " " + re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main)) + " "

    pages = [
        client.get("/accounts/signup/").content.decode(),
        client.get("/accounts/login/").content.decode(),
    ]
    pages.append(
        client.post(
            "/accounts/signup/", {"username": "a b", "password1": "1", "password2": "2"}
        ).content.decode()
    )
    pages.append(client.post("/accounts/login/", {"username": "x", "password": "y"}).content.decode())
    assert client.login(username=user.username, password=PASSWORD)
    pages.append(client.get("/accounts/password/").content.decode())
    pages.append(
        client.post(
            "/accounts/password/", {"old_password": "no", "new_password1": "1", "new_password2": "1"}
        ).content.decode()
    )
    for html in pages:
        words = text(html)
        assert "Registreren" in words or "Wachtwoord" in words  # Dutch indeed
        assert not re.search(r"\b([Uu]w|[Uu])\b", words), words
    assert "Je wachtwoord" in text(pages[0])
