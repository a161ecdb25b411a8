"""A game screen made for the phone (issue 40, major 1), measured in Chromium at 360x740, 390x844 and
412x915, in English and Dutch, with 1 and 4 seats: on your turn after a roll, every box with its points,
the five dice, Roll and Confirm are inside the viewport without scrolling, and nothing covers them; while
you wait, the whole sheet is in view. Game pages have a compact header: the logo, the "your turn" badge
and one menu button whose menu holds every other link, by keyboard too and without JavaScript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import (
    PHONES,
    log_in,
    new_page,
    open_menu,
    rect,
    rolls_field,
    start_against_computers,
    start_solo,
    uncovered,
    wait_htmx_idle,
)
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def inside(box: dict, viewport: dict) -> bool:
    return (
        box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= viewport["height"] + 0.5
        and box["x"] + box["width"] <= viewport["width"] + 0.5
    )


def out_of_view(page: Page, selectors: dict[str, str]) -> list[str]:
    """What of `selectors` (name -> CSS selector, every match) is not drawn wholly inside the viewport, or
    is covered there by something else (the pinned dock)."""
    viewport = page.viewport_size
    missing = []
    for name, selector in selectors.items():
        found = page.locator(selector)
        assert found.count(), f"nothing matches {name}: {selector}"
        for i in range(found.count()):
            item = found.nth(i)
            box = rect(item)
            if not inside(box, viewport) or not uncovered(item):
                missing.append(f"{name} #{i + 1} at {box}")
    return missing


# The viewer's own column of the sheet (seat 0 in these games): each box's points, as the sheet shows them.
MY_POINTS = "#scoresheet tr.box-row td:nth-child(2)"
ON_MY_TURN = {
    "box": "#scoresheet .box-button",
    "its points": MY_POINTS,
    "die": "#dice-tray .die",
    "Roll": "[data-action=roll]",
    "Confirm": "[data-action=confirm]",
}
THE_WHOLE_SHEET = {"sheet": "#scoresheet", "box": "#scoresheet .box-button", "total": "#scoresheet tfoot td"}


def roll_once(page: Page, rolls: int) -> None:
    page.locator("[data-action=roll]").click()
    expect(rolls_field(page)).to_have_value(str(rolls))
    expect(page.locator('#dice-tray [data-die="5"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    wait_htmx_idle(page)
    expect(page.locator("#game[data-roll-cooling]")).to_have_count(0)


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("seats", [1, 4])
@pytest.mark.parametrize("size", sorted(PHONES))
def test_on_your_turn_every_box_the_dice_roll_and_confirm_are_in_view(
    browser: Browser, live_server_url: str, size: str, seats: int, language: str
):
    page = new_page(browser, PHONES[size])
    if seats == 1:
        start_solo(page, live_server_url)
    else:
        start_against_computers(page, live_server_url, "easy", "easy", "easy")
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server_url}])
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", language)
    for rolls in (1, 2, 3):
        roll_once(page, rolls)
        assert page.evaluate("window.scrollY") == 0, "the page scrolled"
        missing = out_of_view(page, ON_MY_TURN)
        assert not missing, f"{size}, {seats} seats, {language}, after roll {rolls}: out of view: {missing}"
    # After the last roll the countdown runs, and says that choosing a box stops it: in view too.
    countdown = page.locator("[data-countdown-ms]")
    expect(countdown).to_be_visible()
    assert inside(rect(countdown), PHONES[size])
    if seats == 4:
        # While the computers play, the whole sheet is in view.
        page.locator("#scoresheet .box-button:not([disabled]):not([data-asks-zero])").first.click()
        expect(page.locator("[data-action=confirm]")).to_be_enabled()
        wait_htmx_idle(page)
        page.locator("[data-action=confirm]").click()
        expect(page.locator("[data-bot-playing]")).to_be_visible()
        assert page.evaluate("window.scrollY") == 0
        missing = out_of_view(page, THE_WHOLE_SHEET)
        assert not missing, f"{size}, {language}, waiting: out of view: {missing}"
    page.context.close()


@pytest.mark.parametrize("size", sorted(PHONES))
def test_game_pages_have_a_compact_header_whose_menu_holds_every_link(
    browser: Browser, live_server_url: str, size: str
):
    user = UserFactory(username=f"menu-{size}")
    page = new_page(browser, PHONES[size])
    log_in(page, live_server_url, user.username)
    start_solo(page, live_server_url)
    header = page.locator("header.site-header")
    # One line: the logo, the "your turn" badge, the menu button.
    assert rect(header)["height"] <= 60, rect(header)
    expect(header.locator(".brand")).to_be_visible()
    expect(header.locator("#waiting-count")).to_be_visible()
    menu = header.get_by_text("Menu", exact=True)
    expect(menu).to_be_visible()
    links = header.locator("nav a, nav button")
    expect(links.first).to_be_hidden()
    # By keyboard: the menu button takes the focus and Enter opens it.
    menu.focus()
    page.keyboard.press("Enter")
    nav = header.get_by_role("navigation", name="Main")
    for name in ("My games", "Statistics", "Puzzles", "Tournaments", "Game settings", "Friends"):
        link = nav.get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        assert inside(rect(link), PHONES[size]), name
    expect(nav.get_by_role("button", name="Log out")).to_be_visible()
    expect(nav.get_by_label("Language")).to_be_visible()
    # Escape closes it and gives the focus back to the menu button.
    page.keyboard.press("Escape")
    expect(links.first).to_be_hidden()
    expect(menu).to_be_focused()
    # The menu is a link away without JavaScript too (a <details>), and its links work.
    open_menu(page)
    nav.get_by_role("link", name="My games", exact=True).click()
    expect(page).to_have_url(f"{live_server_url}/games/")
    page.context.close()


def test_the_menu_opens_without_javascript(browser: Browser, live_server_url: str):
    context = browser.new_context(viewport=PHONES["360x740"], java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server_url + "/")
    page.get_by_role("button", name="Play solo", exact=True).click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    page.get_by_text("Menu", exact=True).click()
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Puzzles")).to_be_visible()
    context.close()
