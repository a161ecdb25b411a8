"""Two friends play a whole game against each other in two browsers, live over the game socket.

One sees the other's holds as they happen; one turn is written by the server's auto-commit while that
player's page is closed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from accounts.models import Friendship
from dicegame.models import Game, Turn
from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
WAIT_MS = 20_000


def log_in(browser: Browser, base: str, username: str) -> Page:
    context = browser.new_context(locale="en-GB", viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name=username)).to_be_visible()
    return page


def roll_button(page: Page):
    return page.get_by_role("button", name=re.compile(r"^Roll"))


def whose_turn(game_id: int) -> str | None:
    """The username whose turn it is (from the server), or None when the game is over."""
    turn = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).select_related("player").first()
    return turn.player.name if turn else None


def wait_until_my_turn(page: Page) -> None:
    ready = page.locator("[data-action=roll]:not([disabled]), button.box-button:not([disabled])")
    expect(ready.first).to_be_visible(timeout=WAIT_MS * 2)


def play_turn(page: Page, other: Page | None, *, show_hold: bool = False) -> None:
    die = page.locator('[data-die="1"]')
    if roll_button(page).is_enabled():
        roll_button(page).click()
        try:
            expect(die).to_have_attribute("data-value", re.compile(r"^[1-6]$"), timeout=5_000)
        except AssertionError:
            # As a person would: the board changed under the tap (the other player's screen came
            # back), so tap Roll again; the server refuses a second roll of the same dice.
            if roll_button(page).is_enabled():
                roll_button(page).click()
            expect(die).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    if show_hold and other is not None:
        page.locator('[data-die="1"]').click()
        expect(page.locator('[data-die="1"]')).to_have_attribute("aria-pressed", "true")
        # The friend's page shows the hold live, without reloading.
        expect(other.locator('[data-die="1"]')).to_have_attribute("aria-pressed", "true")
    box = page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first
    box.click()
    expect(page.locator('button.box-button[aria-pressed="true"]')).to_have_count(1)
    page.get_by_role("button", name="Confirm turn", exact=True).click()
    confirm = page.get_by_role("button", name="Confirm turn", exact=True)
    expect(confirm.and_(page.locator("[disabled]")).or_(page.locator("#game-result"))).to_be_visible()


def test_two_friends_play_a_whole_game_live(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    low, high = sorted((hana, femke), key=lambda u: u.pk)
    Friendship.objects.create(user_low=low, user_high=high)
    host = log_in(browser, live_server_url, "hana")
    guest = log_in(browser, live_server_url, "femke")

    # Hana creates a room for two with a 120-second turn timer and invites Femke.
    host.goto(f"{live_server_url}/")
    form = host.locator("form.friends-form")
    form.locator("select[name=seats]").select_option("2")
    form.locator("select[name=turn_seconds]").select_option("120")
    form.get_by_role("button", name="Create a game").click()
    expect(host.get_by_role("heading", name="Waiting for players")).to_be_visible()
    game_url = host.url
    host.locator("#invite-friend").select_option("femke")
    host.get_by_role("button", name="Invite", exact=True).click()
    expect(host.locator("#lobby")).to_contain_text("Invited: femke")

    # Femke takes the seat from the game page; Hana's lobby shows her at once.
    guest.goto(game_url)
    guest.get_by_role("button", name="Take a seat").click()
    expect(host.locator('#lobby li[data-seat="1"]')).to_contain_text("femke")
    host.get_by_role("button", name="Start the game").click()
    # Both pages turn into the board (the game's status changed).
    expect(host.locator("#dice-tray")).to_be_visible()
    expect(guest.locator("#dice-tray")).to_be_visible()

    pages = {"hana": host, "femke": guest}
    game_id = Game.objects.get().pk
    turns_played = 0
    auto_committed = False
    while (current := whose_turn(game_id)) is not None:
        page = pages[current]
        other = pages["femke" if current == "hana" else "hana"]
        wait_until_my_turn(page)
        turns_played += 1
        if current == "femke" and turns_played >= 6 and not auto_committed:
            # Femke rolls three times and closes her page: the server writes the roll itself.
            for rolls_left in ("2", "1", "0"):
                # A press within 350 ms of the last is taken for a double click: look at the dice first.
                expect(page.locator("#game[data-roll-cooling]")).to_have_count(0)
                roll_button(page).click()
                expect(page.locator(".turn-line")).to_contain_text(f"{rolls_left} roll")
            expect(page.locator("[data-countdown-ms]")).to_be_visible()
            page.context.close()
            expect(host.locator('th[data-seat-name="1"] .presence')).to_have_text("offline")
            expect(roll_button(host)).to_be_enabled()
            auto_committed = True
            guest = log_in(browser, live_server_url, "femke")
            guest.goto(game_url)
            pages["femke"] = guest
            continue
        number = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).get().number
        play_turn(page, other, show_hold=turns_played == 1)
        # The server has written the turn before the next one is looked up.
        for _ in range(100):
            if Turn.objects.filter(game_id=game_id, number=number, completed_at__isnull=False).exists():
                break
            page.wait_for_timeout(100)

    game = Game.objects.get()
    assert game.is_finished
    for page in pages.values():
        # Each page reloads itself into the result when the game's status changes.
        expect(page.get_by_role("heading", name="Game over")).to_be_visible()
        expect(page.locator("ol.ranking li")).to_have_count(2)
    assert Turn.objects.filter(game=game, auto_committed=True).count() == 1
    assert turns_played == 26
    expect(host.locator(".turn-log")).to_contain_text("auto-committed")
