"""A local game (pass and play) in Chromium on a phone-sized page: two people and one computer played
to the end, the "Pass to" screen before each person's turn, and a reload that resumes the same game.

Every wait is for a change in the page, never a fixed sleep. The dice are random: each turn writes the
first open box."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from dicegame.models import Game, Player, Turn
from dicegame.play import local
from dicegame.play.local import SeatSpec
from tests.browser.pages import (
    GAME_URL,
    PHONE,
    PLAY_SCREENS,
    VIEWPORTS,
    assert_fits_the_phone,
    game_id_of,
    logged_in_page,
    new_page,
    play_person_turn,
    rect,
    roll_button,
    split_words,
)
from tests.support.factories import UserFactory, actor

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
        play_person_turn(
            page, "Anna", round_number, reload_mid_turn=round_number == RELOAD_ROUND, first=round_number == 1
        )
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


# -- on a phone, the table's own words (issue 22, item 7) ----------------------------------------------


def touch_phone(browser: Browser) -> Page:
    """A phone with a touch screen and no mouse: (hover: none), (pointer: coarse)."""
    context = browser.new_context(locale="en-GB", viewport=PHONE, has_touch=True, is_mobile=True)
    return context.new_page()


def test_on_a_phone_names_stay_whole_the_dock_stays_small_and_no_key_is_named(
    browser: Browser, live_server_url: str
):
    page = touch_phone(browser)
    page.goto(f"{live_server_url}/games/local/")
    for n, name in enumerate(["Anna", "Benjamin", "Christina"], 1):
        page.get_by_label(f"Player {n}", exact=False).first.fill(name)
    page.get_by_label("Computer 1").select_option("easy")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(GAME_URL)
    heads = page.locator("#scoresheet th[data-seat-name]")
    expect(heads).to_have_count(4)
    for i in range(4):
        assert split_words(heads.nth(i)) == [], f"a name breaks mid-word: {heads.nth(i).inner_text()!r}"
    assert_fits_the_phone(page)
    # No hand-over before the game's very first turn: Anna holds the device.
    expect(page.locator("[data-pass-to]")).to_have_count(0)
    play_person_turn(page, "Anna", 1, first=True)
    # The pass screen: the dock holds it without covering half the screen; no second Roll, no "(Space)".
    expect(page.locator("[data-pass-to]")).to_be_visible()
    expect(roll_button(page)).to_have_count(0)
    expect(page.locator("#dock")).not_to_contain_text("(Space)", use_inner_text=True)
    dock = rect(page.locator("#dock"))
    assert dock["height"] <= PHONE["height"] * 0.4, f"the dock is {dock['height']} px of {PHONE['height']}"
    page.get_by_role("button", name="Benjamin, tap to start your turn").click()
    expect(page.locator("[data-pass-to]")).to_have_count(0)
    expect(page.locator('#dice-tray [data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    dock = rect(page.locator("#dock"))
    assert dock["height"] <= PHONE["height"] * 0.4, f"the dock is {dock['height']} px of {PHONE['height']}"
    # A solo game's first hint: in words on the touch screen, with its key on a keyboard's.
    page.goto(f"{live_server_url}/")
    page.get_by_role("button", name="Play solo", exact=True).click()
    hint = page.locator("#turn-status .hint")
    expect(hint).to_have_text("Roll the dice to start your turn", use_inner_text=True)
    page.context.close()
    desk = new_page(browser, VIEWPORTS["desktop"])
    desk.goto(f"{live_server_url}/")
    desk.get_by_role("button", name="Play solo", exact=True).click()
    expect(desk.locator("#turn-status .hint")).to_have_text(
        "Roll the dice to start your turn (Space)", use_inner_text=True
    )
    desk.context.close()


def finished_local_game(user) -> Game:
    """A local game of Anna, Benjamin and an easy computer, over: Benjamin won."""
    game = local.local_game_create(
        actor=actor(user), seats=[SeatSpec(name="Anna"), SeatSpec(name="Benjamin"), SeatSpec(strength="easy")]
    )
    Turn.objects.filter(game=game).delete()
    for seat, (total, rank) in enumerate([(180, 2), (212, 1), (150, 3)]):
        Player.objects.filter(game=game, seat=seat).update(total=total, rank=rank)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    return game


@pytest.mark.parametrize("size", sorted(PLAY_SCREENS))
def test_the_end_names_the_winner_and_new_game_keeps_the_table(
    browser: Browser, live_server_url: str, size: str
):
    user = UserFactory()
    game = finished_local_game(user)
    page = logged_in_page(browser, live_server_url, user.username, viewport=PLAY_SCREENS[size])
    page.goto(f"{live_server_url}/games/{game.pk}/")
    expect(page.locator("[data-winner]")).to_have_text("Benjamin won!")
    page.get_by_role("link", name="New game").click()
    expect(page.get_by_label("Player 1", exact=True)).to_have_value("Anna")
    expect(page.get_by_label("Player 2", exact=True)).to_have_value("Benjamin")
    expect(page.get_by_label("Player 3 (optional)")).to_have_value("")
    expect(page.get_by_label("Computer 1")).to_have_value("easy")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(GAME_URL)
    new = Game.objects.get(pk=game_id_of(page))
    assert [p.display_name for p in new.players.order_by("seat")] == ["Anna", "Benjamin", "Computer (easy)"]
    page.context.close()
