"""Issue 10's defects 4 and 8 as a player meets them, on a desktop and on a 360x740 phone: a room waiting
for players is listed as a room (not "Solo · In play · 0"); a computer player's name follows the
viewer's language, not the language the game was created in; the Dutch account pages say "je"."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from dicegame.actors import Actor
from dicegame.models import Game
from dicegame.play import rooms
from tests.support.factories import PASSWORD, GameFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
VIEWPORTS = {"desktop": {"width": 1100, "height": 900}, "phone": {"width": 360, "height": 740}}


@pytest.fixture(params=sorted(VIEWPORTS))
def viewport(request) -> dict:
    return VIEWPORTS[request.param]


def log_in(browser: Browser, base: str, user, viewport: dict, language: str = "en") -> Page:
    context = browser.new_context(locale="en-GB", viewport=viewport)
    context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.locator("input[name=username]").fill(user.username)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form button[type=submit]").last.click()
    expect(page.locator("nav").get_by_role("link", name=user.username)).to_be_attached()
    return page


def test_a_waiting_room_is_listed_as_a_room(browser: Browser, live_server_url: str, viewport: dict):
    host = UserFactory(username="hana")
    room = rooms.room_create(actor=Actor(user_id=host.pk, name=host.username), seats=3, turn_seconds=60)
    page = log_in(browser, live_server_url, host, viewport)
    for address in ("/games/", "/"):
        page.goto(f"{live_server_url}{address}")
        row = page.locator(f'[data-game="{room.pk}"]')
        expect(row).to_contain_text("Against friends")
        expect(row).to_contain_text("Waiting for players")
        expect(row).not_to_contain_text("Solo")
        expect(row).not_to_contain_text("In play")
    # It leads to the room.
    page.goto(f"{live_server_url}/games/")
    page.locator(f'[data-game="{room.pk}"] a[href="/games/{room.pk}/"]').first.click()
    expect(page.locator("#lobby")).to_be_visible()
    # A cancelled room is not listed at all. (Away from the room first: its open page reloads itself
    # when it learns of the cancel, which would race the next navigation.)
    page.goto(f"{live_server_url}/")
    rooms.room_cancel(game_id=room.pk, actor=Actor(user_id=host.pk, name=host.username))
    page.goto(f"{live_server_url}/games/")
    expect(page.locator(f'[data-game="{room.pk}"]')).to_have_count(0)


def test_computer_names_follow_the_viewers_language(browser: Browser, live_server_url: str, viewport: dict):
    player = UserFactory(username="piet")
    page = log_in(browser, live_server_url, player, viewport)
    page.goto(f"{live_server_url}/")
    page.locator("form.computer-form").first.locator("select[name=strength]").first.select_option("hard")
    page.locator("form.computer-form").first.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    expect(page.locator('th[data-seat-name="1"]')).to_contain_text("Computer (hard)")
    page.context.add_cookies([{"name": "django_language", "value": "nl", "url": live_server_url}])
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(page.locator('th[data-seat-name="1"]')).to_contain_text("Computer (moeilijk)")
    expect(page.locator('th[data-seat-name="1"]')).not_to_contain_text("hard")


def test_the_dutch_sign_up_page_says_je_not_u(browser: Browser, live_server_url: str, viewport: dict):
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "django_language", "value": "nl", "url": live_server_url}])
    page = context.new_page()
    page.goto(f"{live_server_url}/accounts/signup/")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    text = page.locator("main").inner_text()
    assert not re.search(r"\b(u|uw|Uw|U)\b", text), text
    assert re.search(r"\b(je|jouw|Je)\b", text), text
    # A refused sign-up speaks the same way.
    page.locator("input[name=username]").fill("anna")
    page.locator("input[name=password1]").fill("kort")
    page.locator("input[name=password2]").fill("anders")
    page.locator("main form button[type=submit]").click()
    expect(page.locator("main .errorlist, main [role=alert]").first).to_be_visible()
    text = page.locator("main").inner_text()
    assert not re.search(r"\b(u|uw|Uw|U)\b", text), text


def test_the_final_ranking_numbers_each_place_once(browser: Browser, live_server_url: str, viewport: dict):
    """Defect 5: "1. 1. Computer 3 (hard): 185" — the list numbers the places, the text does not again;
    tied totals share a place."""
    player = UserFactory(username="rik")
    game = GameFactory(kind=Game.Kind.COMPUTER, status=Game.Status.FINISHED, finished_at=timezone.now())
    PlayerFactory(game=game, seat=0, user=player, total=185, rank=2)
    PlayerFactory(
        game=game, seat=1, user=None, bot_strength="easy", name="Computer 1 (easy)", total=185, rank=2
    )
    PlayerFactory(
        game=game, seat=2, user=None, bot_strength="hard", name="Computer 2 (hard)", total=201, rank=1
    )
    # (Ranks as the finishing service writes them: the best total first, ties sharing a place.)
    page = log_in(browser, live_server_url, player, viewport)
    page.goto(f"{live_server_url}/games/{game.pk}/")
    items = page.locator("ol.ranking > li")
    expect(items).to_have_count(3)
    texts = items.all_inner_texts()
    for text in texts:
        assert not re.match(r"\s*\d+\.", text), f"a place numbered in the text too: {texts}"
    assert [items.nth(i).get_attribute("value") for i in range(3)] == ["1", "2", "2"]
    assert "Computer 2 (hard)" in texts[0]
