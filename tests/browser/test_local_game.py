"""A local game (pass and play) in Chromium on a phone-sized page: two people and one computer played
to the end, the "Pass to" screen before each person's turn, and a reload that resumes the same game.

Every wait is for a change in the page, never a fixed sleep. The dice are random: each turn writes the
first open box."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from dicegame.models import Game

pytestmark = pytest.mark.django_db(transaction=True)
WAIT_MS = 30_000
PHONE = {"width": 360, "height": 740}
GAME_URL = re.compile(r"/games/(\d+)/$")
RELOAD_ROUND = 5


def rolls_field(page: Page):
    return page.locator('#game-form input[name="roll"]')


def dice_values(page: Page) -> list[str]:
    return [
        page.locator(f'#dice-tray [data-die="{n}"]').get_attribute("data-value") or "" for n in range(1, 6)
    ]


def wait_htmx_idle(page: Page) -> None:
    """No htmx request in flight (the page takes one action at a time and drops a click meanwhile)."""
    expect(page.locator(".htmx-request")).to_have_count(0)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide on a {PHONE['width']}px screen"


def play_person_turn(page: Page, name: str, round_number: int, *, reload_mid_turn: bool = False) -> None:
    # Between turns: whom to pass the device to, with one big target that starts the turn.
    expect(page.locator(".turn-line")).to_contain_text(f"Round {round_number} of 13")
    expect(page.locator(f'[data-pass-to="{name}"]')).to_contain_text(f"Pass to {name}")
    tap = page.get_by_role("button", name=f"{name}, tap to start your turn")
    box = tap.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 200, box
    wait_htmx_idle(page)
    tap.click()
    expect(rolls_field(page)).to_have_value("1")
    expect(page.locator("[data-pass-to]")).to_have_count(0)
    expect(page.locator('#dice-tray [data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    expect(page.locator("th.current")).to_contain_text(name)
    if reload_mid_turn:
        dice = dice_values(page)
        page.reload()
        # The same game, the same turn, the same dice: everything lives on the server.
        expect(rolls_field(page)).to_have_value("1")
        expect(page.locator("th.current")).to_contain_text(name)
        assert dice_values(page) == dice
    wait_htmx_idle(page)
    box = page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first
    name_of_box = box.get_attribute("data-box")
    box.click()
    expect(page.locator(f'button.box-button[data-box="{name_of_box}"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    confirm = page.get_by_role("button", name="Confirm turn", exact=True)
    expect(confirm).to_be_enabled()
    wait_htmx_idle(page)
    confirm.click()


def test_two_people_and_a_computer_play_a_whole_game_on_a_phone(page: Page, live_server_url: str):
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server_url}/")
    page.get_by_role("link", name="Play on one device (2-4 people)").click()
    page.get_by_label("Player 1", exact=True).fill("Anna")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_label("Computer 1").select_option("easy")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(GAME_URL)
    game_id = int(GAME_URL.search(page.url).group(1))
    # The full sheet, every column.
    for seat, name in enumerate(["Anna", "Ben", "Computer (easy)"]):
        expect(page.locator(f'th[data-seat-name="{seat}"]')).to_contain_text(name)
    no_sideways_scroll(page)

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
    no_sideways_scroll(page)
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
