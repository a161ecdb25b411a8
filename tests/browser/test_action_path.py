"""Which way a player's action travels (docs/live-play.md): on the game's socket while it is open, with
the POST's fields; as htmx's POST while it is down; the same refusal at the board either way.

The network is watched as Playwright sees it: every request the page makes and every frame its sockets
send."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from dicegame.models import Game
from tests.browser.pages import (
    act_elsewhere,
    confirm_button,
    converged,
    die,
    logged_in_page,
    roll_button,
    rolls_field,
    settled,
    turn_field,
)
from tests.support.games import current, two_player_game

pytestmark = pytest.mark.django_db(transaction=True)

ACTION_URL = re.compile(r"/games/\d+/(roll|hold/\d|choose/[A-Z_]+|confirm|hurry|take-back)/$")


class Network:
    """The actions a page sent: its POSTs to an action's address, and its game socket's frames."""

    def __init__(self, page: Page):
        self.posts: list[str] = []
        self.frames: list[dict] = []
        page.on("request", self._request)
        page.on("websocket", self._socket)

    def _request(self, request) -> None:
        if request.method == "POST" and ACTION_URL.search(request.url):
            self.posts.append(request.url)

    def _socket(self, ws) -> None:
        if "/ws/games/" in ws.url:
            ws.on("framesent", self._frame)

    def _frame(self, payload) -> None:
        frame = json.loads(payload)
        if frame.get("action") not in ("sync", "ping"):
            self.frames.append(frame)


def live_page(browser: Browser, base: str, username: str, game_id: int) -> tuple[Page, Network]:
    page = logged_in_page(browser, base, username)
    network = Network(page)
    page.goto(f"{base}/games/{game_id}/")
    expect(page.locator("#game[data-live]")).to_be_attached()  # its socket is open
    return page, network


def test_a_live_turn_travels_on_the_socket_with_the_posts_fields(browser: Browser, live_server_url: str):
    game, host, friend = two_player_game()
    hana, hana_net = live_page(browser, live_server_url, host.username, game.pk)
    femke, femke_net = live_page(browser, live_server_url, friend.username, game.pk)

    roll_button(hana).click()
    expect(rolls_field(hana)).to_have_value("1")
    expect(die(femke, 1)).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    settled(hana)
    die(hana, 2).click()
    expect(die(femke, 2)).to_have_attribute("aria-pressed", "true")
    settled(hana)
    expect(hana.locator("#game[data-roll-cooling]")).to_have_count(0)
    roll_button(hana).click()
    expect(rolls_field(hana)).to_have_value("2")
    settled(hana)
    box = hana.locator("#scoresheet button.box-button:not([disabled]):not([data-asks-zero])").first
    name = box.get_attribute("data-box")
    box.click()
    expect(femke.locator(f'#scoresheet tr.chosen button[data-box="{name}"]')).to_be_attached()
    settled(hana)
    confirm_button(hana).click()
    expect(turn_field(femke)).to_have_value("2")
    expect(roll_button(femke)).to_be_enabled()
    converged(hana, game.pk)

    # Five actions, five frames, no POST; each frame the fields of its POST, and an id of its own.
    assert hana_net.posts == []
    assert [f["action"] for f in hana_net.frames] == ["roll", "hold", "roll", "choose", "confirm"]
    assert hana_net.frames[0] == {"action": "roll", "turn": 1, "roll": 0, "id": 1}
    assert hana_net.frames[1] == {"action": "hold", "die": 2, "turn": 1, "roll": 1, "id": 2}
    assert hana_net.frames[3] == {"action": "choose", "box": name, "turn": 1, "roll": 2, "id": 4}
    assert hana_net.frames[4] == {"action": "confirm", "turn": 1, "roll": 2, "id": 5}
    assert femke_net.posts == [] and femke_net.frames == []
    turn = Game.objects.get(pk=game.pk).turns.get(number=1)
    assert turn.completed_at is not None and turn.box == name and turn.rolls_used == 2


class Route:
    """The page's game socket through Playwright: passed on, cut off from the server's frames, or down
    (closed as a restarting server closes it, so the page tries again later)."""

    def __init__(self, page: Page):
        self.down = False
        self.deaf = False  # the server's frames are lost on the way
        self.lost: list[str] = []
        self.routes: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r"/ws/games/"), self._route)

    def _route(self, ws: WebSocketRoute) -> None:
        if self.down:
            ws.close(code=1012)
            return
        server = ws.connect_to_server()

        def to_page(message) -> None:
            if self.deaf:
                self.lost.append(message)
            else:
                ws.send(message)

        server.on_message(to_page)
        self.routes.append(ws)

    def go_down(self) -> None:
        self.down = True
        self.routes[-1].close(code=1012)


def test_a_refusal_on_the_socket_is_shown_at_the_board_as_a_409(browser: Browser, live_server_url: str):
    game, host, friend = two_player_game()
    hana = logged_in_page(browser, live_server_url, host.username)
    network = Network(hana)
    route = Route(hana)
    hana.goto(f"{live_server_url}/games/{game.pk}/")
    expect(hana.locator("#game[data-live]")).to_be_attached()
    roll_button(hana).click()
    expect(rolls_field(hana)).to_have_value("1")
    settled(hana)
    # The same player rolls again from another device, and its push is lost on the way: the page shows
    # the first roll still when die 3 is tapped.
    route.deaf = True
    assert act_elsewhere(hana, live_server_url, game.pk, "roll") == 200
    version = str(Game.objects.get(pk=game.pk).version)
    for _ in range(100):
        if any(f'data-version="{version}"' in frame for frame in route.lost):
            break
        hana.wait_for_timeout(50)
    route.deaf = False
    die(hana, 3).click()
    refusal = hana.locator("#messages [role=alert]")
    expect(refusal).to_contain_text("The game moved on since this page was shown")
    # The board is the server's now, as a 409's answer brings it, and the page takes the next tap.
    expect(rolls_field(hana)).to_have_value("2")
    settled(hana)
    die(hana, 4).click()
    expect(die(hana, 4)).to_have_attribute("aria-pressed", "true")
    # The message went with the next action's answer, as after a POST.
    expect(refusal).to_have_count(0)
    converged(hana, game.pk)
    assert network.posts == []
    assert [f["action"] for f in network.frames] == ["roll", "hold", "hold"]
    assert current(game.pk).held == [False, False, False, True, False]


def test_the_page_falls_back_to_the_post_while_its_socket_is_down(browser: Browser, live_server_url: str):
    game, host, friend = two_player_game()
    hana = logged_in_page(browser, live_server_url, host.username)
    network = Network(hana)
    route = Route(hana)
    hana.goto(f"{live_server_url}/games/{game.pk}/")
    expect(hana.locator("#game[data-live]")).to_be_attached()
    femke, _ = live_page(browser, live_server_url, friend.username, game.pk)

    route.go_down()
    expect(hana.locator("#game[data-live]")).to_have_count(0)
    roll_button(hana).click()
    expect(rolls_field(hana)).to_have_value("1")
    settled(hana)
    die(hana, 1).click()
    expect(die(hana, 1)).to_have_attribute("aria-pressed", "true")
    settled(hana)
    assert [url.rsplit("/", 3)[-3:-1] for url in network.posts] == [[str(game.pk), "roll"], ["hold", "1"]]
    assert network.frames == []
    # The other screen gets them as pushes all the same.
    expect(die(femke, 1)).to_have_attribute("aria-pressed", "true")

    # Back up: the page asks for the board afresh, and sends on the socket again.
    route.down = False
    expect(hana.locator("#game[data-live]")).to_be_attached(timeout=90_000)
    settled(hana)
    die(hana, 2).click()
    expect(die(hana, 2)).to_have_attribute("aria-pressed", "true")
    converged(hana, game.pk)
    assert len(network.posts) == 2
    assert network.frames == [{"action": "hold", "die": 2, "turn": 1, "roll": 1, "id": 1}]


def test_a_tap_before_the_socket_is_open_is_a_post(browser: Browser, live_server_url: str):
    """Not open yet (here: never, its server restarting): the page's tap does not wait for the socket."""
    game, host, friend = two_player_game()
    hana = logged_in_page(browser, live_server_url, host.username)
    network = Network(hana)
    Route(hana).down = True
    hana.goto(f"{live_server_url}/games/{game.pk}/")
    roll_button(hana).click()
    expect(rolls_field(hana)).to_have_value("1")
    assert len(network.posts) == 1 and network.posts[0].endswith("/roll/")
    assert network.frames == []
