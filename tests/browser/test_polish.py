"""Issue 40's minor items, as Chromium draws and runs them: Confirm the highlighted button once a box is
chosen and readable in the dark; a win celebrated (never under reduced motion); the friends form's turn
timer only for a live pace and its rated box beside its words; the review's score table within a phone;
the "Install Penta" button where the browser offers it; a rating's range a tap away; and a console with
no errors on a friends game's updates and on the puzzle pages."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from dicegame.models import Player
from dicegame.rules.scoring import Box
from ratings.models import PlayerRating
from tests.browser.pages import (
    DESKTOP,
    PHONE,
    contrast,
    correspondence_game,
    log_in,
    logged_in_page,
    new_page,
    open_with_notices,
    rect,
    roll,
    start_solo,
    wait_htmx_idle,
)
from tests.support.factories import UserFactory, befriend
from tests.support.games import make_game
from tests.support.puzzles import make_puzzle

pytestmark = pytest.mark.django_db(transaction=True)


# Where a label's own words are drawn (its first text, without the control inside it).
WORDS_RECT = """l => {
  const text = [...l.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
  const range = document.createRange();
  range.selectNodeContents(text);
  const r = range.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}"""


def console_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_confirm_is_the_highlighted_button_once_a_box_is_chosen(browser: Browser, live_server_url: str, dark):
    page = new_page(browser, PHONE, dark=dark)
    start_solo(page, live_server_url)
    roll(page)
    expect(page.locator("[data-action=roll]")).to_have_class("primary roll-button")
    page.locator("#scoresheet .box-button:not([disabled]):not([data-asks-zero])").first.click()
    confirm = page.locator("[data-action=confirm]")
    expect(confirm).to_be_enabled()
    expect(confirm).to_have_class("primary confirm-button")
    expect(page.locator("[data-action=roll]")).to_have_class("roll-button")
    wait_htmx_idle(page)
    found = {
        "Confirm's words": min(contrast(page, "[data-action=confirm]")),
        "Roll's words": min(contrast(page, "[data-action=roll]")),
        # The buttons themselves against the felt (WCAG 1.4.11: 3:1).
        "Confirm on the felt": min(
            contrast(page, "[data-action=confirm]", fg="backgroundColor", on_parent=True)
        ),
        "Roll on the felt": min(contrast(page, "[data-action=roll]", fg="backgroundColor", on_parent=True)),
    }
    print({k: round(v, 2) for k, v in found.items()})
    for what, ratio in found.items():
        need = 4.5 if what.endswith("words") else 3.0
        assert ratio >= need, f"{what}: {ratio:.2f} < {need}"
    page.context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_win_is_celebrated_unless_the_system_asks_for_no_motion(
    browser: Browser, live_server_url: str, motion
):
    user = UserFactory(username=f"winner-{motion}")
    game = make_game([user, "easy"])
    Player.objects.filter(game=game, user=user).update(rank=1)
    Player.objects.filter(game=game, user__isnull=True).update(rank=2)
    page = logged_in_page(browser, live_server_url, user.username)
    page.emulate_media(reduced_motion=motion)
    page.goto(f"{live_server_url}/games/{game.pk}/")
    card = page.locator("#game-result[data-won]")
    expect(card).to_be_visible()
    expect(card.locator(".result-place")).to_have_text("You won!")
    burst = "e => getComputedStyle(e, '::before').animationName"
    if motion == "reduce":
        page.wait_for_timeout(500)  # moments.js has run
        expect(card).not_to_have_class("celebrate")
        assert card.evaluate(burst) == "none"
    else:
        expect(card).to_have_class("game-result celebrate")
        assert card.evaluate(burst) == "confetti"
    page.context.close()


def test_the_friends_form_shows_the_turn_timer_for_a_live_pace_only(browser: Browser, live_server_url: str):
    user = UserFactory(username="form-reader")
    page = logged_in_page(browser, live_server_url, user.username, viewport=PHONE)
    page.goto(live_server_url + "/")
    form = page.locator("form.friends-form")
    timer = form.get_by_label("Turn timer (live)")
    expect(timer).to_be_visible()
    form.get_by_label("Pace").select_option(label="Correspondence: a day a move")
    expect(timer).to_be_hidden()
    form.get_by_label("Pace").select_option(label="Live: everyone at once")
    expect(timer).to_be_visible()
    # The rated box beside its words, not above them: on their line, before them.
    box = rect(form.locator("[data-rated-choice]"))
    words = form.locator(".rated-choice").evaluate(WORDS_RECT)
    middle = box["y"] + box["height"] / 2
    assert words["y"] <= middle <= words["y"] + words["height"] and box["x"] < words["x"], (box, words)
    page.context.close()


def test_the_review_s_score_table_is_within_a_phone(browser: Browser, live_server_url: str):
    user = UserFactory(username="four-seat-reviewer")
    game = make_game([user, "easy", "medium", "hard"])
    page = logged_in_page(browser, live_server_url, user.username, viewport=PHONE)
    page.goto(f"{live_server_url}/games/{game.pk}/review/")
    sheet = page.locator(".review-sheet")
    assert sheet.evaluate("s => s.scrollWidth <= s.clientWidth + 1"), "the score table scrolls inside itself"
    for cell in page.locator(".review-sheet tfoot [data-total]").all():
        box = rect(cell)
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    page.context.close()


OFFER_TO_INSTALL = """() => {
  const offer = new Event("beforeinstallprompt", { cancelable: true });
  offer.prompt = () => { window.__installPrompted = true; return Promise.resolve(); };
  offer.userChoice = Promise.resolve({ outcome: "accepted" });
  window.dispatchEvent(offer);
}"""


def test_install_penta_where_the_browser_offers_it(browser: Browser, live_server_url: str):
    page = new_page(browser, DESKTOP)
    page.goto(live_server_url + "/")
    install = page.get_by_role("button", name="Install Penta")
    expect(install).to_have_count(0)  # hidden: no offer yet
    page.wait_for_load_state("load")
    page.evaluate(OFFER_TO_INSTALL)
    expect(install).to_be_visible()
    install.click()
    assert page.evaluate("window.__installPrompted") is True
    expect(install).to_be_hidden()
    page.context.close()


def test_a_rating_s_range_is_a_tap_away(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana-range"), UserFactory(username="femke-range")
    befriend(hana, femke)
    PlayerRating.objects.create(user=hana, rating=1553, rd=332, games=1)
    page = logged_in_page(browser, live_server_url, femke.username, viewport=PHONE)
    page.goto(f"{live_server_url}/accounts/friends/")
    badge = page.locator('.rating[data-rating="1553"]')
    expect(badge.locator("summary")).to_have_text("1553, provisional")
    expect(badge).to_have_attribute("title", "likely between 889 and 2217")  # on hover
    range_ = badge.locator("[data-rating-range]")
    expect(range_).to_be_hidden()
    badge.locator("summary").click()  # on tap
    expect(range_).to_be_visible()
    expect(range_).to_have_text("likely between 889 and 2217")
    page.context.close()


def test_no_console_errors_on_a_friends_game_s_updates_nor_on_puzzles(
    browser: Browser, live_server_url: str, strategy
):
    hana, femke = UserFactory(username="hana-quiet"), UserFactory(username="femke-quiet")
    befriend(hana, femke)
    game = correspondence_game(hana, femke)
    page = logged_in_page(browser, live_server_url, hana.username, viewport=PHONE)
    errors = console_errors(page)
    open_with_notices(page, f"{live_server_url}/games/{game.pk}/", hana)
    # Her move pings her open pages' notice sockets: the page asks for its count (and no list).
    roll(page)
    page.locator("#scoresheet .box-button:not([disabled]):not([data-asks-zero])").first.click()
    expect(page.locator("[data-action=confirm]")).to_be_enabled()
    wait_htmx_idle(page)
    with page.expect_response(lambda r: "/games/waiting/" in r.url):
        page.locator("[data-action=confirm]").click()
    page.wait_for_timeout(500)
    puzzle = make_puzzle({Box.ONES: 3}, (2, 3, 4, 5, 1), 0, strategy)
    page.goto(f"{live_server_url}/puzzles/{puzzle.pk}/")
    page.locator("#puzzle-form button[name=box]:not([disabled])").first.click()
    expect(page.locator("#puzzle-answer")).to_be_visible()
    page.goto(f"{live_server_url}/puzzles/")
    page.wait_for_timeout(300)
    assert errors == [], errors
    page.context.close()


def test_the_dice_in_a_finished_game_s_turns_read_as_dice(browser: Browser, live_server_url: str):
    page = new_page(browser, DESKTOP)
    user = UserFactory(username="log-reader")
    log_in(page, live_server_url, user.username)
    game = make_game([user, "easy"])
    page.goto(f"{live_server_url}/games/{game.pk}/")
    first = page.locator('tr[data-turn="1"] .roll').first
    expect(first.locator(".log-die")).to_have_count(5)
    assert first.locator(".log-die").first.evaluate("d => getComputedStyle(d).borderStyle") == "solid"
    assert "*" not in page.locator(".turn-log").inner_text()
    page.context.close()
