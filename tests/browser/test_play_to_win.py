"""A game against the computer that plays to win, in Chromium: the person picks "Winner" on the home page,
switches the hints on late in the game, reads "best to win" beside "best for your total" (worked out by
the server's worker in its niced child and pushed to the page), plays the move best to win, and the
game runs to its end against the winner."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import Box
from tests.browser.pages import (
    box_button,
    confirm_button,
    off_the_browsers_loop,
    roll_button,
    start_against_computers,
)

pytestmark = pytest.mark.django_db(transaction=True)
WAIT_MS = 30_000

# Round 12, the person to write 1-1-2-3-5 after three rolls, Chance and Penta open, 50 behind the
# winner, whose Ones and Twos are open (a few points to come). For the total: 0 in Penta (Chance is
# worth 23 more); to win: 12 in Chance, and a Penta in the last round is the only way past.
PERSON = {
    **{b.name: 3 * b.face for b in Box if b.is_upper},
    **{b.name: 0 for b in Box if b.value in range(6, 11)},
}
COMPUTER = {
    "THREES": 15,
    "FOURS": 20,
    "FIVES": 25,
    "SIXES": 30,
    **{b.name: 0 for b in Box if b.value in range(6, 13)},
}
COMPUTER["CHANCE"] = 23


def late_position(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    person, computer = game.players.order_by("seat")
    Player.objects.filter(pk=person.pk).update(boxes=PERSON, total=98)
    Player.objects.filter(pk=computer.pk).update(boxes=COMPUTER, total=148)
    dice = [1, 1, 2, 3, 5]
    Turn.objects.filter(game=game, completed_at__isnull=True).update(
        number=23, round=12, dice=dice, held=[False] * 5, rolls=[{"dice": dice, "held": [False] * 5}] * 3
    )


def test_a_game_against_the_winner_with_its_best_to_win_hint(page: Page, live_server_url: str):
    expect.set_options(timeout=WAIT_MS)
    game_id = start_against_computers(page, live_server_url, "winner")
    expect(page.locator('th[data-seat-name="1"]')).to_contain_text("Computer (winner)")
    off_the_browsers_loop(lambda: late_position(game_id))
    page.reload()
    expect(page.locator(".turn-line")).to_contain_text("Round 12 of 13")
    page.locator('[data-action="hints"]').click()
    expect(page.locator("[data-hint-sentence]")).to_contain_text("Write 0 in Penta")
    hint = page.locator('[data-win-hint="differs"]')
    expect(hint).to_contain_text("Best to win: Write 12 in Chance")
    expect(page.locator("[data-total-hint]")).to_contain_text(
        "Best for your total: Write 0 in Penta (0% to win)"
    )
    # The person plays to win; the winner plays its last two turns, the person the last one.
    box_button(page, "CHANCE").click()
    confirm_button(page).click()
    expect(page.locator(".turn-line")).to_contain_text("Round 13 of 13")
    expect(roll_button(page)).to_be_enabled()
    roll_button(page).click()
    page.locator("button.box-button:not([disabled])").first.click()
    confirm_button(page).click()
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    game = off_the_browsers_loop(lambda: Game.objects.get(pk=game_id))
    assert game.is_finished
    computer = off_the_browsers_loop(lambda: game.players.get(seat=1))
    assert computer.bot_strength == "winner" and computer.sheet.is_complete
