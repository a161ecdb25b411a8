"""Sign up, log in, log out, change password; a guest's games move into the account."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from dicegame.models import Player
from tests.factories import PASSWORD, UserFactory

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
    from dicegame import services

    admin = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    services.game_create_solo(actor=user_actor)
    client.force_login(admin)
    assert client.get("/admin/dicegame/game/").status_code == 200
    assert client.get("/admin/dicegame/player/").status_code == 200
