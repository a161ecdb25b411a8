"""Solving puzzles in Chromium: marking the dice of the best hold, or clicking the best box, and reading
the answer with its expected totals and the rating change; once answered, the position marks the best
choice and takes no other."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from dicegame.rules.scoring import Box
from puzzles.models import PuzzleRating
from tests.browser.pages import (
    BLOCKING,
    DESKTOP,
    PHONE,
    SCREENS,
    assert_fits_the_phone,
    log_in,
    new_page,
    scan,
)
from tests.support.factories import UserFactory
from tests.support.puzzles import ALL_BUT, make_puzzle

pytestmark = pytest.mark.django_db(transaction=True)


def test_solve_a_puzzle_by_keeping_the_best_dice(page: Page, live_server_url, strategy):
    user = UserFactory()
    puzzle = make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)  # keep the three 6s
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    log_in(page, live_server_url, user.username)
    page.goto(f"{live_server_url}/puzzles/")
    page.get_by_role("button", name="Next puzzle").click()
    expect(page).to_have_url(re.compile(rf"/puzzles/{puzzle.pk}/$"))
    expect(page.locator(".turn-line")).to_contain_text("2 rolls left")

    # First an illegal choice: all five kept. The server refuses it; the message shows, nothing moves.
    for n in range(1, 6):
        page.locator(f'label[data-die="{n}"]').click()
    page.get_by_role("button", name="Keep the marked dice, roll the others").click()
    expect(page.locator("#puzzle-answer [data-error]")).to_have_text(
        "Keeping all five means writing them now: choose a box."
    )
    assert not PuzzleRating.objects.filter(user=user).exists()

    # The dice are sorted: 1 2 6 6 6. Unmark the 1 and the 2, keep the 6s, roll.
    page.locator('label[data-die="1"]').click()
    page.locator('label[data-die="2"]').click()
    expect(page.locator("#keep-3")).to_be_checked()
    expect(page.locator("#keep-1")).not_to_be_checked()
    page.get_by_role("button", name="Keep the marked dice, roll the others").click()

    answer = page.locator("#puzzle-answer")
    expect(answer).to_have_attribute("data-result", "right")
    expect(answer.locator("[data-verdict]")).to_have_text("Right: that is the best move.")
    expect(answer.locator("[data-reason]")).to_contain_text("Keep the three 6s")
    expect(answer.locator("[data-expected]")).to_have_count(3)
    best = puzzle.best.value
    expect(answer.locator("tr.best [data-expected]")).to_have_text(f"{best:.1f}")
    rating = PuzzleRating.objects.get(user=user)
    expect(answer.locator(".puzzle-rating-change")).to_have_text(
        re.compile(rf"Your puzzle rating: 1500 → {round(rating.rating)} \(\+\d+\)")
    )
    assert rating.rating > 1500 and rating.attempts == 1
    # The one refused request (400) is the browser's own log line; nothing else went wrong.
    assert [e for e in errors if "status of 400" not in e] == []


def test_solve_a_puzzle_by_clicking_the_best_box_in_dutch(page: Page, live_server_url, strategy):
    user = UserFactory()
    puzzle = make_puzzle(ALL_BUT(Box.SMALL_STRAIGHT, Box.CHANCE, Box.ONES), (1, 2, 3, 4, 6), 0, strategy)
    log_in(page, live_server_url, user.username)
    page.context.add_cookies([{"name": "django_language", "value": "nl", "url": live_server_url}])
    page.goto(f"{live_server_url}/puzzles/{puzzle.pk}/")
    # No roll left: the dice cannot be marked, a box is the answer.
    expect(page.locator("#keep-1")).to_be_disabled()
    expect(page.locator('[data-box="FOURS"]')).to_be_disabled()
    page.locator('[data-box="SMALL_STRAIGHT"]').click()
    answer = page.locator("#puzzle-answer")
    expect(answer).to_have_attribute("data-result", "right")
    expect(answer.locator("[data-verdict]")).to_have_text("Goed: dat is de beste zet.")
    expect(answer.locator("[data-expected]")).to_have_count(3)
    expect(answer.locator(".puzzle-rating-change")).to_contain_text("Je puzzelrating: 1500 →")


@pytest.mark.parametrize(
    ("viewport", "dark"), [(DESKTOP, True), (PHONE, False)], ids=["desktop-dark", "phone-light"]
)
def test_the_puzzle_screens_pass_axe_and_fit_a_phone(
    browser: Browser, live_server_url, strategy, viewport, dark
):
    user = UserFactory()
    puzzle = make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)
    page = new_page(browser, viewport, dark=dark, bypass_csp=True)
    log_in(page, live_server_url, user.username)
    found = {}
    page.goto(f"{live_server_url}/")
    expect(page.locator(f'[data-daily-puzzle="{puzzle.pk}"]')).to_be_visible()
    found["home"] = scan(page)
    page.goto(f"{live_server_url}/puzzles/")
    found["list"] = scan(page)
    page.goto(f"{live_server_url}/puzzles/{puzzle.pk}/")
    page.locator('label[data-die="3"]').click()
    found["puzzle"] = scan(page)
    page.locator('[data-box="CHANCE"]').click()
    expect(page.locator("#puzzle-answer")).to_have_attribute("data-result", "wrong")
    found["answer"] = scan(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    blocking = {w: [v for v in vs if v["impact"] in BLOCKING] for w, vs in found.items()}
    assert not any(blocking.values()), blocking
    page.context.close()


@pytest.mark.parametrize("viewport", list(SCREENS.values()), ids=list(SCREENS))
def test_after_an_answer_the_best_choice_is_marked_and_nothing_else_can_be_chosen(
    browser: Browser, live_server_url, strategy, viewport
):
    """Issue 22, item 13: a wrong box answered; the three 6s are marked best on the dice, and no die,
    box or button takes another choice (one answer per look at the position)."""
    user = UserFactory()
    puzzle = make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)  # keep the three 6s
    page = new_page(browser, viewport)
    log_in(page, live_server_url, user.username)
    page.goto(f"{live_server_url}/puzzles/{puzzle.pk}/")
    expect(page.locator("[data-best-die]")).to_have_count(0)
    page.locator('[data-box="CHANCE"]').click()
    expect(page.locator("#puzzle-answer")).to_have_attribute("data-result", "wrong")
    # The best hold on the dice themselves (dice 3-5: the sorted 1 2 6 6 6), with a word for it.
    expect(page.locator("[data-best-die]")).to_have_count(3)
    for n in (3, 4, 5):
        expect(page.locator(f'label[data-die="{n}"]')).to_have_attribute("data-best-die", "")
        expect(page.locator(f'label[data-die="{n}"] .best-label')).to_have_text("best")
    expect(page.locator('[data-best-choice="keep"]')).to_contain_text("Best: keep the dice marked")
    # The player's own box says so; every control is off.
    expect(page.locator('tr:has([data-box="CHANCE"])')).to_contain_text("your choice")
    for control in page.locator('#puzzle-form button, #puzzle-form input[name="keep"]').all():
        expect(control).to_be_disabled()
    before = page.locator("#puzzle-answer").inner_text()
    page.locator('label[data-die="1"]').click(force=True)  # a tap on a die changes nothing now
    expect(page.locator("#keep-1")).not_to_be_checked()
    assert page.locator("#puzzle-answer").inner_text() == before
    if viewport == PHONE:
        assert_fits_the_phone(page)
    # The answer's own way on: the next puzzle.
    expect(page.locator("#puzzle-answer [data-next]")).to_be_enabled()
    page.context.close()
