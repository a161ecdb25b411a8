"""The look, measured in Chromium: readable disabled controls and dice, no sideways scrolling at 360 px,
the dice and the Roll button within reach on a phone while the sheet scrolls, a roomy sheet on a desktop.

Contrast is computed from what the browser draws: the colours and the opacity of the element and of every
ancestor (an opacity group blends with what lies beneath it), against the background the element stands
on (every colour stop of a gradient is tried; the worst counts). axe-core skips disabled controls in its
colour-contrast rule, hence these tests."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.pages import (
    DESKTOP,
    NEXT_FRAMES,
    PHONE,
    PLAY_SCREENS,
    TRACK_TUMBLES,
    contrast,
    correspondence_game,
    log_in,
    logged_in_page,
    new_page,
    notice_sockets,
    on_screen,
    open_menu,
    page_widths,
    rect,
    roll,
    start_against_computers,
    start_solo,
    wait_for_notice_socket,
    wait_for_tumbles,
    waiting_count,
    waiting_list,
)
from tests.support.factories import UserFactory, befriend
from tests.support.games import make_game

pytestmark = pytest.mark.django_db(transaction=True)


# -- disabled is not faded -----------------------------------------------------------------------------


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_disabled_dice_held_marks_and_buttons_stay_readable(
    browser: Browser, live_server_url: str, dark: bool
):
    page = new_page(browser, DESKTOP, dark=dark)
    start_solo(page, live_server_url)
    # Before the first roll: Confirm and every box are disabled, and must still read.
    expect(page.locator("[data-action=confirm]")).to_be_disabled()
    found = {"disabled Confirm": contrast(page, "[data-action=confirm]")}
    found["disabled box names"] = contrast(page, "button.box-button:disabled .box-full")
    roll(page)
    page.locator('[data-die="2"]').click()
    expect(page.locator('[data-die="2"]')).to_have_attribute("aria-pressed", "true")
    found["HELD on a die"] = contrast(page, '[data-die="2"] .held-label')
    roll(page)
    roll(page)
    # The third roll: the dice can no longer be held, yet the player must read them to choose a box.
    page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first.click()
    expect(page.locator('button.box-button[aria-pressed="true"]')).to_have_count(1)
    expect(page.locator("[data-action=roll]")).to_be_disabled()
    expect(page.locator('[data-die="2"]')).to_be_disabled()
    # Nothing is left to roll: no die is shown held any more.
    expect(page.locator('[data-die="2"]')).to_have_attribute("aria-pressed", "false")
    expect(page.locator('[data-die="2"] .held-label')).to_have_text("")
    found["disabled Roll"] = contrast(page, "[data-action=roll]")
    found["pips of disabled dice"] = contrast(
        page, "#dice-tray .die:disabled .pip.on", fg="backgroundColor", on_parent=True
    )
    found["faces of disabled dice on the felt"] = contrast(
        page, "#dice-tray .die:disabled .face", fg="backgroundColor", on_parent=True
    )
    print({k: round(min(v), 2) for k, v in found.items()})
    for what, ratios in found.items():
        need = 3.0 if what.startswith(("pips", "faces")) else 4.5
        assert min(ratios) >= need, f"{what}: contrast {min(ratios):.2f} < {need}"
    # Disabled means not clickable: a pointer that says so, not a faded face.
    assert page.evaluate("getComputedStyle(document.querySelector('[data-die=\"2\"]')).opacity") == "1"
    assert page.evaluate("getComputedStyle(document.querySelector('[data-die=\"2\"]')).cursor") != "pointer"
    page.context.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", sorted(PLAY_SCREENS))
def test_the_focus_ring_shows_on_the_felt_and_on_the_sheet(
    browser: Browser, live_server_url: str, dark: bool, size: str
):
    """A keyboard's focus ring (WCAG 1.4.11): at least 3:1 against what it is drawn on, the felt of the
    dice tray and the dock, and the sheet's panel."""
    page = new_page(browser, PLAY_SCREENS[size], dark=dark)
    start_solo(page, live_server_url)
    roll(page)
    found = {}
    for name, selector in {
        "a die": '[data-die="2"]',
        "Roll": "[data-action=roll]",
        "a box": "#scoresheet .box-button:not([disabled])",
    }.items():
        control = page.locator(selector).first
        control.focus()
        page.keyboard.press("Shift")  # a key pressed: the focus is the keyboard's, its ring shows
        assert control.evaluate("e => e.matches(':focus-visible')"), name
        assert control.evaluate("e => getComputedStyle(e).outlineStyle") != "none", name
        found[name] = min(contrast(page, selector, fg="outlineColor", on_parent=True)[:1])
    print({k: round(v, 2) for k, v in found.items()})
    for name, ratio in found.items():
        assert ratio >= 3.0, f"the focus ring on {name}: contrast {ratio:.2f} < 3"
    page.context.close()


def test_dice_of_an_opponent_and_a_spectator_stay_readable(browser: Browser, live_server_url: str):
    """Another player's turn: the dice are disabled for everyone else, and as readable as one's own."""
    hana, femke = UserFactory(username="hana-look"), UserFactory(username="femke-look")
    befriend(hana, femke)
    host = new_page(browser, DESKTOP)
    log_in(host, live_server_url, hana.username)
    host.goto(live_server_url + "/")
    host.locator(".friends-form").get_by_role("button", name="Create a game").click()
    expect(host.locator("#lobby")).to_be_visible()
    join = host.locator("[data-join-link]").get_attribute("href")
    guest = new_page(browser, PHONE, dark=True)
    log_in(guest, live_server_url, femke.username)
    guest.goto(live_server_url + join)
    guest.get_by_role("button", name="Take a seat").click()
    expect(host.locator("#lobby li[data-seat]")).to_have_count(2)
    host.locator("#lobby").get_by_role("button", name="Start the game").click()
    expect(host.locator("#dice-tray")).to_be_visible()
    expect(guest.locator("#dice-tray")).to_be_visible()
    mover, watcher = (host, guest) if host.locator("[data-action=roll]").is_enabled() else (guest, host)
    roll(mover)
    mover.locator('[data-die="4"]').click()
    expect(watcher.locator('[data-die="4"]')).to_have_attribute("aria-pressed", "true")
    expect(watcher.locator('[data-die="4"]')).to_be_disabled()
    pips = contrast(watcher, "#dice-tray .pip.on", fg="backgroundColor", on_parent=True)
    held = contrast(watcher, '[data-die="4"] .held-label')
    print({"pips": round(min(pips), 2), "HELD": round(min(held), 2)})
    assert min(pips) >= 3.0
    assert min(held) >= 4.5
    host.context.close()
    guest.context.close()


# -- 360 px wide ---------------------------------------------------------------------------------------


def test_no_page_scrolls_sideways_at_360(browser: Browser, live_server_url: str):
    user = UserFactory(username="narrow-nina")
    friend = UserFactory(username="a-friend-with-a-rather-long-name")
    befriend(user, friend)
    four = make_game([user, "easy", "medium", "hard"])
    make_game([user, "hard"])
    page = new_page(browser, PHONE)
    base = live_server_url
    wide: dict[str, tuple[int, int]] = {}

    def check(name: str) -> None:
        page.wait_for_load_state()
        sizes = page_widths(page)
        if sizes[0] > sizes[1]:
            wide[name] = sizes

    for path in ("/", "/accounts/login/", "/accounts/signup/", "/leaderboard/"):
        page.goto(base + path)
        check(path)
    start_solo(page, base)
    roll(page)
    check("solo game mid-turn")
    log_in(page, base, user.username)
    start_against_computers(page, base, "easy", "easy", "easy")
    roll(page)
    check("game against 3 computers")
    for path in (
        f"/games/{four.pk}/review/",
        f"/games/{four.pk}/",
        "/players/",
        "/leaderboard/",
        "/games/",
        f"/players/{user.username}/",
        "/accounts/friends/",
    ):
        page.goto(base + path)
        check(path)
    assert not wide, f"pages wider than the 360-px screen (scrollWidth, innerWidth): {wide}"

    # The review's final scores are on screen: the last seat's total within the 360 px.
    page.goto(f"{base}/games/{four.pk}/review/")
    last_total = page.locator(".review-sheet tfoot [data-total]").last
    last_total.scroll_into_view_if_needed()
    box = last_total.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    page.context.close()


def test_a_four_player_sheet_is_readable_on_a_phone_and_roomy_on_a_desktop(
    browser: Browser, live_server_url: str
):
    user = UserFactory(username="four-seats")
    page = new_page(browser, PHONE)
    log_in(page, live_server_url, user.username)
    start_against_computers(page, live_server_url, "easy", "easy", "easy")
    sheet = page.locator("#scoresheet")
    # At 360 px: short box names, the whole sheet within the screen (no scrolling inside it either).
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-short')).to_be_visible()
    assert sheet.evaluate("s => s.scrollWidth <= s.clientWidth + 1"), "the 4-seat sheet scrolls at 360 px"
    # ... while the full name stays the button's name for screen readers.
    expect(page.get_by_role("button", name="Three of a kind (3K)", exact=True)).to_have_count(1)

    page.set_viewport_size(DESKTOP)
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-full')).to_be_visible()
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-short')).to_be_hidden()
    width = sheet.bounding_box()["width"]
    row = page.locator('#scoresheet [data-box="SMALL_STRAIGHT"]').bounding_box()
    print({"desktop sheet width": width, "box button height": row["height"]})
    assert width >= 600, f"a 4-player sheet squeezed into {width} px on a {DESKTOP['width']}-px screen"
    assert row["height"] <= 50, "box names wrap onto several lines on a desktop"
    page.context.close()


# -- phone first ---------------------------------------------------------------------------------------


def test_on_a_phone_a_turn_needs_no_scrolling_and_every_target_takes_a_thumb(
    browser: Browser, live_server_url: str
):
    """The whole turn in one screen (tests/browser/test_phone_screen.py measures every size and
    language); here: touch targets of at least 44 px, and a box's row takes the tap."""
    user = UserFactory(username="thumb")
    page = new_page(browser, PHONE)
    log_in(page, live_server_url, user.username)
    start_against_computers(page, live_server_url, "easy", "easy", "easy")
    roll(page)
    assert page.evaluate("window.scrollY") == 0
    for name in ("CHANCE", "PENTA"):
        button = page.locator(f'#scoresheet [data-box="{name}"]')
        assert on_screen(rect(button), PHONE), f"{name} is off screen"
        # The row is not under the pinned dock: the point at its centre is the button itself.
        assert button.evaluate(UNCOVERED), f"the {name} row is covered by the pinned dice and actions"
    for selector in (
        "#dice-tray .die",
        "[data-action=roll]",
        "[data-action=confirm]",
        "#scoresheet .box-button",
    ):
        for handle in page.locator(selector).element_handles():
            box = handle.bounding_box()
            assert box["height"] >= 44 and box["width"] >= 44, f"{selector}: {box}"
    page.locator('#scoresheet [data-box="CHANCE"]').click()
    expect(page.locator('#scoresheet [data-box="CHANCE"]')).to_have_attribute("aria-pressed", "true")
    page.context.close()


# -- a live notice beside the page, not over it -------------------------------------------------------

# True when the point at the element's centre is the element (or inside it): nothing covers it there.
UNCOVERED = (
    "e => { const r = e.getBoundingClientRect();"
    " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
    " return e.contains(hit); }"
)


@pytest.mark.parametrize("size", sorted(PLAY_SCREENS))
def test_a_live_notice_covers_neither_the_menu_nor_the_dice(
    browser: Browser, live_server_url: str, size: str
):
    screen = PLAY_SCREENS[size]
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    page = logged_in_page(browser, live_server_url, "hana", viewport=screen)
    start_solo(page, live_server_url)
    known = notice_sockets(hana)
    page.reload()
    wait_for_notice_socket(page, hana, known)
    # A correspondence game where hana moves first: the clock tells her open page, as a notice.
    game = correspondence_game(hana, femke)
    notice = page.locator("#notifications .notice").filter(has_text="Your turn against femke")
    expect(notice).to_be_visible()
    # A game page's compact header: the badge and the menu button, then every link of the open menu.
    header = page.locator("#waiting-count, [data-header-menu] summary")
    assert header.count() == 2
    for item in (*header.all(), page.locator("#dice-tray .die").first, page.locator("[data-action=roll]")):
        assert item.evaluate(UNCOVERED), f"the notice covers {item.evaluate('e => e.outerHTML')[:120]}"
    open_menu(page)
    menu = page.locator(".site-header nav > a")
    assert menu.count() >= 6
    for item in menu.all():
        assert item.evaluate(UNCOVERED), f"the notice covers {item.evaluate('e => e.outerHTML')[:120]}"
    page.keyboard.press("Escape")
    # The menu takes a tap while the notice is there: the count of the games waiting leads to them.
    waiting_count(page).click()
    expect(page).to_have_url(f"{live_server_url}/#inbox")
    expect(waiting_list(page).locator(f'li[data-game="{game.pk}"]')).to_have_count(1)
    page.context.close()


# -- dice that feel like dice, and a skip link ---------------------------------------------------------


def test_rolled_dice_tumble_once_per_roll_and_never_with_reduced_motion(
    browser: Browser, live_server_url: str
):
    """The dice just rolled tumble, on every roll, also when the update morphs them in place; a hold
    replays nothing; a held die does not tumble on the next roll; no motion when the system asks."""
    page = new_page(browser, DESKTOP)
    start_solo(page, live_server_url)
    page.evaluate(TRACK_TUMBLES)
    roll(page)
    wait_for_tumbles(page, 5)
    assert sorted(page.evaluate("window.tumbles")) == ["1", "2", "3", "4", "5"]
    die = page.locator('[data-die="1"]')
    expect(die).to_have_class(re.compile(r"\broll-1\b"))

    page.evaluate("window.tumbles = []")
    die.click()  # held: nothing tumbles for a hold, and it will not be rolled again
    expect(die).to_have_attribute("aria-pressed", "true")
    page.evaluate(NEXT_FRAMES)
    assert page.evaluate("window.tumbles") == [], "a hold replayed the roll's tumble"

    roll(page)
    wait_for_tumbles(page, 4)
    page.evaluate(NEXT_FRAMES)
    assert sorted(page.evaluate("window.tumbles")) == ["2", "3", "4", "5"]
    expect(page.locator('[data-die="2"]')).to_have_class(re.compile(r"\broll-2\b"))
    expect(die).not_to_have_class(re.compile(r"\broll-\d"))
    # Nine pips a face, the value in its name and data attribute.
    expect(die.locator(".pip")).to_have_count(9)
    value = die.get_attribute("data-value")
    expect(die.locator(".pip.on")).to_have_count(int(value))
    expect(die).to_have_attribute("aria-label", f"Die 1: {value}, held")

    still = new_page(browser, DESKTOP)
    still.emulate_media(reduced_motion="reduce")
    start_solo(still, live_server_url)
    still.evaluate(TRACK_TUMBLES)
    roll(still)
    still.evaluate(NEXT_FRAMES)
    assert still.evaluate("window.tumbles") == []
    assert still.locator('[data-die="1"] .face').evaluate("f => getComputedStyle(f).animationName") == "none"
    page.context.close()
    still.context.close()


def test_skip_link_comes_first_and_leads_to_the_dice(browser: Browser, live_server_url: str):
    page = new_page(browser, PHONE)
    start_solo(page, live_server_url)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    expect(skip).to_have_attribute("href", "#dock")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#dock$"))
    page.goto(live_server_url + "/accounts/login/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_have_attribute("href", "#main")
    page.context.close()
