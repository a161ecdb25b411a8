"""Privacy choices (who sees a person's statistics and games), the sessions page (where one is logged in,
and logging out the others), and two-factor log-in (TOTP with recovery codes, django-otp)."""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import blocks
from accounts.models import LoginSession, Profile
from accounts.services import profile_set_leaderboard_opt_in
from dicegame.actors import Actor
from dicegame.play.selectors import game_visible
from tests.support.factories import PASSWORD, UserFactory, actor, befriend, client_for
from tests.support.games import mark_finished, two_player_game

pytestmark = pytest.mark.django_db

CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
FIREFOX = "Mozilla/5.0 (Android 15; Mobile; rv:140.0) Gecko/140.0 Firefox/140.0"


def choose(user, games: str, challenges: str = "everyone", findable: bool = True):
    blocks.privacy_set(user=user, challenges_from=challenges, games_visible_to=games, findable=findable)


# -- who sees a person's statistics and games --------------------------------------------------------------


def test_the_statistics_page_follows_the_persons_choice():
    hana, femke, stranger = UserFactory(username="hana"), UserFactory(username="femke"), UserFactory()
    befriend(hana, femke)
    url = "/players/hana/"
    seen = lambda client: client.get(url).status_code  # noqa: E731
    friend, other, anonymous = client_for(femke), client_for(stranger), Client()
    assert (seen(friend), seen(other), seen(anonymous)) == (200, 404, 404)  # friends, by default
    choose(hana, "everyone")
    assert (seen(friend), seen(other), seen(anonymous)) == (200, 200, 200)
    choose(hana, "me")
    assert (seen(friend), seen(other), seen(anonymous), seen(client_for(hana))) == (404, 404, 404, 200)
    choose(hana, "everyone")
    blocks.block_add(user=hana, username=stranger.username)
    assert seen(other) == 404  # one answer for a private page, a block and nobody


def test_on_the_site_wide_boards_means_a_page_for_everyone_and_hiding_it_leaves_them():
    hana = UserFactory(username="hana")
    profile_set_leaderboard_opt_in(user=hana, on=True)
    assert Profile.objects.get(user=hana).games_visible_to == "everyone"
    choose(hana, "friends")
    profile = Profile.objects.get(user=hana)
    assert (profile.leaderboard_opt_in, profile.games_visible_to) == (False, "friends")


def test_only_me_hides_a_persons_games_from_everyone_but_the_other_players():
    game, hana, femke = two_player_game()
    watcher = UserFactory(username="watcher")
    befriend(watcher, hana)
    assert game_visible(game=game, actor=actor(watcher))
    assert game_visible(game=game, actor=Actor(), token=game.invite_token)
    choose(femke, "me")
    assert not game_visible(game=game, actor=actor(watcher))
    assert not game_visible(game=game, actor=Actor(), token=game.invite_token)
    assert game_visible(game=game, actor=actor(hana))  # the opponent always sees the game
    mark_finished(game)
    assert client_for(watcher).get(f"/games/{game.pk}/review/").status_code == 404
    assert client_for(watcher).get(f"/games/{game.pk}/export.json").status_code == 404
    assert client_for(hana).get(f"/games/{game.pk}/export.json").status_code == 200


def test_not_findable_leaves_the_search_but_an_exact_name_still_reaches():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    client = client_for(femke)
    assert ">hana<" in client.get("/accounts/friends/?q=han").content.decode()
    choose(hana, "friends", findable=False)
    assert ">hana<" not in client.get("/accounts/friends/?q=han").content.decode()
    assert client.post("/accounts/friends/request/", {"username": "hana"}).status_code == 302


# -- sessions --------------------------------------------------------------------------------------------


def logged_in(user, agent: str) -> Client:
    client = Client(HTTP_USER_AGENT=agent)
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def test_the_sessions_page_lists_the_devices_and_logs_out_the_others():
    hana = UserFactory(username="hana")
    laptop, phone = logged_in(hana, CHROME), logged_in(hana, FIREFOX)
    page = laptop.get("/accounts/sessions/").content.decode()
    assert "Chrome, Linux" in page and "Firefox, Android" in page
    assert page.count("data-session=") == 2 and "data-current" in page
    assert laptop.post("/accounts/sessions/others/").status_code == 302
    assert phone.get("/accounts/preferences/").status_code == 302  # logged out: to the login page
    assert laptop.get("/accounts/preferences/").status_code == 200
    assert LoginSession.objects.filter(user=hana).count() == 1


def test_one_session_ends_by_its_row_and_never_anothers():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    laptop, phone = logged_in(hana, CHROME), logged_in(hana, FIREFOX)
    theirs = logged_in(femke, CHROME)
    femkes = LoginSession.objects.get(user=femke)
    assert laptop.post(f"/accounts/sessions/{femkes.pk}/end/").status_code == 404
    assert theirs.get("/accounts/preferences/").status_code == 200
    phones = LoginSession.objects.get(user=hana, device="Firefox, Android")
    assert laptop.post(f"/accounts/sessions/{phones.pk}/end/").status_code == 302
    assert phone.get("/accounts/preferences/").status_code == 302


def test_changing_the_password_logs_out_the_other_sessions():
    hana = UserFactory(username="hana")
    laptop, phone = logged_in(hana, CHROME), logged_in(hana, FIREFOX)
    new = "another-good-password-7"
    response = laptop.post(
        "/accounts/password/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302
    assert phone.get("/accounts/preferences/").status_code == 302
    assert laptop.get("/accounts/preferences/").status_code == 200
    assert list(LoginSession.objects.filter(user=hana).values_list("device", flat=True)) == ["Chrome, Linux"]


def test_logging_out_takes_the_session_off_the_list():
    hana = UserFactory(username="hana")
    laptop = logged_in(hana, CHROME)
    laptop.post("/accounts/logout/")
    assert not LoginSession.objects.exists()


# -- two-factor log-in ------------------------------------------------------------------------------------


def code_of(device: TOTPDevice, offset: int = 0) -> str:
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + offset
    return f"{totp.token():06d}"


def set_up(client: Client) -> tuple[TOTPDevice, list[str]]:
    assert client.post("/accounts/two-factor/start/").status_code == 200
    device = TOTPDevice.objects.get(confirmed=False)
    page = client.post("/accounts/two-factor/confirm/", {"code": code_of(device)}).content.decode()
    device.refresh_from_db()
    assert device.confirmed
    codes = [t.token for t in StaticToken.objects.all()]
    assert len(codes) == 10 and all(c in page for c in codes)
    return device, codes


def test_two_factor_asks_for_the_code_after_the_password(settings):
    hana = UserFactory(username="hana")
    page = client_for(hana).get("/accounts/two-factor/")
    assert 'data-two-factor="off"' in page.content.decode()
    owner = client_for(hana)
    owner.post("/accounts/two-factor/start/")
    start_page = owner.get("/accounts/two-factor/").content.decode()
    assert 'src="data:image/svg+xml' in start_page and "style=" not in start_page
    bad = owner.post("/accounts/two-factor/confirm/", {"code": "000000x"})
    assert bad.status_code == 400 and not TOTPDevice.objects.filter(confirmed=True).exists()
    device = TOTPDevice.objects.get()
    owner.post("/accounts/two-factor/confirm/", {"code": code_of(device)})
    device.refresh_from_db()

    client = Client()
    step = client.post("/accounts/login/", {"username": "hana", "password": PASSWORD})
    assert step.status_code == 302 and step["Location"] == "/accounts/login/code/"
    assert client.get("/accounts/preferences/").status_code == 302  # not logged in yet
    wrong = client.post("/accounts/login/code/", {"code": "123456"})
    assert wrong.status_code == 400 and 'role="alert"' in wrong.content.decode()
    device.refresh_from_db()
    device.throttling_failure_count = 0  # django-otp's own wait after a wrong code, skipped here
    device.throttling_failure_timestamp = None
    device.save()
    right = client.post("/accounts/login/code/", {"code": code_of(device, 30)})
    assert right.status_code == 302
    assert client.get("/accounts/preferences/").status_code == 200


def test_a_recovery_code_works_once():
    hana = UserFactory(username="hana")
    _device, codes = set_up(client_for(hana))
    for expected in (302, 400):
        client = Client()
        client.post("/accounts/login/", {"username": "hana", "password": PASSWORD})
        assert client.post("/accounts/login/code/", {"code": codes[0].upper()}).status_code == expected
        for d in [*TOTPDevice.objects.all(), *StaticDevice.objects.all()]:
            d.throttle_reset()  # django-otp's wait after a wrong code, skipped here
    assert StaticToken.objects.count() == 9


def test_wrong_codes_count_as_failed_log_ins_for_axes(settings):
    settings.PENTA_LOGIN_FAILURES_PER_ACCOUNT = 2
    hana = UserFactory(username="hana")
    set_up(client_for(hana))
    client = Client()
    client.post("/accounts/login/", {"username": "hana", "password": PASSWORD})
    statuses = [client.post("/accounts/login/code/", {"code": "999999"}).status_code for _n in range(3)]
    assert statuses[-1] == 429
    # The right password is refused too now, before any code is asked.
    again = Client().post("/accounts/login/", {"username": "hana", "password": PASSWORD})
    assert again.status_code == 429


def test_the_code_step_needs_the_password_first_and_lapses():
    assert Client().get("/accounts/login/code/").status_code == 302
    hana = UserFactory(username="hana")
    set_up(client_for(hana))
    client = Client()
    client.post("/accounts/login/", {"username": "hana", "password": PASSWORD})
    session = client.session
    session["penta_second_step"]["at"] -= 3600
    session.save()
    assert client.post("/accounts/login/code/", {"code": "123456"}).status_code == 302


def test_turning_it_off_needs_the_password():
    hana = UserFactory(username="hana")
    client = client_for(hana)
    set_up(client)
    assert client.post("/accounts/two-factor/off/", {"password": "wrong"}).status_code == 400
    assert TOTPDevice.objects.exists()
    assert client.post("/accounts/two-factor/off/", {"password": PASSWORD}).status_code == 200
    assert not TOTPDevice.objects.exists()
