"""A whole game against two computer players in Chromium: their moves appear step by step, the person
speeds them up, and the result ranks all three seats."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from dicegame.models import Game
from tests.browser.pages import roll_button, start_against_computers

pytestmark = pytest.mark.django_db(transaction=True)
# Longer than the suite's expectations: each round waits for two computer players' moves.
BOT_ROUND_WAIT_MS = 30_000


def test_a_whole_game_against_two_computer_players(page: Page, live_server_url: str):
    expect.set_options(timeout=BOT_ROUND_WAIT_MS)
    start_against_computers(page, live_server_url, "easy", "hard")
    expect(page.locator('th[data-seat-name="2"]')).to_contain_text("Computer 2 (hard)")

    for round_number in range(1, 14):
        expect(page.locator(".turn-line")).to_contain_text(f"Round {round_number} of 13")
        expect(roll_button(page)).to_be_enabled()
        roll_button(page).click()
        expect(page.locator('[data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
        page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first.click()
        page.get_by_role("button", name="Confirm turn", exact=True).click()
        if round_number == 13:
            break
        # The computer plays: its name shows while it rolls, holds and writes, one step at a time.
        expect(page.locator("[data-bot-playing]")).to_be_visible()
        if round_number == 1:
            # Watch the first computer turn: its dice appear on the board.
            expect(page.locator('[data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
            expect(page.locator("[data-bot-playing]")).to_contain_text("Computer 2 (hard)")
        else:
            page.get_by_role("button", name="Speed up").click()

    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    ranks = page.locator("ol.ranking li")
    expect(ranks).to_have_count(3)
    game = Game.objects.get()
    assert game.is_finished
    players = list(game.players.order_by("seat"))
    assert all(p.sheet.is_complete for p in players)
    assert sorted(p.rank for p in players)[0] == 1
    for p in players:
        expect(page.locator(f'td[data-total][data-seat="{p.seat}"]')).to_have_attribute(
            "data-total", str(p.total)
        )
