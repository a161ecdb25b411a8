"""A game a screen reader and a keyboard can play (issue 40, majors 2 and 3): after each roll the page
says the dice in its language ("3, 3, 5, 6, 6; 2 rolls left") in a polite live region that is updated
in place, and the other players' moves too; the sheet has a heading; every box has a key, listed with
the others in a key help that "?" opens; and while the countdown runs, the page says that choosing a
box stops it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import (
    DESKTOP,
    confirm,
    dice_values,
    new_page,
    release_focus,
    roll,
    rolls_field,
    start_against_computers,
    start_solo,
    turn_field,
    wait_htmx_idle,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROLLS_LEFT = {"en": {2: "2 rolls left", 1: "1 roll left", 0: "0 rolls left"}, "nl": {2: "2 worpen over"}}


def announcement(page: Page):
    return page.locator("#announce")


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_dice_are_announced_after_each_roll_in_the_page_s_language(
    browser: Browser, live_server_url: str, language: str
):
    page = new_page(browser, DESKTOP)
    start_solo(page, live_server_url)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server_url}])
    page.reload()
    region = announcement(page)
    expect(region).to_have_attribute("aria-live", "polite")
    expect(region).to_have_attribute("aria-atomic", "true")
    # The turn status as a whole is no live region any more: it read every line and button at a change.
    expect(page.locator("#turn-status")).not_to_have_attribute("aria-live", re.compile(".*"))
    node = region.element_handle()
    page.locator("[data-action=roll]").click()
    expect(rolls_field(page)).to_have_value("1")
    wait_htmx_idle(page)
    dice = ", ".join(dice_values(page))
    expect(region).to_have_text(f"{dice}; {ROLLS_LEFT[language][2]}")
    # Updated in place (a screen reader hears a live region's change, not a new one put in).
    assert node.evaluate("e => e.isConnected")
    if language == "nl":
        page.context.close()
        return
    dice = roll(page)
    expect(region).to_have_text(f"{', '.join(dice)}; 1 roll left")
    dice = roll(page)
    last = re.escape(", ".join(dice))
    expect(region).to_have_text(re.compile(rf"^{last}; 0 rolls left\. Choose a box within \d+ s\.$"))
    assert node.evaluate("e => e.isConnected")
    page.context.close()


def test_the_other_players_moves_are_announced_and_the_sheet_has_a_heading(
    browser: Browser, live_server_url: str
):
    page = new_page(browser, DESKTOP)
    start_against_computers(page, live_server_url, "easy")
    expect(page.get_by_role("heading", name="Scoresheet")).to_have_count(1)
    expect(page.locator("#scoresheet")).to_have_attribute("aria-labelledby", "sheet-heading")
    roll(page)
    page.locator("#scoresheet .box-button:not([disabled]):not([data-asks-zero])").first.click()
    expect(page.locator("[data-action=confirm]")).to_be_enabled()
    wait_htmx_idle(page)
    page.locator("[data-action=confirm]").click()
    # Mine first ("You wrote …"), then the computer's rolls and box as they come, then my turn again.
    expect(announcement(page)).to_contain_text(re.compile(r"You wrote \d+ in |Computer \(easy\)"))
    expect(announcement(page)).to_contain_text(
        re.compile(r"Computer \(easy\): [1-6](, [1-6]){4}; [0-2] rolls? left")
    )
    expect(announcement(page)).to_contain_text(re.compile(r"Computer \(easy\) wrote \d+ in "))
    expect(turn_field(page)).to_have_value("3")
    expect(announcement(page)).to_contain_text("Your turn: round 2 of 13.")
    page.context.close()


def test_every_box_has_a_key_listed_in_the_key_help(browser: Browser, live_server_url: str):
    page = new_page(browser, DESKTOP)
    start_solo(page, live_server_url)
    help_dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(help_dialog).to_be_hidden()
    release_focus(page)
    page.keyboard.press("?")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("Full house")
    expect(help_dialog.locator("kbd", has_text=re.compile(r"^l$"))).to_have_count(1)
    expect(help_dialog).to_contain_text("Choosing a box stops the countdown")
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()
    # The help's button opens it too, without a key.
    page.get_by_role("button", name="Keyboard shortcuts").click()
    expect(help_dialog).to_be_visible()
    help_dialog.get_by_role("button", name="Close").click()
    expect(help_dialog).to_be_hidden()
    # A whole turn by keys alone: Space rolls, "l" chooses Chance, Enter confirms.
    roll(page, keyboard=True)
    chance = page.locator('#scoresheet [data-box="CHANCE"]')
    expect(chance).to_have_attribute("aria-keyshortcuts", "l")
    release_focus(page)
    page.keyboard.press("l")
    expect(chance).to_have_attribute("aria-pressed", "true")
    wait_htmx_idle(page)
    confirm(page, 1, keyboard=True)
    expect(page.locator('#scoresheet tr.box-row:has([data-box="CHANCE"]) td').first).to_have_attribute(
        "data-score", re.compile(r"^\d+$")
    )
    page.context.close()


def test_while_the_countdown_runs_the_page_says_choosing_a_box_stops_it(
    browser: Browser, live_server_url: str
):
    page = new_page(browser, DESKTOP)
    start_solo(page, live_server_url)
    for _ in range(3):
        roll(page)
    countdown = page.locator("[data-countdown-ms]")
    expect(countdown).to_contain_text("Choosing a box stops the countdown.")
    page.locator("#scoresheet .box-button:not([disabled]):not([data-asks-zero])").first.click()
    expect(countdown).to_have_count(0)
    page.context.close()
