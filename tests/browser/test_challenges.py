"""A friend is one tap from a game (issue 41), in real browsers against the live server: two people
become friends, one challenges with the Play button, the other accepts from the home page's inbox (which
shows it without a reload) and both are in the game; a correspondence challenge starts with the
challenger's roll; two strangers press "Play someone now" and meet in a game; and a phone's home page
shows the inbox above the fold."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Game
from dicegame.offers import Challenge
from dicegame.play import challenges
from dicegame.play.challenges import Terms
from tests.browser.pages import (
    GAME_URL,
    PHONE,
    become_friends,
    challenge_entry,
    correspondence_game,
    expect_waiting_count,
    game_id_of,
    in_the_first_screen,
    inbox,
    logged_in_page,
    off_the_browsers_loop,
    open_with_notices,
    play_my_turn,
    roll,
    roll_button,
    send_challenge,
    waiting_entry,
)
from tests.support.factories import UserFactory, actor, befriend

pytestmark = pytest.mark.django_db(transaction=True)


def test_friends_then_a_challenge_with_one_tap_accepted_from_the_home_inbox(
    browser: Browser, live_server_url: str
):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    hana_page = logged_in_page(browser, live_server_url, "hana")
    femke_page = logged_in_page(browser, live_server_url, "femke")
    become_friends(hana_page, femke_page, live_server_url, asked="femke", asker="hana")

    # femke waits on her home page; nothing waits for her yet.
    open_with_notices(femke_page, f"{live_server_url}/", femke)
    expect_waiting_count(femke_page, 0)
    expect(inbox(femke_page).locator("#answers")).to_have_count(0)

    # hana: Play on femke's row, then the sheet's Challenge (live, 60 s a turn, casual: its defaults).
    send_challenge(hana_page, live_server_url, "femke")
    expect(hana_page.locator("[data-waiting-answer]")).to_contain_text("Waiting for femke to answer")
    challenge = Challenge.objects.get()

    # femke's page, never reloaded: a notice, the header's count, the challenge in her inbox.
    expect(femke_page.locator("#notifications .notice").filter(has_text="challenges you")).to_contain_text(
        "hana challenges you to a game: Live, 60 s a turn."
    )
    expect_waiting_count(femke_page, 1)
    entry = challenge_entry(femke_page, challenge.pk)
    expect(entry).to_contain_text("hana challenges you")
    expect(entry).to_contain_text(re.compile(r"answer by \d\d:\d\d"))
    entry.get_by_role("button", name="Accept hana").click()

    # The game starts: femke is on its board, and hana's challenge page follows her there.
    expect(femke_page).to_have_url(GAME_URL)
    game_id = game_id_of(femke_page)
    expect(hana_page).to_have_url(f"{live_server_url}/games/{game_id}/")
    for page in (hana_page, femke_page):
        expect(page.locator("#dice-tray")).to_be_visible()
    expect(roll_button(hana_page)).to_be_enabled()  # the challenger plays first
    roll(hana_page)
    game = Game.objects.get(pk=game_id)
    assert game.is_active and [p.user_id for p in game.players.order_by("seat")] == [hana.pk, femke.pk]


def test_a_correspondence_challenge_starts_with_the_challengers_roll(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    femke_home = logged_in_page(browser, live_server_url, "femke")
    open_with_notices(femke_home, f"{live_server_url}/", femke)
    hana_page = logged_in_page(browser, live_server_url, "hana")

    send_challenge(hana_page, live_server_url, "femke", pace="Correspondence: a day a move")
    # Straight to the board: she rolls first, while the game waits for femke's yes.
    expect(hana_page).to_have_url(GAME_URL)
    game_id = game_id_of(hana_page)
    expect(hana_page.locator("#game-challenge")).to_contain_text("Waiting for femke to accept")
    play_my_turn(hana_page, 1)

    # femke's inbox has the challenge (not a move: her yes comes first); she accepts and it is her turn.
    challenge = Challenge.objects.get()
    entry = challenge_entry(femke_home, challenge.pk)
    expect(entry).to_contain_text("Correspondence, a day a move")
    expect(waiting_entry(femke_home, game_id)).to_have_count(0)
    entry.get_by_role("button", name="Accept hana").click()
    expect(femke_home).to_have_url(f"{live_server_url}/games/{game_id}/")
    expect(femke_home.locator("#game-challenge")).to_have_count(0)
    expect(roll_button(femke_home)).to_be_enabled()
    roll(femke_home)
    expect(femke_home.locator("[data-move-deadline]")).to_contain_text("Time left for femke")


def test_two_strangers_press_play_someone_now_and_meet(browser: Browser, live_server_url: str):
    UserFactory(username="ann"), UserFactory(username="bob")
    ann = logged_in_page(browser, live_server_url, "ann")
    bob = logged_in_page(browser, live_server_url, "bob")
    for page in (ann, bob):
        page.goto(f"{live_server_url}/")
        page.get_by_role("button", name="Play someone now").click()
    for page in (ann, bob):
        expect(page).to_have_url(GAME_URL, timeout=30_000)
    assert game_id_of(ann) == game_id_of(bob)
    game = Game.objects.get(pk=game_id_of(ann))
    assert game.is_active and {p.user.username for p in game.players.all()} == {"ann", "bob"}
    for page in (ann, bob):
        expect(page.locator("#dice-tray")).to_be_visible()


def test_a_phones_home_page_shows_the_inbox_above_the_fold(browser: Browser, live_server_url: str):
    hana, femke, ines = (UserFactory(username=name) for name in ("hana", "femke", "ines"))
    befriend(hana, femke)
    befriend(hana, ines)
    game = correspondence_game(hana, femke)  # her move
    theirs = off_the_browsers_loop(
        lambda: challenges.challenge_send(actor=actor(ines), username="hana", terms=Terms())
    )
    off_the_browsers_loop(
        lambda: challenges.challenge_send(actor=actor(hana), username="femke", terms=Terms(move_seconds=3600))
    )
    page = logged_in_page(browser, live_server_url, "hana", viewport=PHONE)
    page.goto(f"{live_server_url}/")
    # Measured: the inbox starts in the first screen, and what waits for her (the move, the challenge
    # with its Accept) is seen without scrolling.
    assert in_the_first_screen(page, inbox(page).locator("#waiting-heading"))
    assert in_the_first_screen(page, waiting_entry(page, game.pk))
    assert in_the_first_screen(
        page, challenge_entry(page, theirs.pk).get_by_role("button", name="Accept ines")
    )
    top = inbox(page).bounding_box()["y"]
    assert top < PHONE["height"] / 3, f"the inbox starts {top}px down a {PHONE['height']}px screen"
