"""Moments, controls and hints in plain words, in Chromium at desktop width and on a 360x740 phone:
a resign, a sacrifice confirmation, the hints sentence with its dice marked, a Penta banner (no animation
under reduced motion), the sound toggle remembered, and the copy-link button.

Positions with chosen dice are set in the database (the dice come from the seed otherwise), then the
page is loaded: every wait is for a change in the page, never a fixed sleep."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from dicegame.models import Game
from dicegame.rules.scoring import Scoresheet
from dicegame.strategy import Strategy
from tests.browser.pages import (
    GAME_URL,
    VIEWPORTS,
    WAIT_MS,
    confirm_button,
    log_in,
    open_menu,
    rig_dice,
    roll_button,
    rolls_field,
    start_solo,
)
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=list(VIEWPORTS))
def screen(request, browser: Browser):
    context = browser.new_context(locale="en-GB", viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    context.close()


def test_resign_asks_first_then_ends_the_game(screen: Page, live_server_url: str):
    game_id = start_solo(screen, live_server_url)
    yes = screen.get_by_role("button", name="Yes, resign")
    expect(yes).to_be_hidden()  # inside the closed <details>
    screen.get_by_text("Resign…").click()
    yes.click()
    expect(screen.get_by_role("heading", name="Game over")).to_be_visible()
    expect(screen.locator("[data-resigned]")).to_contain_text("You resigned this game")
    assert Game.objects.get(pk=game_id).is_finished


def test_a_zero_is_confirmed_on_the_page(screen: Page, live_server_url: str):
    game_id = start_solo(screen, live_server_url)
    rig_dice(game_id, [1, 2, 3, 4, 5])
    screen.reload()
    penta = screen.locator('button[data-box="PENTA"]')
    expect(penta).to_be_enabled()
    penta.click()
    # Asked at the box (tests/browser/test_play_screen.py has the where and the countdown).
    expect(screen.locator("[data-zero-question]")).to_contain_text(
        "Write 0 in Penta? Large straight would score 40."
    )
    expect(penta).to_have_attribute("aria-pressed", "false")
    # Yes writes it: one tap and one answer.
    screen.get_by_role("button", name="Yes, write 0 in Penta").click()
    expect(screen.locator('#scoresheet tr.box-row:has(button[data-box="PENTA"]) td').first).to_have_attribute(
        "data-score", "0"
    )
    expect(confirm_button(screen)).to_be_disabled()


def test_hints_lead_with_a_sentence_and_mark_the_dice(screen: Page, live_server_url: str):
    game_id = start_solo(screen, live_server_url)
    dice = [4, 4, 5, 1, 2]
    rig_dice(game_id, dice)
    screen.reload()
    expect(screen.locator("[data-hints-note]")).to_contain_text("will not count for ratings or leaderboards")
    screen.get_by_role("button", name="Show hints").click()
    best = Strategy.shared().best_keep(Scoresheet(), tuple(dice), 2)
    words = {(4, 4, 5): "Keep the two 4s and the 5", (4, 4): "Keep the two 4s"}
    sentence = screen.locator("[data-hint-sentence]")
    expect(sentence).to_be_visible()
    if best in words:
        expect(sentence).to_have_text(words[best])
    expect(screen.locator("#dice-tray .die.hint-keep")).to_have_count(len(best))
    # The exact figures are one click away.
    table = screen.locator('[data-hint="keeps"]')
    expect(table).to_be_hidden()
    screen.get_by_text("The exact figures").click()
    expect(table).to_be_visible()
    # The next roll redraws the card (morphed): what the player opened stays open.
    roll_button(screen).click()
    expect(rolls_field(screen)).to_have_value("2")
    expect(table).to_be_visible()
    assert Game.objects.get(pk=game_id).hints_used


def test_a_rolled_penta_shows_a_banner_once(screen: Page, live_server_url: str):
    screen.emulate_media(reduced_motion="reduce")
    game_id = start_solo(screen, live_server_url)
    rig_dice(game_id, [3] * 5)
    screen.reload()
    banner = screen.locator("#moment-toasts [data-moment-toast]")
    expect(banner).to_have_count(1)
    expect(banner).to_contain_text("Penta! Five 3s.")
    # No animation under reduced motion; dismissable.
    assert "moment-animate" not in (banner.get_attribute("class") or "")
    banner.get_by_role("button", name="Dismiss").click()
    expect(banner).to_have_count(0)
    # Shown once: a reload does not repeat it.
    screen.reload()
    expect(screen.locator("#moments [data-moment]")).to_have_count(1)
    expect(screen.locator("#moment-toasts [data-moment-toast]")).to_have_count(0)
    # Written in the Penta box: the answer (morphed in by htmx) brings the next moment.
    screen.locator('button[data-box="PENTA"]').click()
    expect(screen.locator('button[data-box="PENTA"]')).to_have_attribute("aria-pressed", "true")
    confirm_button(screen).click()
    expect(banner).to_have_count(1)
    expect(banner).to_contain_text("Penta! 50 points.")
    expect(banner).to_have_attribute("data-moment-toast", "penta")


def test_sound_is_off_until_turned_on_and_remembered(screen: Page, live_server_url: str):
    start_solo(screen, live_server_url)
    toggle = screen.locator("[data-sound-toggle]")
    expect(toggle).to_have_text("Sound: off")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    roll_button(screen).click()
    expect(rolls_field(screen)).to_have_value("1")
    assert screen.evaluate("document.documentElement.dataset.lastSound") is None  # off: silent
    open_menu(screen)  # a game page's header keeps it in its menu
    toggle.click()
    expect(toggle).to_have_text("Sound: on")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    screen.reload()
    expect(screen.locator("[data-sound-toggle]")).to_have_text("Sound: on")
    assert screen.evaluate("localStorage.getItem('penta.sound')") == "on"
    roll_button(screen).click()
    expect(rolls_field(screen)).to_have_value("2")
    # (Not wait_for_function: polling a string in the page is refused by its CSP, no unsafe-eval.)
    expect(screen.locator("html")).to_have_attribute("data-last-sound", "roll")


def test_copy_the_invitation_link(browser: Browser, live_server_url: str):
    for size in VIEWPORTS.values():
        user = UserFactory()
        context = browser.new_context(locale="en-GB", viewport=size)
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        log_in(page, live_server_url, user.username)
        page.goto(f"{live_server_url}/")
        page.locator("form[action='/games/friends/'] button[type=submit]").first.click()
        expect(page).to_have_url(GAME_URL)
        copy = page.locator("#lobby [data-copy-link]")
        expect(copy).to_have_text("Copy the link")
        copy.click()
        expect(copy).to_have_text("Copied")
        link = page.locator("[data-join-link]").get_attribute("href")
        assert page.evaluate("navigator.clipboard.readText()").endswith(link)
        context.close()
