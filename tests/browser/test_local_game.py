"""A local game (pass and play) in Chromium on a phone-sized page: two people and one computer played
to the end, the "Pass to" screen before each person's turn, and a reload that resumes the same game.

Every wait is for a change in the page, never a fixed sleep. The dice are random: each turn writes the
first open box."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dicegame.models import Game
from tests.browser.pages import GAME_URL, PHONE, assert_fits_the_phone, game_id_of, play_person_turn

pytestmark = pytest.mark.django_db(transaction=True)
RELOAD_ROUND = 5


def test_two_people_and_a_computer_play_a_whole_game_on_a_phone(page: Page, live_server_url: str):
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server_url}/")
    page.get_by_role("link", name="Play on one device (2-4 people)").click()
    page.get_by_label("Player 1", exact=True).fill("Anna")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_label("Computer 1").select_option("easy")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(GAME_URL)
    game_id = game_id_of(page)
    # The full sheet, every column.
    for seat, name in enumerate(["Anna", "Ben", "Computer (easy)"]):
        expect(page.locator(f'th[data-seat-name="{seat}"]')).to_contain_text(name)
    assert_fits_the_phone(page)

    for round_number in range(1, 14):
        play_person_turn(page, "Anna", round_number, reload_mid_turn=round_number == RELOAD_ROUND)
        play_person_turn(page, "Ben", round_number)
        # The computer's turn: its moves come over the socket; speed them up now and then.
        if round_number % 2:
            page.get_by_role("button", name="Speed up").click()
        if round_number < 13:
            expect(page.locator(".turn-line")).to_contain_text(f"Round {round_number + 1} of 13")

    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    expect(page.locator("ol.ranking li")).to_have_count(3)
    expect(page.locator("[data-result]")).to_have_count(0)  # no "you": the result is everyone's
    assert_fits_the_phone(page)
    game = Game.objects.get(pk=game_id)
    assert game.kind == Game.Kind.LOCAL and game.is_finished
    players = list(game.players.order_by("seat"))
    assert all(p.sheet.is_complete for p in players)
    for p in players:
        expect(page.locator(f'td[data-total][data-seat="{p.seat}"]')).to_have_attribute(
            "data-total", str(p.total)
        )

    # The history of this guest lists the game.
    page.goto(f"{live_server_url}/games/")
    expect(page.locator(f'tr[data-game="{game_id}"]')).to_contain_text("Won by")
