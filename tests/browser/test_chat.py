"""Talk at the table in two browsers: friends exchange a reaction, a quick phrase and a line in a live
game; a line in a correspondence game arrives as a notice; a spectator's line reaches spectators only; a
blocked person's lines are never shown; a report reaches staff's queue and a time-out silences."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from accounts.models import Block
from chat import services
from chat.models import ChatLine, ChatReport
from dicegame.models import Game
from dicegame.play import rooms
from tests.browser.pages import correspondence_game, logged_in_page, off_the_browsers_loop, open_with_notices
from tests.support.chat import seasoned
from tests.support.factories import actor, befriend

pytestmark = pytest.mark.django_db(transaction=True)


def live_game(host, friend) -> Game:
    def make():
        game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
        rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
        rooms.room_start(game_id=game.pk, actor=actor(host))
        game.refresh_from_db()
        return game

    return off_the_browsers_loop(make)


def open_chat(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("#dice-tray")).to_be_visible()
    page.locator("[data-chat-open]").click()
    expect(page.locator("[data-chat-drawer]")).to_be_visible()


def say(page: Page, text: str) -> None:
    page.get_by_label("Your line").fill(text)
    page.get_by_role("button", name="Send").click()


def test_friends_exchange_a_reaction_a_phrase_and_a_line_live(browser: Browser, live_server_url: str):
    hana, femke = seasoned("hana"), seasoned("femke")
    befriend(hana, femke)
    game = live_game(hana, femke)
    url = f"{live_server_url}/games/{game.pk}/"
    a, b = logged_in_page(browser, live_server_url, "hana"), logged_in_page(browser, live_server_url, "femke")
    open_chat(a, url)
    open_chat(b, url)

    say(a, "your move, slowpoke")
    expect(b.locator("#chat-lines-players")).to_contain_text("hana: your move, slowpoke")
    expect(a.get_by_label("Your line")).to_have_value("")
    expect(b.locator("#chat-lines-players")).to_have_attribute("aria-live", "polite")

    b.locator('[data-chat-phrase="hi"]').click()
    expect(a.locator("#chat-lines-players")).to_contain_text("femke: Hi!")

    b.locator('[data-chat-reaction="fire"]').click()
    # Shown briefly as a moment is, on the other screen.
    expect(a.locator("[data-moment-toast=reaction]")).to_contain_text("femke: 🔥")

    # A refused line is the sender's message; the other screen sees nothing.
    say(a, "your move, slowpoke")
    expect(a.locator("[data-chat-form-error]")).to_contain_text("You just said that.")
    expect(b.locator("#chat-lines-players .chat-line")).to_have_count(3)

    # A report in one tap reaches staff's queue with the line.
    b.locator("#chat-lines-players .chat-line").first.get_by_role("button", name="Report").click()
    expect(b.locator("#chat-error")).to_contain_text("staff will look")
    report = ChatReport.objects.get()
    assert report.line.text == "your move, slowpoke" and "slowpoke" in report.context

    # A time-out silences hana, with its reason, at her screen only.
    off_the_browsers_loop(lambda: services.timeout_set(user_id=hana.pk, length="15m", reason="calm down"))
    say(a, "am I heard?")
    expect(a.locator("[data-chat-form-error]")).to_contain_text("calm down")
    assert not ChatLine.objects.filter(text="am I heard?").exists()


def test_a_line_in_a_correspondence_game_arrives_as_a_notice(browser: Browser, live_server_url: str):
    hana, femke = seasoned("hana"), seasoned("femke")
    befriend(hana, femke)
    game = correspondence_game(hana, femke)
    a, b = logged_in_page(browser, live_server_url, "hana"), logged_in_page(browser, live_server_url, "femke")
    open_with_notices(b, f"{live_server_url}/", femke)
    open_chat(a, f"{live_server_url}/games/{game.pk}/")
    say(a, "take your time")
    expect(b.locator("#notifications .notice").filter(has_text="hana wrote in your game")).to_be_visible()


def test_a_spectator_s_line_reaches_spectators_only_and_a_blocked_person_is_never_shown(
    browser: Browser, live_server_url: str
):
    hana, femke, wim = seasoned("hana"), seasoned("femke"), seasoned("wim")
    befriend(hana, femke)
    befriend(hana, wim)
    game = live_game(hana, femke)
    Game.objects.filter(pk=game.pk).update(rated=True)
    url = f"{live_server_url}/games/{game.pk}/"
    a, w = logged_in_page(browser, live_server_url, "hana"), logged_in_page(browser, live_server_url, "wim")
    open_chat(a, url)
    w.goto(url)
    w.locator("[data-chat-open]").click()
    say(w, "go hana go")
    expect(w.locator("#chat-lines-spectators")).to_contain_text("wim: go hana go")
    a.wait_for_timeout(500)
    expect(a.get_by_text("go hana go")).to_have_count(0)

    # Femke blocks hana: hana's lines, old and new, never show on femke's screen.
    off_the_browsers_loop(lambda: Block.objects.create(blocker=femke, blocked=hana))
    a.locator('[data-chat-phrase="gl"]').click()
    b = logged_in_page(browser, live_server_url, "femke")
    b.goto(url)
    b.locator("[data-chat-open]").click()
    expect(b.locator("[data-chat-drawer]")).to_be_visible()
    a.locator('[data-chat-phrase="hf"]').click()
    b.wait_for_timeout(800)
    expect(b.locator("#chat-lines-players .chat-line")).to_have_count(0)
