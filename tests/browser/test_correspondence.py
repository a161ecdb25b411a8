"""Correspondence games as people play them, and the installable app.

Two friends in a game with a day a move: the header's "Your turn" count and the home page's list of
games waiting follow each move live, over the notice socket, without a reload; the game page that waits
for the other player offers the viewer's next game waiting. And Penta as an app: its manifest and icons,
the service worker that controls every page, and the offline page it shows when the network is gone."""

from __future__ import annotations

import re
import struct

import pytest
from playwright.sync_api import Browser, WebSocketRoute, expect

from tests.browser.pages import (
    LAPTOP,
    choose_box,
    confirm_button,
    correspondence_game,
    expect_waiting_count,
    logged_in_page,
    manifest_link,
    new_page,
    next_game_link,
    notice_sockets,
    open_with_notices,
    play_my_turn,
    roll,
    service_worker_controller,
    service_worker_ready,
    service_worker_scope,
    settled,
    turn_field,
    wait_for_notice_socket,
    waiting_count,
    waiting_entry,
    waiting_list,
)
from tests.support.factories import UserFactory, befriend

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_games_waiting_follow_each_move_live(browser: Browser, live_server_url: str, viewport: dict):
    hana, femke, ines = (UserFactory(username=name) for name in ("hana", "femke", "ines"))
    befriend(hana, femke)
    befriend(femke, ines)
    game = correspondence_game(hana, femke)  # hana hosts: she moves first
    game_url = f"/games/{game.pk}/"

    # femke's home page: nothing waits for her yet.
    femke_home = logged_in_page(browser, live_server_url, "femke", viewport=viewport)
    open_with_notices(femke_home, f"{live_server_url}/", femke)
    expect(waiting_count(femke_home)).to_be_visible()
    expect_waiting_count(femke_home, 0)
    expect(waiting_list(femke_home).locator("[data-waiting-none]")).to_have_text(
        "No game is waiting for your move."
    )
    expect(waiting_list(femke_home).locator("li")).to_have_count(0)

    # hana opens the game (it waits for her) and plays her first turn with the page's buttons.
    hana_game = logged_in_page(browser, live_server_url, "hana", viewport=viewport)
    open_with_notices(hana_game, live_server_url + game_url, hana)
    expect_waiting_count(hana_game, 1)
    play_my_turn(hana_game, 1)
    # Her count, on her page, drops to 0 once her move is written.
    expect_waiting_count(hana_game, 0)

    # femke's page, never reloaded: the header counts the game and the list shows it, with its time.
    expect_waiting_count(femke_home, 1)
    entry = waiting_entry(femke_home, game.pk)
    expect(entry).to_have_count(1)
    expect(entry.get_by_role("link")).to_have_attribute("href", game_url)
    expect(entry.get_by_role("link")).to_have_text("Against hana")
    # A day a move: due at this time tomorrow, as a person says it.
    expect(entry.locator("time[data-time-left]")).to_have_text(re.compile(r"^\s*by \d\d:\d\d tomorrow\s*$"))
    expect(entry.locator("time[data-time-left]")).to_have_attribute("datetime", re.compile(r"^\d{4}-"))
    expect(waiting_list(femke_home).locator("[data-waiting-none]")).to_have_count(0)

    # hana keeps her home page open in another tab of her browser.
    hana_home = hana_game.context.new_page()
    open_with_notices(hana_home, f"{live_server_url}/", hana)
    expect_waiting_count(hana_home, 0)
    expect(waiting_list(hana_home).locator("[data-waiting-none]")).to_be_visible()

    # Meanwhile femke has started another correspondence game, against ines: she moves first there too.
    other = correspondence_game(femke, ines)

    # femke follows the link in her list and plays her turn.
    known = notice_sockets(femke)
    entry.get_by_role("link").click()
    expect(femke_home).to_have_url(live_server_url + game_url)
    wait_for_notice_socket(femke_home, femke, known)
    femke_game = femke_home
    expect_waiting_count(femke_game, 2)
    # Her turn here: the page offers no other game.
    expect(femke_game.locator("#next-game")).to_be_attached()
    expect(next_game_link(femke_game)).to_have_count(0)
    play_my_turn(femke_game, 2)

    # hana's home page, never reloaded: the game waits for her again.
    expect_waiting_count(hana_home, 1)
    expect(waiting_entry(hana_home, game.pk).get_by_role("link")).to_have_attribute("href", game_url)
    expect(waiting_list(hana_home).locator("[data-waiting-none]")).to_have_count(0)
    # Her game page's header counts it too.
    expect_waiting_count(hana_game, 1)

    # femke's game now waits for hana, and her other game waits for her: her header counts it, and her
    # game page, not reloaded, offers it (whichever came first, the answer to her Confirm or the game
    # socket's push of the same move; the next test makes the push come first).
    expect_waiting_count(femke_game, 1)
    expect(next_game_link(femke_game)).to_have_attribute("data-next-game", str(other.pk))
    expect(next_game_link(femke_game)).to_have_attribute("href", f"/games/{other.pk}/")
    expect(femke_game.locator("#next-game")).to_contain_text("Your turn against ines too")
    next_game_link(femke_game).click()
    expect(femke_game).to_have_url(f"{live_server_url}/games/{other.pk}/")


def test_the_next_game_is_offered_when_the_push_came_first(browser: Browser, live_server_url: str):
    femke, hana, ines = (UserFactory(username=name) for name in ("femke", "hana", "ines"))
    befriend(femke, hana)
    befriend(femke, ines)
    # femke moves first in both games; the second one waits for her while she plays the first.
    game = correspondence_game(femke, hana)
    other = correspondence_game(femke, ines)
    page = logged_in_page(browser, live_server_url, "femke")
    # The answer to her Confirm (on the game socket, as her actions travel) is held back until the push
    # of the same move has shown it: the push brings the board, the answer her next game.
    held: list = []
    holding = {"on": False}

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message) -> None:
            if holding["on"] and 'data-answer="' in message[:200]:
                held.append(message)
            else:
                ws.send(message)

        server.on_message(to_page)
        held.append(ws)

    page.route_web_socket(re.compile(rf"/ws/games/{game.pk}/"), route)
    open_with_notices(page, f"{live_server_url}/games/{game.pk}/", femke)
    expect(page.locator("#game[data-live]")).to_be_attached()
    expect_waiting_count(page, 2)
    expect(next_game_link(page)).to_have_count(0)
    roll(page)
    choose_box(page)

    holding["on"] = True
    confirm_button(page).click()
    expect(turn_field(page)).to_have_value("2")
    expect(page.locator(".turn-line")).to_contain_text("hana")
    expect_waiting_count(page, 1)
    expect(next_game_link(page)).to_have_count(0)  # no push carries it: it is femke's alone
    socket, answer = held
    assert "data-next-game" in answer
    socket.send(answer)

    # The answer comes after the board it answers for, and still offers the next game: the game waits for
    # hana now, and the other game for femke.
    expect(next_game_link(page)).to_have_attribute("data-next-game", str(other.pk))
    expect(next_game_link(page)).to_have_attribute("href", f"/games/{other.pk}/")
    expect(page.locator("#next-game")).to_contain_text("Your turn against ines too")
    expect(turn_field(page)).to_have_value("2")
    settled(page)


def test_penta_installs_as_an_app_and_says_when_it_is_offline(browser: Browser, live_server_url: str):
    # A context of its own (closed at the end): its service worker dies with it, no other test meets it.
    page = new_page(browser, LAPTOP)
    context = page.context
    try:
        page.goto(f"{live_server_url}/")

        # The manifest: linked from the page, JSON with the app's name, start, display and icons.
        expect(manifest_link(page)).to_have_count(1)
        href = manifest_link(page).get_attribute("href")
        assert href == "/manifest.webmanifest", href
        response = page.request.get(live_server_url + href)
        assert response.status == 200
        assert response.headers["content-type"].startswith("application/manifest+json")
        manifest = response.json()
        assert manifest["name"] == "Penta"
        assert manifest["start_url"] == "/"
        assert manifest["scope"] == "/"
        assert manifest["display"] == "standalone"
        icons = {
            icon["sizes"]: icon
            for icon in manifest["icons"]
            if icon.get("purpose", "any") == "any" and icon["type"] == "image/png"
        }
        assert set(icons) >= {"192x192", "512x512"}, manifest["icons"]
        for icon in manifest["icons"]:
            image = page.request.get(live_server_url + icon["src"])
            assert image.status == 200, icon
            assert image.headers["content-type"] == "image/png", icon
            body = image.body()
            assert body[:8] == b"\x89PNG\r\n\x1a\n", icon
            width, height = struct.unpack(">II", body[16:24])  # the PNG's IHDR
            assert f"{width}x{height}" == icon["sizes"], icon

        # The service worker registers for every page and, after a reload, controls this one.
        assert service_worker_ready(page) == f"{live_server_url}/sw.js"
        assert service_worker_scope(page) == f"{live_server_url}/"
        page.reload()
        controller = service_worker_controller(page)
        assert controller is not None
        assert controller.endswith("/sw.js"), controller

        # No network: a navigation gets the offline page, at the address asked for.
        context.set_offline(True)
        page.goto(f"{live_server_url}/games/")
        expect(page.get_by_role("heading", name="No connection")).to_be_visible()
        expect(page).to_have_url(f"{live_server_url}/games/")
        expect(page.get_by_role("link", name="Try again")).to_have_attribute("href", "/")

        # Back online: the real page again.
        context.set_offline(False)
        page.goto(f"{live_server_url}/games/")
        expect(page.get_by_role("heading", name="My games")).to_be_visible()
        expect(page.get_by_role("heading", name="No connection")).to_have_count(0)
    finally:
        context.close()
