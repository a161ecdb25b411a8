"""Accounts people can trust, in Chromium: a forgotten password reset through the mail (a real SMTP
server), a block that stops a friend request and a room invitation, an export that downloads and
parses, and a deletion that anonymises the seat in a finished game its opponent still sees."""

from __future__ import annotations

import json
import re
import time
import zipfile
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from accounts import erasure
from accounts.models import AccountDeletion
from tests.browser.pages import WAIT_MS, logged_in_page, new_page, off_the_browsers_loop
from tests.support.factories import UserFactory, befriend
from tests.support.games import mark_finished, two_player_game
from tests.support.notifications import confirmed_mail

pytestmark = pytest.mark.django_db(transaction=True)
LAPTOP = {"width": 1280, "height": 900}


def mail_to(server, address: str, within: float = 20.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = [m for m in server.mails if address in m.rcpt_tos]
        if found:
            return found[-1]
        time.sleep(0.2)
    raise AssertionError(f"no mail to {address}")


def test_forgot_password_then_the_mail_then_a_new_password_then_logged_in(
    browser: Browser, live_server_url: str, browser_mail
):
    expect.set_options(timeout=WAIT_MS)
    hana = UserFactory(username="forgetful")
    confirmed_mail(hana, address="forgetful@example.com")
    page = new_page(browser, LAPTOP)
    page.goto(f"{live_server_url}/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.locator("[data-needs-address]")).to_be_visible()
    page.get_by_label("The e-mail address you confirmed for your account").fill("forgetful@example.com")
    page.get_by_role("button", name="Send me a link").click()
    expect(page.get_by_role("heading", name="Check your mail")).to_be_visible()

    mail = mail_to(browser_mail, "forgetful@example.com")
    [path] = re.findall(r"https?://[^/\s]+(/accounts/password/reset/[^\s\"<>]+/)", mail.text)
    page.goto(f"{live_server_url}{path}")
    page.get_by_label("New password", exact=True).fill("a-brand-new-secret-77")
    page.get_by_label("New password confirmation").fill("a-brand-new-secret-77")
    page.get_by_role("button", name="Save the new password").click()
    expect(page.locator("nav").get_by_role("link", name="forgetful")).to_be_visible()
    # The link was spent.
    page.goto(f"{live_server_url}{path}")
    expect(page.locator("[data-invalid-link]")).to_be_visible()


def test_a_block_stops_a_friend_request_and_a_room_invitation(browser: Browser, live_server_url: str):
    expect.set_options(timeout=WAIT_MS)
    hana, femke = UserFactory(username="blocker"), UserFactory(username="pesterer")
    befriend(hana, femke)
    page = logged_in_page(browser, live_server_url, "blocker")
    page.goto(f"{live_server_url}/players/pesterer/")
    page.locator("[data-person-actions]").get_by_role("button", name="Block").click()
    expect(page.locator('[data-blocked="pesterer"]')).to_be_visible()

    other = logged_in_page(browser, live_server_url, "pesterer")
    # Answered as for nobody of that name: no "Add friend" to press.
    other.goto(f"{live_server_url}/accounts/friends/?q=blocker")
    expect(other.locator("#friends-panel")).to_contain_text("No player’s name contains “blocker”.")
    # Their room offers no way to invite the one who blocked them (no longer friends, not findable).
    room = off_the_browsers_loop(lambda: _room_of(femke))
    other.goto(f"{live_server_url}/games/{room}/")
    expect(other.get_by_role("heading", name=re.compile(f"Game {room}"))).to_be_visible()
    expect(other.locator("#main")).not_to_contain_text("blocker")


def _room_of(user) -> int:
    from dicegame.play import rooms
    from tests.support.factories import actor

    return rooms.room_create(actor=actor(user), seats=2, turn_seconds=60).pk


def test_an_export_downloads_and_its_json_parses(browser: Browser, live_server_url: str):
    expect.set_options(timeout=WAIT_MS)
    UserFactory(username="exporter")
    page = logged_in_page(browser, live_server_url, "exporter")
    page.goto(f"{live_server_url}/accounts/export/")
    page.get_by_role("button", name="Make my export").click()
    link = page.locator("[data-download]")
    expect(link).to_be_visible(timeout=30_000)  # made by the server's clock, then shown by the page
    with page.expect_download() as download:
        link.click()
    archive = zipfile.ZipFile(download.value.path())
    account = json.loads(archive.read("account.json"))
    assert account["username"] == "exporter" and account["format"] == "penta-export/1"
    assert isinstance(json.loads(archive.read("games.json")), list)


def test_a_deletion_anonymises_the_seat_in_a_finished_game_the_opponent_still_sees(
    browser: Browser, live_server_url: str
):
    expect.set_options(timeout=WAIT_MS)
    game, leaver, stayer = two_player_game(names=("leaver", "stayer"))
    mark_finished(game)
    page = logged_in_page(browser, live_server_url, "leaver")
    page.goto(f"{live_server_url}/accounts/delete/")
    page.get_by_label("Your password").fill("correct-horse-battery-staple")
    page.locator("[data-delete-form]").get_by_role("button", name="Delete my account").click()
    expect(page.get_by_text("Your account will be deleted on")).to_be_visible()
    expect(page.locator("nav").get_by_role("link", name="Log in")).to_be_visible()

    def the_clock_a_week_later():
        AccountDeletion.objects.update(due_at=timezone.now() - timedelta(seconds=1))
        erasure.erase_due()

    off_the_browsers_loop(the_clock_a_week_later)
    opponent = logged_in_page(browser, live_server_url, "stayer")
    opponent.goto(f"{live_server_url}/games/{game.pk}/")
    expect(opponent.locator("#main")).to_contain_text(f"deleted-{leaver.pk}")
    expect(opponent.locator("#main")).not_to_contain_text("leaver")
