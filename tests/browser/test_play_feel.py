"""How the game page takes a player's taps, in Chromium, on a desktop and on a 360x740 phone.

One press of Roll is one roll (a double click, two quick clicks); the keyboard focus stays on the control
the player used; a tap begun as a push redraws the board still lands (the board is morphed, not
replaced); hundreds of fast taps with pushes, lost answers and late answers meanwhile never wedge the
page, on the game socket its actions travel on and on the POSTs it falls back to; players who said yes
to a rematch are taken to it; spectators get no controls."""

from __future__ import annotations

import contextlib
import json
import random
import re

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, Route, WebSocketRoute, expect
from playwright.sync_api import Error as PlaywrightError

from dicegame.models import Game
from dicegame.play import rooms
from tests.browser.pages import (
    WAIT_MS,
    act_elsewhere,
    converged,
    die,
    logged_in_page,
    roll_button,
    rolls_field,
    settled,
    start_against_computers,
    start_solo,
)
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import current, make_game

pytestmark = pytest.mark.django_db(transaction=True)


# -- defect 1: one press is one roll -----------------------------------------------------------------


def test_a_double_click_on_roll_is_one_roll(browser: Browser, live_server_url: str, viewport: dict):
    user = UserFactory(username="dora")
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    game_id = start_solo(page, live_server_url)
    roll_button(page).dblclick()
    expect(rolls_field(page)).to_have_value("1")
    settled(page)
    assert current(game_id).rolls_used == 1
    expect(rolls_field(page)).to_have_value("1")

    # Two single clicks 200 ms apart (a nervous tap, not a double click): still one roll.
    roll_button(page).click()
    page.wait_for_timeout(200)
    roll_button(page).click(force=True)
    expect(rolls_field(page)).to_have_value("2")
    settled(page)
    assert current(game_id).rolls_used == 2

    # A press after a look at the dice is a roll, as ever.
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("3")
    assert current(game_id).rolls_used == 3


# -- defect 10: focus stays on the control -----------------------------------------------------------


def test_the_keyboard_focus_stays_where_the_player_is(browser: Browser, live_server_url: str, viewport: dict):
    user = UserFactory(username="kees")
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    start_solo(page, live_server_url)
    roll_button(page).focus()
    page.keyboard.press("Enter")
    expect(rolls_field(page)).to_have_value("1")
    settled(page)
    expect(roll_button(page)).to_be_focused()

    die(page, 2).focus()
    page.keyboard.press("Enter")
    expect(die(page, 2)).to_have_attribute("aria-pressed", "true")
    settled(page)
    expect(die(page, 2)).to_be_focused()

    box = page.locator("#scoresheet button.box-button:not([disabled]):not([data-asks-zero])").first
    name = box.get_attribute("data-box")
    box.focus()
    page.keyboard.press("Enter")
    chosen = page.locator(f'#scoresheet button[data-box="{name}"]')
    expect(chosen).to_have_attribute("aria-pressed", "true")
    settled(page)
    expect(chosen).to_be_focused()

    # Confirm ends the turn and becomes disabled: the focus goes to Roll, not to the page.
    page.locator('#game [data-action="confirm"]').focus()
    page.keyboard.press("Enter")
    expect(rolls_field(page)).to_have_value("0")
    settled(page)
    expect(roll_button(page)).to_be_focused()


# -- defect 11: a tap survives a push ----------------------------------------------------------------


def test_a_tap_begun_before_a_push_still_lands(browser: Browser, live_server_url: str, viewport: dict):
    """Press on a die, let a push redraw the dice tray (another tab of the same player holds die 5),
    release: the tap holds the die. A region replaced under the pointer would have lost the click."""
    user = UserFactory(username="tess")
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    game_id = start_against_computers(page, live_server_url)
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("1")
    settled(page)
    target = die(page, 2)
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    version = page.locator("#game-status").get_attribute("data-version")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    assert act_elsewhere(page, live_server_url, game_id, "hold/5") == 200
    expect(die(page, 5)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#game-status")).not_to_have_attribute("data-version", version)
    page.mouse.up()
    expect(target).to_have_attribute("aria-pressed", "true")
    settled(page)
    assert current(game_id).held == [False, True, False, False, True]


# -- defect 12: the queue never wedges ---------------------------------------------------------------


class Faults:
    """Every n-th action of the page (`at`: its answer lost, the action lost on the way, its answer later
    than the page waits), on the path it takes: its POSTs (`post`, the game socket kept down) or its game
    socket's frames (`socket`). `lost_answers` makes every answer lost from then on."""

    def __init__(self, page: Page, transport: str):
        self.page = page
        self.n = 0
        self.lost_answers = False
        self.down = transport == "post"
        self.answers_lost: set[str] = set()
        self.answers_late: set[str] = set()
        # The socket (for the POSTs: down, so that the page falls back to them).
        page.route_web_socket(re.compile(r"/ws/games/"), self.socket)
        if transport == "post":
            page.route(ACTION_POST, self.post)

    def fault(self) -> str:
        self.n += 1
        if self.lost_answers or self.n % 17 == 0:
            return "answer lost"
        if self.n % 19 == 0:
            return "lost on the way"
        return "late" if self.n % 23 == 0 else ""

    def post(self, route: Route) -> None:
        fault = self.fault()
        if fault == "answer lost":
            # The server gets the request and applies it; its answer never reaches the page.
            with contextlib.suppress(PlaywrightError):
                route.fetch()
                route.abort("connectionreset")
        elif fault == "lost on the way":
            route.abort("connectionreset")  # the server never sees it
        elif fault == "late":
            # Beyond the page's timeout: given up, then resynced (and the page may be gone by then).
            with contextlib.suppress(PlaywrightError):
                self.page.wait_for_timeout(2000)
                route.continue_()
        else:
            route.continue_()

    def socket(self, ws: WebSocketRoute) -> None:
        if self.down:
            ws.close(code=1012)  # a server restarting: the page tries again later, and POSTs meanwhile
            return
        server = ws.connect_to_server()

        def to_server(message) -> None:
            frame = json.loads(message)
            if frame.get("action") in ("sync", "ping"):
                server.send(message)
                return
            fault = self.fault()
            if fault == "answer lost":
                self.answers_lost.add(str(frame["id"]))
            elif fault == "late":
                self.answers_late.add(str(frame["id"]))
            if fault != "lost on the way":
                server.send(message)

        def to_page(message) -> None:
            answer = re.match(r'<div id="messages"[^>]* data-answer="(\d+)"', message)
            if answer and answer.group(1) in self.answers_lost:
                return
            if answer and answer.group(1) in self.answers_late:
                with contextlib.suppress(PlaywrightError):
                    self.page.wait_for_timeout(2000)  # the page stops waiting at 1.5 s
            with contextlib.suppress(PlaywrightError):
                ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)


ACTION_POST = re.compile(r"/games/\d+/(hold|roll)/")


@pytest.mark.parametrize("transport", ["socket", "post"])
def test_hundreds_of_fast_taps_with_lost_and_late_answers_never_wedge_the_page(
    browser: Browser, live_server_url: str, viewport: dict, transport: str
):
    user = UserFactory(username="stef")
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    # Answers that never come back, and answers later than the page waits for, now and then; on the
    # socket, as the page's actions travel on it, or on the POSTs, the page's path while it is down.
    faults = Faults(page, transport)
    game_id = start_against_computers(page, live_server_url)
    if transport == "socket":
        expect(page.locator("#game[data-live]")).to_be_attached()
    expect(page.locator("html.js")).to_be_attached()  # htmx and penta.js have run
    page.evaluate("htmx.config.timeout = 1500")
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("1")
    rng = random.Random(12)
    boxes = {n: die(page, n).bounding_box() for n in range(1, 6)}
    roll_box = roll_button(page).bounding_box()
    # At least 300 taps, and on until each kind of fault above has struck at least once (the 23rd
    # action): a slow machine gets fewer actions through per tap, and a count of taps alone once let
    # only 8 requests through, none of them faulty.
    i = 0
    while i < 300 or (faults.n < 24 and i < 3000):
        # One roll in the storm: two of three rolls used, so no auto-commit cuts the test short.
        target = roll_box if i == 150 else boxes[rng.randint(1, 5)]
        page.mouse.click(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
        if i % 50 == 0:
            # A push from elsewhere meanwhile: the player toggles die 4 on another device (refused
            # once no rolls are left: holding changes nothing then).
            act_elsewhere(page, live_server_url, game_id, "hold/4")
        i += 1
    # Most taps land while an action is on its way (the page keeps at most 4 of them queued), yet a
    # page that keeps playing sends on: a wedged one stops at a handful.
    assert faults.n >= 24, "the taps reached the server, and every kind of fault struck"
    # The last tap's answer is lost too: nothing else will come to put the page right but its own resync.
    settled(page)
    faults.lost_answers = True
    die(page, 3).click()
    settled(page)
    faults.lost_answers = False
    page.unroute(ACTION_POST)

    # The page settles on the server's board: the same version, dice and holds.
    converged(page, game_id)
    turn = current(game_id)
    for n in range(1, 6):
        expect(die(page, n)).to_have_attribute("data-value", str(turn.dice[n - 1]))
        if turn.rolls_used < 3:
            expect(die(page, n)).to_have_attribute("aria-pressed", "true" if turn.held[n - 1] else "false")
    # And it still plays: a box, Confirm, and the computer's turn, then Roll again.
    page.locator("#scoresheet button.box-button:not([disabled]):not([data-asks-zero])").first.click()
    page.locator('#game [data-action="confirm"]').click()
    expect(page.locator("[data-bot-playing]")).to_be_visible()
    if transport == "post":
        return  # the computer's moves reach the page by its socket, and this one stays down
    expect(page.locator(".turn-line")).to_contain_text("Round 2 of 13", timeout=WAIT_MS * 2)
    expect(roll_button(page)).to_be_enabled(timeout=WAIT_MS * 2)
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("1")


# -- defect 2: rematch -------------------------------------------------------------------------------


def test_every_player_who_said_yes_lands_in_the_rematch(
    browser: Browser, live_server_url: str, viewport: dict
):
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())

    first = logged_in_page(browser, live_server_url, host.username, viewport=viewport)
    first.goto(f"{live_server_url}/games/{game.pk}/")
    first.get_by_role("button", name="Rematch", exact=True).click()
    expect(first.locator("[data-rematch]")).to_contain_text("waiting for femke")

    second = logged_in_page(browser, live_server_url, friend.username, viewport=viewport)
    second.goto(f"{live_server_url}/games/{game.pk}/")
    expect(second.locator("[data-rematch]")).to_contain_text("Ready for a rematch: hana")
    second.get_by_role("button", name="Rematch", exact=True).click()
    rematch = Game.objects.get(rematch_of=game)
    expect(second).to_have_url(re.compile(rf"/games/{rematch.pk}/$"))
    # The first to accept is taken there too, at once, and is at the table (not stood in for).
    expect(first).to_have_url(re.compile(rf"/games/{rematch.pk}/$"))
    expect(first.locator("#scoresheet")).to_be_visible()
    expect(first.locator('#game [data-action="roll"]')).to_be_attached()


# -- defect 9: spectators ----------------------------------------------------------------------------


def test_spectators_see_the_game_without_controls(browser: Browser, live_server_url: str, viewport: dict):
    host, friend, watcher = (
        UserFactory(username="hana"),
        UserFactory(username="femke"),
        UserFactory(username="wim"),
    )
    befriend(host, friend)
    befriend(watcher, host)
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    page = logged_in_page(browser, live_server_url, watcher.username, viewport=viewport)
    page.goto(f"{live_server_url}/games/{game.pk}/")
    expect(page.locator("[data-spectator]")).to_be_visible()
    expect(page.locator('#game [data-action="roll"], #game [data-action="confirm"]')).to_have_count(0)
    expect(page.locator("#hints")).to_be_hidden()
    # The game goes on live in front of them.
    player = logged_in_page(
        browser, live_server_url, current(game.pk).player.user.username, viewport=viewport
    )
    assert act_elsewhere(player, live_server_url, game.pk, "roll") == 200
    expect(die(page, 1)).to_have_attribute("data-value", re.compile(r"^[1-6]$"))


def test_a_lost_or_late_answer_in_a_solo_game_is_made_good(
    browser: Browser, live_server_url: str, viewport: dict
):
    """No socket here: the page alone must notice that an answer is missing, fetch the board afresh, and
    take the next tap."""
    user = UserFactory(username="lotte")
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    game_id = start_solo(page, live_server_url)
    page.evaluate("htmx.config.timeout = 1500")
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("1")
    settled(page)

    def answer_lost(route: Route) -> None:
        with contextlib.suppress(PlaywrightError):
            route.fetch()
            route.abort("connectionreset")

    page.route(re.compile(r"/games/\d+/hold/"), answer_lost)
    die(page, 3).click()
    expect(die(page, 3)).to_have_attribute("aria-pressed", "true")  # the server's board, fetched afresh
    settled(page)
    page.unroute(re.compile(r"/games/\d+/hold/"))
    converged(page, game_id)

    def late(route: Route) -> None:
        with contextlib.suppress(PlaywrightError):  # the page may be gone by then
            page.wait_for_timeout(2500)  # the page stops waiting at 1.5 s
            route.continue_()

    page.route(re.compile(r"/games/\d+/roll/"), late)
    roll_button(page).click()
    settled(page)
    page.unroute(re.compile(r"/games/\d+/roll/"))
    converged(page, game_id)
    # Taps work again at once.
    die(page, 1).click()
    expect(die(page, 1)).to_have_attribute("aria-pressed", "true")
    converged(page, game_id)
    assert current(game_id).held[0] is True


# -- defect 9: a full room's link, a removed player ---------------------------------------------------


def test_a_full_rooms_link_offers_only_watching(browser: Browser, live_server_url: str, viewport: dict):
    host, friend, stranger = (
        UserFactory(username="hana"),
        UserFactory(username="femke"),
        UserFactory(username="sam"),
    )
    befriend(host, friend)
    room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    page = logged_in_page(browser, live_server_url, stranger.username, viewport=viewport)
    page.goto(f"{live_server_url}/games/join/{room.invite_token}/")
    expect(page.locator("[data-room-full]")).to_contain_text("This room is full")
    expect(page.get_by_role("button", name="Take a seat")).to_have_count(0)
    page.locator("[data-watch-link]").click()
    expect(page.locator("#lobby")).to_be_visible()
    expect(page.get_by_role("button", name="Take a seat")).to_have_count(0)


def test_a_removed_player_is_told_on_their_screen(browser: Browser, live_server_url: str, viewport: dict):
    host, joiner = UserFactory(username="hana"), UserFactory(username="sam")
    room = rooms.room_create(actor=actor(host), seats=3, turn_seconds=0)
    rooms.room_join_by_link(token=room.invite_token, actor=actor(joiner))
    page = logged_in_page(browser, live_server_url, joiner.username, viewport=viewport)
    page.goto(f"{live_server_url}/games/{room.pk}/")
    expect(page.locator("#lobby")).to_contain_text("sam")
    # The host frees the seat from their own screen (through the live server, so the push is real).
    host_page = logged_in_page(browser, live_server_url, host.username, viewport=viewport)
    host_page.goto(f"{live_server_url}/games/{room.pk}/")
    host_page.get_by_role("button", name="Free the seat of sam").click()
    expect(host_page.locator("#lobby")).not_to_contain_text("sam")
    expect(page.locator("#messages")).to_contain_text("The host removed you from this room.")


def test_stepping_through_a_review_adds_no_history_entries(
    browser: Browser, live_server_url: str, viewport: dict
):
    """Back leaves the review at once, however many decisions were stepped through (the address follows
    the step in place)."""
    user = UserFactory(username="rita")
    game = make_game([user, "hard"])
    page = logged_in_page(browser, live_server_url, user.username, viewport=viewport)
    page.goto(f"{live_server_url}/games/")
    page.goto(f"{live_server_url}/games/{game.pk}/review/")
    for step in (1, 2, 3):
        page.locator('#replay [data-replay="next"]').click()
        expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    expect(page).to_have_url(re.compile(r"\?step=3$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/games/$"))
