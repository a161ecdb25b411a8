"""The winning chances bar, live: a spectator's bar updates after a player's move; the player sees it
only after switching it on (a casual game)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from dicegame.play import rooms
from tests.browser.pages import logged_in_page, roll_button
from tests.support.factories import UserFactory, actor, befriend

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_spectators_bar_updates_after_a_move(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    game = rooms.room_create(actor=actor(hana), seats=2, turn_seconds=0)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(femke))
    rooms.room_start(game_id=game.pk, actor=actor(hana))

    player = logged_in_page(browser, live_server_url, "hana")
    player.goto(f"{live_server_url}/games/{game.pk}/")
    watcher = browser.new_context(locale="en-GB").new_page()
    watcher.goto(f"{live_server_url}/games/{game.pk}/?t={game.invite_token}")

    # The spectator's bar: both seats' chances as text (the graphic is hidden from screen readers).
    bar = watcher.locator("#win-bar")
    expect(bar.get_by_role("heading", name="Chance of winning")).to_be_visible()
    seats = bar.locator("[data-win-chances] li")
    expect(seats).to_have_count(2)
    expect(seats.first).to_have_text(re.compile(r"^hana: \d+%$"))
    expect(bar.locator("svg.win-bar-graph rect")).to_have_count(2)
    before = int(bar.get_attribute("data-win-version"))

    # The player has not switched it on: no figures, only the switch.
    expect(player.locator("#win-bar [data-win-chances]")).to_have_count(0)
    expect(player.get_by_role("button", name="Show the winning chances")).to_be_visible()

    # Hana rolls and writes a box: the spectator's bar is pushed afresh, without a reload.
    roll_button(player).click()
    expect(player.locator('[data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    expect(bar).not_to_have_attribute("data-win-version", str(before))
    rolled = int(bar.get_attribute("data-win-version"))
    player.locator("button.box-button:not([disabled]):not([data-asks-zero])").first.click()
    player.get_by_role("button", name="Confirm turn", exact=True).click()
    expect(bar).not_to_have_attribute("data-win-version", str(rolled))
    expect(seats).to_have_count(2)
    figures = [int(x) for x in re.findall(r"(\d+)%", bar.locator("[data-win-chances]").inner_text())]
    assert len(figures) == 2 and 98 <= sum(figures) <= 102

    # The player switches it on for themselves: the figures appear on their page too.
    player.get_by_role("button", name="Show the winning chances").click()
    expect(player.locator("#win-bar [data-win-chances] li")).to_have_count(2)
    expect(player.get_by_role("button", name="Hide the winning chances")).to_have_attribute(
        "aria-pressed", "true"
    )
