"""A person's own time to choose a box, through the pages (issue 40, major 2): a whole solo game with the
auto-commit off (the turn waits, however long), and a rated game where a player's 10 s hold on the
server's clock and the page says the game allows them."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page, expect

from dicegame.models import Turn
from tests.browser.pages import (
    COUNTDOWN_WAIT_MS,
    DESKTOP,
    choose_box,
    confirm,
    logged_in_page,
    new_page,
    off_the_browsers_loop,
    roll,
    start_solo,
    turn_field,
)
from tests.support.factories import UserFactory, befriend
from tests.support.ratings import rated_room

pytestmark = pytest.mark.django_db(transaction=True)


def choose_my_time(page: Page, base: str, label: str) -> None:
    """The game settings page, from the menu's link: the time to choose a box."""
    page.goto(f"{base}/settings/")
    page.get_by_role("radio", name=label).check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".msg-success")).to_contain_text("Your settings are saved")


def test_a_whole_solo_game_with_the_auto_commit_off(browser: Browser, live_server_url: str):
    page = new_page(browser, DESKTOP)
    page.goto(live_server_url + "/")
    choose_my_time(page, live_server_url, "Off: no countdown")
    game_id = start_solo(page, live_server_url)
    for turn in range(1, 14):
        rolls = 3 if turn in (1, 7) else 1
        for _ in range(rolls):
            roll(page)
        if rolls == 3:
            # No countdown after the last roll, and nothing written while the player thinks.
            expect(page.locator("[data-countdown-ms]")).to_have_count(0)
            page.wait_for_timeout(4_500)  # past the 3 s of the rule, and its tick
            expect(turn_field(page)).to_have_value(str(turn))
            assert not Turn.objects.filter(game_id=game_id, auto_committed=True)
        choose_box(page)
        confirm(page, turn)
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    expect(page.locator("tr[data-turn]").filter(has_text="auto-committed")).to_have_count(0)
    page.context.close()


def test_ten_seconds_to_choose_in_a_rated_game(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana-ten"), UserFactory(username="femke-ten")
    befriend(hana, femke)
    page = logged_in_page(browser, live_server_url, hana.username)
    choose_my_time(page, live_server_url, "10 seconds")
    game = off_the_browsers_loop(lambda: rated_room(hana, [femke]))
    # The host moves first; femke keeps the rule's 3 s (nothing chosen: her seat follows the site).
    assert Turn.objects.get(game=game, number=1).player.user_id == hana.pk
    assert game.players.get(user=femke).auto_commit_seconds is None
    page.goto(f"{live_server_url}/games/{game.pk}/")
    number = 1
    for _ in range(3):
        roll(page)
    countdown = page.locator("[data-countdown-ms]")
    expect(countdown).to_contain_text("Choosing a box stops the countdown.")
    expect(page.locator("[data-own-time]")).to_contain_text(
        "This game allows your own time to choose a box: 10 s"
    )
    started = time.monotonic()
    assert int(countdown.locator("[data-countdown-seconds]").inner_text()) > 7
    page.wait_for_timeout(6_000)  # past the rule's 3 s: still hana's to choose
    expect(turn_field(page)).to_have_value(str(number))
    # The server's clock writes it at 10 s.
    expect(turn_field(page)).to_have_value(str(number + 1), timeout=COUNTDOWN_WAIT_MS * 2)
    assert time.monotonic() - started >= 5.5
    written = Turn.objects.get(game=game, number=number)
    assert written.auto_committed
    assert (written.completed_at.timestamp() - written.roll_times[-1]) == pytest.approx(10, abs=1.5)
    page.context.close()
