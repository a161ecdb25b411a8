"""A game review in Chromium: stepping through the decisions with the keyboard and the links."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import log_in
from tests.support.factories import UserFactory
from tests.support.games import make_game

pytestmark = pytest.mark.django_db(transaction=True)


def test_step_through_a_review_with_the_keyboard(page: Page, live_server_url):
    user = UserFactory()
    game = make_game([user, "hard"])
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    log_in(page, live_server_url, user.username)
    page.goto(f"{live_server_url}/games/")
    page.locator(f'tr[data-game="{game.pk}"] [data-review]').click()
    expect(page).to_have_url(re.compile(rf"/games/{game.pk}/review/$"))
    # The keys are heard by a deferred script: a key pressed before it ran is lost, as in a browser.
    page.wait_for_load_state("load")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-step", "0")
    total = int(replay.get_attribute("data-steps"))
    assert total >= 26
    expect(page.locator("[data-position]")).to_have_text(f"Decision 1 of {total}")

    for n in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(n))
    expect(page).to_have_url(re.compile(r"\?step=3$"))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-step", "2")
    expect(page.locator("[data-position]")).to_have_text(f"Decision 3 of {total}")
    # The first decision has no "previous": the left arrow does nothing there.
    page.locator('#replay [data-replay="prev"]').click()
    expect(page.locator("#replay")).to_have_attribute("data-step", "1")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-step", "0")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-step", "0")

    # Jump to the hard computer player's last turn from the turn list: a best box, no cost.
    page.locator("tr[data-turn]").last.get_by_role("link").first.click()
    expect(page.locator("#replay [data-label]")).to_have_attribute("data-label", "best")
    last_first = int(page.locator("#replay").get_attribute("data-step"))
    while int(page.locator("#replay").get_attribute("data-step")) < total - 1:
        before = page.locator("#replay").get_attribute("data-step")
        page.keyboard.press("ArrowRight")
        expect(page.locator("#replay")).not_to_have_attribute("data-step", before)
    assert last_first < total
    expect(page.locator('#replay [data-replay="next"]')).to_have_count(0)
    # The chart is server-rendered SVG with a line per seat and the position marker.
    expect(page.locator("#replay svg polyline")).to_have_count(2)
    expect(page.locator("#replay svg .chart-marker")).to_have_count(1)
    # Stepping adds no history entries (the address follows the step in place): Back leaves the review
    # at once, and Forward comes back to the step the player was at.
    page.go_back()
    expect(page).to_have_url(re.compile(r"/games/$"))
    page.go_forward()
    expect(page.locator("#replay")).to_have_attribute("data-step", str(total - 1))
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors


def test_switch_to_optimal_play_on_the_same_dice_and_back(page: Page, live_server_url):
    user = UserFactory()
    game = make_game([user, "easy"], strengths=["easy", "easy"])
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    log_in(page, live_server_url, user.username)
    page.goto(f"{live_server_url}/games/{game.pk}/review/")
    # Luck and skill side by side for both seats, and the chart of both.
    expect(page.locator("[data-seat-luck]")).to_have_count(2)
    expect(page.locator("#luck-skill svg polyline")).to_have_count(4)
    # The computer's fifth turn, on the optimal line: its rolls, holds and box on the same dice.
    row = page.locator("tr[data-turn]").nth(9)
    row.locator("[data-optimal-link]").click()
    expect(page.locator("#replay")).to_have_attribute("data-step", re.compile(r"\d+"))
    expect(page.locator("#replay [data-optimal-turn]")).to_be_visible()
    expect(page).to_have_url(re.compile(r"line=optimal"))
    assert page.locator("#replay [data-optimal-roll]").count() >= 1
    expect(page.locator("#replay [data-optimal-box]")).to_have_count(1)
    # Stepping on to the next turn stays on the optimal line.
    page.locator('#replay [data-replay="next-turn"]').click()
    expect(page.locator("#replay [data-optimal-turn]")).not_to_have_attribute(
        "data-optimal-turn", row.get_attribute("data-turn")
    )
    # And back to the player's own turn.
    page.locator('#replay [data-replay="own-line"]').click()
    expect(page.locator("#replay [data-optimal-turn]")).to_have_count(0)
    expect(page.locator("#replay [data-roll-luck]").first).to_be_visible()
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
