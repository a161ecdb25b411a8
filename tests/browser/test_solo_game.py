"""A whole solo game played in Chromium, as a person plays it: mouse, keyboard, the auto-commit countdown.

Every wait is for a change in the page (an attribute, a value, a heading), never a fixed sleep; the
timeouts are generous because the suite also runs on small shared machines.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import (
    BOX_NAMES_EN,
    COUNT_SOCKET_MESSAGES,
    GAME_URL,
    WAIT_MS,
    assert_dutch_boxes,
    box_button,
    box_cell,
    choose_box,
    confirm,
    confirm_button,
    dice_values,
    die,
    filled_scores,
    open_menu,
    play_auto_committed_turn,
    play_turn_with_holds,
    roll,
    roll_button,
    rolls_field,
    socket_messages,
    start_solo,
    toggle_hold,
    turn_field,
    wait_for_socket_messages,
    wait_htmx_idle,
)

pytestmark = pytest.mark.django_db(transaction=True)

UPPER = ("ONES", "TWOS", "THREES", "FOURS", "FIVES", "SIXES")
# The turn (1-13) in which the player rolls three times and lets the computer write the roll.
AUTO_COMMIT_TURN = 7
# Turns played with the keyboard only (Space, digits, Enter) except for choosing the box.
KEYBOARD_TURNS = {2, 10}


def test_whole_solo_game_through_the_ui(page: Page, live_server_url: str):
    page.set_default_timeout(WAIT_MS)
    game_id = start_solo(page, live_server_url)
    # Under "Fair dice", one click away: read without opening it.
    commitment = (page.locator("[data-commitment]").text_content() or "").strip()
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)

    for turn in range(1, 14):
        expect(page.locator(".turn-line")).to_contain_text(f"Round {turn} of 13")
        expect(turn_field(page)).to_have_value(str(turn))
        expect(rolls_field(page)).to_have_value("0")
        # A new turn starts with blank, released dice.
        for n in range(1, 6):
            expect(die(page, n)).to_have_attribute("aria-pressed", "false")
            expect(die(page, n)).to_have_attribute("data-value", "")
        expect(confirm_button(page)).to_be_disabled()

        if turn == AUTO_COMMIT_TURN:
            play_auto_committed_turn(page, turn)
            continue

        keyboard = turn in KEYBOARD_TURNS
        if turn % 3 == 0:
            roll(page)  # a single roll is enough to score
        else:
            play_turn_with_holds(page, turn, keyboard=keyboard)
        box, points = choose_box(page)
        confirm(page, turn, keyboard=keyboard)
        if turn < 13:
            expect(box_cell(page, box)).to_have_attribute("data-score", str(points))
            expect(box_button(page, box)).to_be_disabled()

    # The finished page.
    expect(page).to_have_url(re.compile(rf"/games/{game_id}/$"))
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    expect(roll_button(page)).to_have_count(0)

    scores = filled_scores(page)
    assert sorted(scores) == sorted(BOX_NAMES_EN), f"not every box is filled: {scores}"
    upper = sum(scores[box] for box in UPPER)
    upper_bonus = 35 if upper >= 63 else 0
    penta_bonus = int(page.locator("[data-penta-bonus]").get_attribute("data-penta-bonus") or "")
    expected_total = sum(scores.values()) + upper_bonus + penta_bonus
    final_total = int(page.locator("[data-final-total]").get_attribute("data-final-total") or "")
    sheet_total = int(page.locator("#scoresheet [data-total]").get_attribute("data-total") or "")
    assert final_total == expected_total, (scores, upper_bonus, penta_bonus, final_total)
    assert sheet_total == final_total
    expect(page.locator("[data-final-total]")).to_have_text(str(final_total))
    expect(page.locator("[data-upper-bonus]")).to_have_attribute("data-upper-bonus", str(upper_bonus))

    log = page.locator("tr[data-turn]")
    expect(log).to_have_count(13)
    expect(log.filter(has_text="auto-committed")).to_have_count(1)
    expect(page.locator(f'tr[data-turn="{AUTO_COMMIT_TURN}"]')).to_contain_text("auto-committed")

    seed = page.locator("[data-seed]").inner_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", seed)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    expect(page.locator("[data-commitment]")).to_have_text(commitment)

    open_menu(page)  # a game page's header keeps its links in the menu
    page.get_by_role("link", name="My games").click()
    expect(page).to_have_url(re.compile(r"/games/$"))
    row = page.locator(f'tr[data-game="{game_id}"]')
    expect(row).to_be_visible()
    expect(row.locator("[data-total]")).to_have_attribute("data-total", str(final_total))
    expect(row).to_contain_text(str(final_total))
    expect(row).to_contain_text("Finished")


def test_refused_action_shows_message_and_changes_nothing(page: Page, live_server_url: str):
    """An action sent for a board the game has left behind (another tab, a double click) is refused by
    the server with a message, and the game keeps the dice it had.

    (A second tab is no way to get a stale board here: opening the game in it stops the first tab.)
    """
    page.set_default_timeout(WAIT_MS)
    game_id = start_solo(page, live_server_url)
    rolled = roll(page)
    expect(page.locator("#messages [role=alert]")).to_have_count(0)

    # 1. The stale request as htmx would send it (the page's CSRF header, the form's fields as they were
    # before the roll), straight to the real server.
    status, body = page.evaluate(
        """async (url) => {
            const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
            const body = new URLSearchParams({turn: '1', roll: '0'});
            const response = await fetch(url, {method: 'POST', body,
                headers: {'X-CSRFToken': token, 'HX-Request': 'true'}});
            return [response.status, await response.text()];
        }""",
        f"/games/{game_id}/hold/1/",
    )
    assert status == 409, body[:500]
    assert "The game moved on since this page was shown" in body

    # 2. The same through the page: its form still says "no roll yet" when die 2 is tapped.
    page.evaluate("document.querySelector('#game-form input[name=\"roll\"]').value = '0'")
    with page.expect_response(re.compile(rf"/games/{game_id}/hold/2/$")) as answer:
        die(page, 2).click()
    assert answer.value.status == 409
    message = page.locator("#messages [role=alert]")
    expect(message).to_be_visible()
    expect(message).to_contain_text("The game moved on since this page was shown")
    # The refusal brought the real board back: one roll made, nothing held, the same dice.
    expect(rolls_field(page)).to_have_value("1")
    wait_htmx_idle(page)
    for n in range(1, 6):
        expect(die(page, n)).to_have_attribute("aria-pressed", "false")
    assert dice_values(page) == rolled

    # Nothing changed on the server: a fresh look at the game shows the same dice, rolls and holds.
    page.reload()
    expect(rolls_field(page)).to_have_value("1")
    expect(turn_field(page)).to_have_value("1")
    for n in range(1, 6):
        expect(die(page, n)).to_have_attribute("aria-pressed", "false")
    assert dice_values(page) == rolled
    expect(page.locator("#messages [role=alert]")).to_have_count(0)
    # And the game goes on from there: the next tap is accepted.
    toggle_hold(page, 2)


def test_phone_width_layout(page: Page, live_server_url: str):
    page.set_viewport_size({"width": 360, "height": 740})
    page.set_default_timeout(WAIT_MS)
    start_solo(page, live_server_url)
    roll(page)
    for target in [roll_button(page), *(die(page, n) for n in range(1, 6))]:
        expect(target).to_be_visible()
        box = target.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
    assert scroll_width <= 360, f"the page scrolls sideways: {scroll_width}px wide"


def test_dutch_screen(browser, live_server_url: str):
    context = browser.new_context(locale="nl-NL", viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.add_init_script(COUNT_SOCKET_MESSAGES)
        page.goto(live_server_url + "/")
        expect(page.locator("html")).to_have_attribute("lang", "nl")
        page.locator('form[action="/games/solo/"] button[type="submit"]').click()
        expect(page).to_have_url(GAME_URL)
        wait_for_socket_messages(page, 1)
        assert_dutch_boxes(page)

        # After an action, the board is rendered again (by the answer, and by the live socket if any).
        before = socket_messages(page)
        page.locator('[data-action="roll"]').click()
        expect(rolls_field(page)).to_have_value("1")
        wait_for_socket_messages(page, before + 1)
        assert_dutch_boxes(page)
    finally:
        context.close()
