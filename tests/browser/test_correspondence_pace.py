"""A game by correspondence as its players meet it: the host picks the pace on the home page, and the
pace shows wherever the game is offered (the lobby, the live invitation, the friends page, the
invitation link's page); on the board, the time left for the move in hours, not a count of seconds.
The games waiting for a person's move are listed the soonest due first, each with its opponents, its
pace and its time left; a page in Dutch gets its list in Dutch, however the game was made."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.pages import (
    DAY_A_MOVE,
    correspondence_game,
    create_room,
    expect_waiting_count,
    logged_in_page,
    new_page,
    open_with_notices,
    play_my_turn,
    waiting_count,
    waiting_entry,
    waiting_list,
)
from tests.support.factories import UserFactory, befriend

pytestmark = pytest.mark.django_db(transaction=True)

PACES = [
    "Live: everyone at once",
    "Correspondence: an hour a move",
    "Correspondence: 8 hours a move",
    "Correspondence: a day a move",
    "Correspondence: 3 days a move",
]
RULE = [
    "each plays on their own time: a move not made in time is played by the computer, and 3 missed in a row"
    " forfeit the seat",
    "A game nobody moves in for 14 days ends as it stands.",
]


def time_left(who: str, hours: str) -> re.Pattern:
    """The board's line for a correspondence move: "Time left for hana: 23 hours, 59 minutes" (timeuntil
    puts non-breaking spaces between the numbers and their units)."""
    return re.compile(rf"^\s*Time left for {who}:\s({hours})\shours?\b")


def test_a_correspondence_room_shows_its_pace_from_the_invitation_to_the_board(
    browser: Browser, live_server_url: str, viewport: dict
):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    guest = logged_in_page(browser, live_server_url, "femke", viewport=viewport)
    open_with_notices(guest, f"{live_server_url}/", femke)
    host = logged_in_page(browser, live_server_url, "hana", viewport=viewport)

    # The room form offers live play or a move an hour, 8 hours, a day or 3 days; live unless chosen.
    host.goto(f"{live_server_url}/")
    pace = host.locator("form.friends-form").get_by_label("Pace")
    expect(pace.locator("option")).to_have_text(PACES)
    expect(pace).to_have_value("0")
    game_id = create_room(host, live_server_url, seats=2, pace="Correspondence: a day a move")

    # The lobby names the pace and its rule; a live room's turn timer is not mentioned.
    lobby_pace = host.locator("#lobby [data-pace]")
    expect(lobby_pace).to_have_attribute("data-pace", "correspondence")
    expect(lobby_pace.locator("strong")).to_have_text("Correspondence, a day a move")
    for sentence in RULE:
        expect(lobby_pace).to_contain_text(sentence)
    expect(host.locator("#lobby")).not_to_contain_text("Turn timer")

    # Whoever opens the invitation link sees the pace before taking a seat (here a visitor).
    link = host.locator("[data-join-link]").get_attribute("href")
    visitor = new_page(browser, viewport)
    visitor.goto(live_server_url + link)
    expect(visitor.get_by_role("heading", name="Join a game of Penta")).to_be_visible()
    expect(visitor.locator("main [data-pace]")).to_have_attribute("data-pace", "correspondence")
    expect(visitor.locator("main [data-pace]")).to_contain_text("Correspondence, a day a move")
    visitor.context.close()

    # hana invites femke: femke's page, open on the home page, gets the invitation live, with the pace.
    host.locator("#invite-friend").select_option("femke")
    host.get_by_role("button", name="Invite", exact=True).click()
    expect(host.locator("#lobby")).to_contain_text("Invited: femke")
    notice = guest.locator("#notifications .notice").filter(has_text="invites you")
    expect(notice).to_contain_text("hana invites you to a game of Penta. Correspondence, a day a move.")

    # Her friends page lists the invitation with the pace too.
    friends = guest.context.new_page()
    friends.goto(f"{live_server_url}/accounts/friends/")
    invitation = friends.locator("[data-invitation]").filter(has_text=f"game {game_id}")
    expect(invitation.locator("[data-pace]")).to_have_attribute("data-pace", "correspondence")
    expect(invitation.locator("[data-pace]")).to_have_text("Correspondence, a day a move")
    friends.close()

    # She follows the notice's link, reads the rule and takes the seat; hana starts the game.
    notice.get_by_role("link", name="Open the game").click()
    expect(guest).to_have_url(f"{live_server_url}/games/{game_id}/")
    expect(guest.locator("#lobby [data-pace]")).to_contain_text(RULE[0])
    expect(guest.locator("#lobby .invitation")).to_contain_text("hana invites you to this game.")
    guest.locator("#lobby .invitation").get_by_role("button", name="Take a seat").click()
    expect(host.locator('#lobby li[data-seat="1"]')).to_contain_text("femke")
    host.get_by_role("button", name="Start the game").click()
    for page in (host, guest):
        expect(page.locator("#dice-tray")).to_be_visible()

    # The board gives the time left for the move in hours and minutes; no seconds count down.
    for page in (host, guest):
        expect(page.locator("[data-move-deadline]")).to_have_text(time_left("hana", "23|24"))
        expect(page.locator("[data-deadline-ms], [data-deadline-seconds]")).to_have_count(0)
    expect_waiting_count(host, 1)
    expect_waiting_count(guest, 0)

    # hana moves: femke's board, live, gives femke a fresh day.
    play_my_turn(host, 1)
    for page in (host, guest):
        expect(page.locator("[data-move-deadline]")).to_have_text(time_left("femke", "23|24"))
    expect_waiting_count(guest, 1)
    expect_waiting_count(host, 0)


def test_the_games_waiting_are_listed_the_soonest_due_first(
    browser: Browser, live_server_url: str, viewport: dict
):
    femke, hana, ines = (UserFactory(username=name) for name in ("femke", "hana", "ines"))
    befriend(femke, hana)
    befriend(femke, ines)
    # femke hosts three games (she moves first in each), at three paces; a fourth waits for hana.
    slow = correspondence_game(femke, hana, move_seconds=3 * DAY_A_MOVE)
    quick = correspondence_game(femke, ines, move_seconds=3600)
    middle = correspondence_game(femke, hana, ines, move_seconds=8 * 3600)
    theirs = correspondence_game(hana, femke)

    page = logged_in_page(browser, live_server_url, "femke", viewport=viewport)
    page.goto(f"{live_server_url}/games/")
    expect_waiting_count(page, 3)
    # My games says whose move it is, and how long is left.
    expect(page.locator(f'tr[data-game="{quick.pk}"] [data-to-move]')).to_have_text(
        re.compile(r"^·\s*your turn,\s(5\d\sminutes|1\shour)\sleft$")
    )
    expect(page.locator(f'tr[data-game="{theirs.pk}"] [data-to-move]')).to_have_text(
        re.compile(r"^·\s*hana to move,\s(23|24)\shours?\b.*\sleft$")
    )

    # The header's count leads to the home page's list.
    waiting_count(page).click()
    expect(page).to_have_url(f"{live_server_url}/#inbox")
    entries = waiting_list(page).locator("li")
    expect(entries).to_have_count(3)
    order = [entries.nth(i).get_attribute("data-game") for i in range(3)]
    assert order == [str(quick.pk), str(middle.pk), str(slow.pk)], order
    expect(entries.get_by_role("link")).to_have_text(["Against ines", "Against hana, ines", "Against hana"])
    expect(entries).to_contain_text(
        [
            "Correspondence, an hour a move",
            "Correspondence, 8 hours a move",
            "Correspondence, 3 days a move",
        ]
    )
    # When each is due, as a person says it: today or tomorrow by the clock, or on the day of the week.
    expect(waiting_list(page).locator("time[data-time-left]")).to_have_text(
        [
            re.compile(r"^\s*by \d\d:\d\d( tomorrow)?\s*$"),
            re.compile(r"^\s*by \d\d:\d\d( tomorrow)?\s*$"),
            re.compile(r"^\s*by \d\d:\d\d on [A-Z][a-z]+day\s*$"),
        ]
    )
    expect(waiting_entry(page, theirs.pk)).to_have_count(0)

    # The first one is a link to its board, where it is her move.
    waiting_entry(page, quick.pk).get_by_role("link").click()
    expect(page).to_have_url(f"{live_server_url}/games/{quick.pk}/")
    expect(page.locator("[data-move-deadline]")).to_have_text(re.compile(r"^\s*Time left for femke:\s"))


def test_a_dutch_page_gets_its_list_of_games_waiting_in_dutch(browser: Browser, live_server_url: str):
    """The notice socket only says that the list changed; each page then asks for it in its own
    language: femke's page is in Dutch, though hana, who moved, reads English."""
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    game = correspondence_game(hana, femke)

    femke_home = logged_in_page(browser, live_server_url, "femke", language="nl")
    open_with_notices(femke_home, f"{live_server_url}/", femke)
    expect(femke_home.locator("html")).to_have_attribute("lang", "nl")
    expect(waiting_count(femke_home)).to_contain_text("wacht op jou")
    expect(waiting_list(femke_home).get_by_role("heading")).to_have_text("Jouw beurt")
    expect_waiting_count(femke_home, 0)

    hana_game = logged_in_page(browser, live_server_url, "hana", language="en")
    hana_game.goto(f"{live_server_url}/games/{game.pk}/")
    play_my_turn(hana_game, 1)

    # femke's page, never reloaded, lists the game in Dutch: the opponent, the pace, the time left.
    expect_waiting_count(femke_home, 1)
    entry = waiting_entry(femke_home, game.pk)
    expect(entry.get_by_role("link")).to_have_text("Tegen hana")
    expect(entry).to_contain_text("Correspondentie, een dag per zet")
    left = entry.locator("time[data-time-left]")
    expect(left).to_have_text(re.compile(r"^\s*morgen vóór \d\d:\d\d\s*$"))
    expect(waiting_count(femke_home)).to_contain_text("wacht op jou")
    expect(femke_home.locator("html")).to_have_attribute("lang", "nl")
    # While hana's page, in English, says whose move it is now in English.
    expect(hana_game.locator("[data-move-deadline]")).to_have_text(time_left("femke", "23|24"))
