"""Issue 10's defects 4 and 8 as a player meets them, on a desktop and on a 360x740 phone: a room waiting
for players is listed as a room (not "Solo · In play · 0"); a computer player's name follows the
viewer's language, not the language the game was created in; the Dutch account pages say "je"."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from dicegame.models import Game
from dicegame.play import rooms
from tests.browser.pages import logged_in_page, start_against_computers
from tests.support.factories import GameFactory, PlayerFactory, UserFactory, actor

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_waiting_room_is_listed_as_a_room(browser: Browser, live_server_url: str, viewport: dict):
    host = UserFactory(username="hana")
    room = rooms.room_create(actor=actor(host), seats=3, turn_seconds=60)
    page = logged_in_page(browser, live_server_url, host.username, viewport=viewport, language="en")
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
    rooms.room_cancel(game_id=room.pk, actor=actor(host))
    page.goto(f"{live_server_url}/games/")
    expect(page.locator(f'[data-game="{room.pk}"]')).to_have_count(0)


def test_computer_names_follow_the_viewers_language(browser: Browser, live_server_url: str, viewport: dict):
    player = UserFactory(username="piet")
    page = logged_in_page(browser, live_server_url, player.username, viewport=viewport, language="en")
    start_against_computers(page, live_server_url, "hard")
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
    page = logged_in_page(browser, live_server_url, player.username, viewport=viewport, language="en")
    page.goto(f"{live_server_url}/games/{game.pk}/")
    items = page.locator("ol.ranking > li")
    expect(items).to_have_count(3)
    texts = items.all_inner_texts()
    for text in texts:
        assert not re.match(r"\s*\d+\.", text), f"a place numbered in the text too: {texts}"
    assert [items.nth(i).get_attribute("value") for i in range(3)] == ["1", "2", "2"]
    assert "Computer 2 (hard)" in texts[0]
