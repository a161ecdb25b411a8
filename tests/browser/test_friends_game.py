"""Two friends play a whole game against each other in two browsers, live over the game socket.

One sees the other's holds as they happen; one turn is written by the server's auto-commit while that
player's page is closed."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Game, Turn
from tests.browser.pages import logged_in_page, play_live_turn, roll_button, wait_until_my_turn, whose_turn
from tests.support.factories import UserFactory, befriend

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_friends_play_a_whole_game_live(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    host = logged_in_page(browser, live_server_url, "hana")
    guest = logged_in_page(browser, live_server_url, "femke")

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
            guest = logged_in_page(browser, live_server_url, "femke")
            guest.goto(game_url)
            pages["femke"] = guest
            continue
        number = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).get().number
        play_live_turn(page, other, show_hold=turns_played == 1)
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
