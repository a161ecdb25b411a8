"""A whole solo game played in Chromium, as a person plays it: mouse, keyboard, the auto-commit countdown.

Every wait is for a change in the page (an attribute, a value, a heading), never a fixed sleep; the
timeouts are generous because the suite also runs on small shared machines.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_MS = 20_000  # for one htmx round trip on a slow machine
COUNTDOWN_WAIT_MS = 15_000  # the real 3-second auto-commit countdown, plus the tick's round trip
GAME_URL = re.compile(r"/games/(\d+)/$")

BOX_NAMES_EN = {
    "ONES": "Ones",
    "TWOS": "Twos",
    "THREES": "Threes",
    "FOURS": "Fours",
    "FIVES": "Fives",
    "SIXES": "Sixes",
    "THREE_OF_A_KIND": "Three of a kind",
    "FOUR_OF_A_KIND": "Four of a kind",
    "FULL_HOUSE": "Full house",
    "SMALL_STRAIGHT": "Small straight",
    "LARGE_STRAIGHT": "Large straight",
    "CHANCE": "Chance",
    "PENTA": "Penta",
}
UPPER = ("ONES", "TWOS", "THREES", "FOURS", "FIVES", "SIXES")

# The turn (1-13) in which the player rolls three times and lets the computer write the roll.
AUTO_COMMIT_TURN = 7
# Turns played with the keyboard only (Space, digits, Enter) except for choosing the box.
KEYBOARD_TURNS = {2, 10}


# -- the page, by role and contract --------------------------------------------------------------------


def roll_button(page: Page) -> Locator:
    return page.get_by_role("button", name=re.compile(r"^Roll"))


def confirm_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Confirm turn", exact=True)


def die(page: Page, n: int) -> Locator:
    return page.locator(f'#dice-tray [data-die="{n}"]')


def box_button(page: Page, box: str) -> Locator:
    return page.get_by_role("button", name=BOX_NAMES_EN[box], exact=True)


def box_cell(page: Page, box: str) -> Locator:
    """The player's cell of the box's row (a solo sheet has one column)."""
    return page.locator(f'#scoresheet tr.box-row:has(button[data-box="{box}"]) td').first


def rolls_field(page: Page) -> Locator:
    return page.locator('#game-form input[name="roll"]')


def turn_field(page: Page) -> Locator:
    return page.locator('#game-form input[name="turn"]')


def wait_htmx_idle(page: Page) -> None:
    """No request of htmx in flight. (Not wait_for_function: the page's CSP forbids evaluating strings.)"""
    expect(page.locator(".htmx-request")).to_have_count(0)


def release_focus(page: Page) -> None:
    """Like clicking on the page's background: the shortcuts work only when no control has the focus."""
    page.evaluate("document.activeElement && document.activeElement.blur && document.activeElement.blur()")


def dice_values(page: Page) -> list[str]:
    return [die(page, n).get_attribute("data-value") or "" for n in range(1, 6)]


def start_solo_game(page: Page, base_url: str) -> int:
    page.set_default_timeout(WAIT_MS)
    page.goto(base_url + "/")
    page.get_by_role("button", name="Play solo", exact=True).click()
    expect(page).to_have_url(GAME_URL)
    match = GAME_URL.search(page.url)
    assert match is not None
    expect(roll_button(page)).to_be_enabled()
    return int(match.group(1))


def roll(page: Page, *, keyboard: bool = False) -> list[str]:
    """Roll once (click or Space) and wait for the board that shows it; returns the dice."""
    before = int(rolls_field(page).input_value())
    # A second press of Roll within 350 ms of the first is taken for a double click and dropped: a
    # person looks at the dice first; the test waits as long.
    expect(page.locator("#game[data-roll-cooling]")).to_have_count(0)
    if keyboard:
        release_focus(page)
        page.keyboard.press("Space")
    else:
        roll_button(page).click()
    expect(rolls_field(page)).to_have_value(str(before + 1))
    for n in range(1, 6):
        expect(die(page, n)).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    wait_htmx_idle(page)
    return dice_values(page)


def toggle_hold(page: Page, n: int, *, keyboard: bool = False) -> None:
    pressed = die(page, n).get_attribute("aria-pressed")
    flipped = "false" if pressed == "true" else "true"
    if keyboard:
        release_focus(page)
        page.keyboard.press(str(n))
    else:
        die(page, n).click()
    expect(die(page, n)).to_have_attribute("aria-pressed", flipped)
    wait_htmx_idle(page)


def best_open_box(page: Page) -> tuple[str, int]:
    """The enabled box whose option scores most (the first such box on the sheet), with its points."""
    options = page.evaluate(
        """() => Array.from(document.querySelectorAll('#scoresheet button[data-box]:not([disabled])'))
            .map(b => {
              const cell = b.closest('tr').querySelector('.option-points');
              return [b.dataset.box, cell ? Number(cell.textContent.trim()) : 0];
            })"""
    )
    assert options, "no enabled box although the dice are rolled"
    box, points = max(options, key=lambda item: item[1])  # max keeps the first of equal options
    return box, points


def choose_box(page: Page) -> tuple[str, int]:
    box, points = best_open_box(page)
    button = box_button(page, box)
    expect(button).to_be_enabled()
    button.click()
    expect(box_button(page, box)).to_have_attribute("aria-pressed", "true")
    expect(confirm_button(page)).to_be_enabled()
    wait_htmx_idle(page)
    return box, points


def confirm(page: Page, turn: int, *, keyboard: bool = False) -> None:
    if keyboard:
        release_focus(page)
        page.keyboard.press("Enter")
    else:
        confirm_button(page).click()
    if turn < 13:
        expect(turn_field(page)).to_have_value(str(turn + 1))
        expect(rolls_field(page)).to_have_value("0")
    else:
        expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    wait_htmx_idle(page)


def filled_scores(page: Page) -> dict[str, int]:
    scores = page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('#scoresheet tr.box-row'))
            .filter(row => row.querySelector('td[data-score]'))
            .map(row => [row.querySelector('button[data-box]').dataset.box,
                         Number(row.querySelector('td[data-score]').dataset.score)]))"""
    )
    return {box: int(points) for box, points in scores.items()}


# -- the journey ---------------------------------------------------------------------------------------


def play_turn_with_holds(page: Page, turn: int, *, keyboard: bool) -> None:
    """Roll, hold two dice, roll the others again; holds must stick and held faces must not change."""
    first = roll(page, keyboard=keyboard)
    held = (1, 3) if turn % 2 else (2, 5)
    for n in held:
        toggle_hold(page, n, keyboard=keyboard)
    # Tapping a die twice releases it again.
    free = next(n for n in range(1, 6) if n not in held)
    toggle_hold(page, free, keyboard=keyboard)
    toggle_hold(page, free, keyboard=keyboard)
    second = roll(page, keyboard=keyboard)
    for n in range(1, 6):
        expected = "true" if n in held else "false"
        expect(die(page, n)).to_have_attribute("aria-pressed", expected)
    for n in held:
        assert second[n - 1] == first[n - 1], f"held die {n} changed on the reroll: {first} -> {second}"


def play_auto_committed_turn(page: Page, turn: int) -> None:
    filled_before = filled_scores(page)
    for _ in range(3):
        roll(page)
    expect(roll_button(page)).to_be_disabled()
    countdown = page.locator("[data-countdown-ms]")
    expect(countdown).to_be_visible()
    expect(countdown).to_contain_text(re.compile(r"\d+\s*s"))
    # Choose nothing: the server writes the roll when the countdown has run out, and the round advances.
    expect(page.locator(".turn-line")).to_contain_text(f"Round {turn + 1} of 13", timeout=COUNTDOWN_WAIT_MS)
    expect(turn_field(page)).to_have_value(str(turn + 1), timeout=COUNTDOWN_WAIT_MS)
    expect(page.locator("[data-countdown-ms]")).to_have_count(0)
    wait_htmx_idle(page)
    filled_after = filled_scores(page)
    assert set(filled_after) - set(filled_before), "the auto-commit filled no box"
    assert len(filled_after) == len(filled_before) + 1
    for box, points in filled_before.items():
        assert filled_after[box] == points


def test_whole_solo_game_through_the_ui(page: Page, live_server_url: str):
    game_id = start_solo_game(page, live_server_url)
    commitment = page.locator("[data-commitment]").inner_text().strip()
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
    game_id = start_solo_game(page, live_server_url)
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
    start_solo_game(page, live_server_url)
    roll(page)
    for target in [roll_button(page), *(die(page, n) for n in range(1, 6))]:
        expect(target).to_be_visible()
        box = target.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
    assert scroll_width <= 360, f"the page scrolls sideways: {scroll_width}px wide"


DUTCH_BOXES = {
    "ONES": "Enen",
    "THREE_OF_A_KIND": "Driekind",
    "FOUR_OF_A_KIND": "Carré",
    "SMALL_STRAIGHT": "Kleine straat",
}
# Marks the page with data-socket-message-<n> once its live socket has delivered n messages.
COUNT_SOCKET_MESSAGES = """
    window.__pentaSocketMessages = 0;
    document.addEventListener('htmx:wsAfterMessage', () => {
        window.__pentaSocketMessages += 1;
        document.documentElement.setAttribute('data-socket-message-' + window.__pentaSocketMessages, '');
    });
"""


def socket_messages(page: Page) -> int:
    return page.evaluate("window.__pentaSocketMessages")


def wait_for_socket_messages(page: Page, at_least: int) -> None:
    """If the game page has a live socket, wait until it has delivered `at_least` boards (each one
    re-renders the board, so the labels must be checked after it, not before)."""
    if page.locator("#game[ws-connect]").count():
        expect(page.locator(f"html[data-socket-message-{at_least}]")).to_be_attached()
    wait_htmx_idle(page)


def assert_dutch_boxes(page: Page) -> None:
    for box, dutch in DUTCH_BOXES.items():
        button = page.get_by_role("button", name=dutch, exact=True)
        expect(button).to_have_count(1)
        expect(button).to_have_attribute("data-box", box)
    for box in DUTCH_BOXES:
        expect(page.get_by_role("button", name=BOX_NAMES_EN[box], exact=True)).to_have_count(0)


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
