"""The documented proxy (issue 22, item 21): nginx with the repository's own configuration
(deploy/nginx/penta.conf, only its ports and paths changed) in front of two daphne processes run as
production runs them (`python -m penta.server --proxy-headers`, the clock in `run_timers`), and a whole
live game between two people through it: pages, htmx posts with their CSRF token, the game sockets and
the notice sockets, round-robin over both processes. The client address the limits count by is the
connection's, never an X-Forwarded-For the client sent. nginx configured as the README used to say
(no `proxy_set_header Host`) answered every request with 400: shown too.

Needs nginx (Debian's nginx-light: skipped without it, failed in CI) and a shared channel layer (REDIS_URL,
as the daphne processes do)."""

from __future__ import annotations

import asyncio
import re
import ssl
from urllib.parse import urlsplit

import pytest
import requests
import websockets
from requests.adapters import HTTPAdapter

from dicegame.models import Game, Turn
from feedback.models import Report
from live.models import Connection
from tests.support import ROOT
from tests.support.daphne_servers import (
    Screen,
    box_for,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    in_db,
    no_tracebacks,
)
from tests.support.factories import PASSWORD, UserFactory, befriend
from tests.support.nginx import SHIPPED, Nginx

pytestmark = pytest.mark.django_db(transaction=True)

# The client's own address: loopback, but not nginx's (127.0.0.1), so the test tells them apart.
CLIENT = "127.0.0.2"
SPOOFED = "203.0.113.9"
VERSION = re.compile(r'id="game-status"[^>]*data-version="(\d+)"')


class FromAddress(HTTPAdapter):
    """Connections from a given local address."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


class Visitor:
    """A browser's HTTP side through the proxy: its cookies, and on every post the CSRF token in the
    header (as the page's hx-headers give htmx) and the page's origin."""

    def __init__(self, proxy: Nginx, address: str = CLIENT):
        self.proxy = proxy
        self.session = requests.Session()
        self.session.trust_env = False  # the test's own certificate, straight to the loopback
        self.session.verify = str(proxy.certificate)
        self.session.mount("https://", FromAddress(address))
        self.session.mount("http://", FromAddress(address))

    def get(self, path: str, **options) -> requests.Response:
        return self.session.get(self.proxy.https_url(path), allow_redirects=False, timeout=30, **options)

    def post(
        self, path: str, data: dict | None = None, *, htmx: bool = True, headers=None
    ) -> requests.Response:
        sent = {"Origin": self.proxy.origin, "X-CSRFToken": self.session.cookies.get("csrftoken", "")}
        if htmx:
            sent["HX-Request"] = "true"
        sent.update(headers or {})
        url = self.proxy.https_url(path)
        return self.session.post(url, data=data or {}, headers=sent, allow_redirects=False, timeout=30)

    def log_in(self, username: str) -> None:
        assert self.get("/accounts/login/").status_code == 200  # the CSRF cookie
        token = self.session.cookies["csrftoken"]
        form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        answer = self.post("/accounts/login/", form, htmx=False)
        assert answer.status_code == 302, answer.text[:500]
        assert "sessionid" in self.session.cookies

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.session.cookies)


async def socket(proxy: Nginx, path: str, visitor: Visitor | None, name: str, **headers) -> Screen:
    """A socket through the proxy, as the page opens it (its origin, its cookies), from CLIENT."""
    context = ssl.create_default_context(cafile=str(proxy.certificate))
    if visitor is not None:
        headers["Cookie"] = visitor.cookie
    ws = await websockets.connect(
        proxy.wss_url(path),
        ssl=context,
        origin=proxy.origin,
        additional_headers=headers,
        local_addr=(CLIENT, 0),
        open_timeout=20,
        ping_interval=None,
        max_size=None,
    )
    return Screen(ws, name=name)


def open_turn(game_id: int) -> Turn | None:
    return Turn.objects.filter(game_id=game_id, completed_at__isnull=True).select_related("player").first()


def version_of(html: str) -> int:
    return int(VERSION.search(html).group(1))


async def http(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


def test_a_live_game_plays_through_the_shipped_nginx_configuration(daphne_servers, tmp_path):
    web = daphne_servers.daphne(2, clock="process", proxy_headers=True)
    proxy = Nginx.start(tmp_path / "nginx", [server.port for server in web])
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    befriend(ann, bob)
    try:
        asyncio.run(play_a_game(proxy, ann, bob))
        guests_are_counted_by_their_own_address(proxy)
    finally:
        proxy.stop()
    # Round-robin over both processes; every answer was one the game meant (no 400 for the Host, no 5xx).
    assert proxy.upstreams_used() == {server.port for server in web}
    refused = [line for line in proxy.access_log() if proxy.status_of(line) >= 400 and "/metrics" not in line]
    assert len(proxy.access_log()) > 50 and refused == []
    for server in daphne_servers.started:
        no_tracebacks(server)


async def play_a_game(proxy: Nginx, ann, bob) -> None:
    hosts, guests = Visitor(proxy), Visitor(proxy)
    await http(hosts.log_in, "ann")
    await http(guests.log_in, "bob")
    # The plain-HTTP port sends everyone to HTTPS.
    redirect = await http(hosts.session.get, proxy.http_url("/"), allow_redirects=False, timeout=30)
    assert redirect.status_code == 301 and redirect.headers["Location"].startswith("https://")
    # A room, by the home page's form (no htmx).
    assert (await http(hosts.get, "/")).status_code == 200
    made = await http(hosts.post, "/games/friends/", {"seats": 2, "turn_seconds": 60}, htmx=False)
    assert made.status_code == 302, made.text[:500]
    game_id = int(re.fullmatch(r"/games/(\d+)/", urlsplit(made.headers["Location"]).path).group(1))
    notices = {
        "ann": await socket(proxy, "/ws/notifications/", hosts, "ann's notices"),
        "bob": await socket(proxy, "/ws/notifications/", guests, "bob's notices"),
    }
    boards = {"ann": await socket(proxy, f"/ws/games/{game_id}/", hosts, "ann's board")}
    try:
        # The invitation reaches bob's notice socket; he accepts it, his board opens, ann starts.
        assert (await http(hosts.post, f"/games/{game_id}/invite/", {"username": "bob"})).status_code == 200
        await notices["bob"].frame_matching("invites you to a game", timeout=15)
        assert (await http(guests.get, f"/games/{game_id}/")).status_code == 200
        assert (await http(guests.post, f"/games/{game_id}/invitation/accept/")).status_code == 200
        boards["bob"] = await socket(proxy, f"/ws/games/{game_id}/", guests, "bob's board")
        assert (await http(hosts.post, f"/games/{game_id}/start/")).status_code == 200
        for board in boards.values():
            await board.until(lambda b=board: b.turn == 1, 15, "the first turn")
        visitors = {"ann": hosts, "bob": guests}
        # The whole game: ann plays by htmx posts, bob by his socket and his posts.
        while True:
            turn = await in_db(open_turn, game_id)
            if turn is None:
                break
            mover = "ann" if turn.player.user_id == ann.pk else "bob"
            other = "bob" if mover == "ann" else "ann"
            before = boards[other].version
            if mover == "bob":
                await boards["bob"].send({"action": "roll", "turn": turn.number, "roll": 0})
            else:
                rolled = await http(hosts.post, f"/games/{game_id}/roll/", {"turn": turn.number, "roll": 0})
                assert rolled.status_code == 200 and version_of(rolled.text) > before
            await boards[other].version_above(before, timeout=15)
            box = await in_db(box_for, game_id, turn.number)
            fields = {"turn": turn.number, "roll": 1, "confirm_zero": 1}
            chosen = await http(visitors[mover].post, f"/games/{game_id}/choose/{box}/", fields)
            assert chosen.status_code == 200, chosen.text[:500]
            before = boards[other].version
            fields = {"turn": turn.number, "roll": 1}
            confirmed = await http(visitors[mover].post, f"/games/{game_id}/confirm/", fields)
            assert confirmed.status_code == 200, confirmed.text[:500]  # the last one: an HX-Redirect
            await boards[other].version_above(before, timeout=15)
        game = await in_db(Game.objects.get, pk=game_id)
        assert game.is_finished
        for board in boards.values():
            await board.frame_matching('data-status="finished"', timeout=15)
            assert not board.errors, board.errors
        for visitor in visitors.values():
            assert (await http(visitor.get, f"/games/{game_id}/")).status_code == 200
        # Operators' metrics are never answered through the proxy.
        assert (await http(hosts.get, "/metrics")).status_code == 404
    finally:
        for screen in [*boards.values(), *notices.values()]:
            await screen.close()


def guests_are_counted_by_their_own_address(proxy: Nginx) -> None:
    """A problem report and a spectator's socket count against the client's address as nginx saw it
    (the first address of X-Forwarded-For, which nginx overwrites), not one the client claimed."""
    guest = Visitor(proxy)
    assert guest.get("/report/").status_code == 200
    form = {"message": "the dice look odd", "csrfmiddlewaretoken": guest.session.cookies["csrftoken"]}
    sent = guest.post("/report/", form, htmx=False, headers={"X-Forwarded-For": SPOOFED})
    assert sent.status_code == 302, sent.text[:500]
    assert Report.objects.get().client_address == CLIENT
    game = Game.objects.get()

    async def watch() -> str:
        path = f"/ws/games/{game.pk}/?t={game.invite_token}"
        screen = await socket(proxy, path, None, "a guest", **{"X-Forwarded-For": SPOOFED})
        try:
            await screen.until(lambda: screen.count, 15, "the board")
            return await in_db(lambda: Connection.objects.get(identity__startswith="ip:").identity)
        finally:
            await screen.close()

    assert asyncio.run(watch()) == f"ip:{CLIENT}"


def test_without_the_host_header_every_request_was_refused(daphne_servers, tmp_path):
    """The README's proxy before this file: nginx sent `Host: penta` (its upstream's name) and Django
    answered 400 to everything. The shipped file's `proxy_set_header Host $http_host;` is what fixes it."""
    line = "        proxy_set_header Host $http_host;\n"
    assert line in SHIPPED.read_text()
    (web,) = daphne_servers.daphne(1, clock="none", proxy_headers=True)
    proxy = Nginx.start(tmp_path / "nginx", [web.port], edit=lambda text: text.replace(line, ""))
    try:
        assert Visitor(proxy).get("/").status_code == 400
    finally:
        proxy.stop()


def test_the_docs_link_the_shipped_configuration_and_quote_it_truly():
    """docs/deployment.md links the file rather than quoting it whole; every proxy directive the docs do
    quote is in the file as written."""
    deployment = (ROOT / "docs" / "deployment.md").read_text()
    assert "deploy/nginx/penta.conf" in deployment
    shipped = SHIPPED.read_text()
    quoted = {
        directive
        for doc in ("deployment.md", "security.md")
        for directive in re.findall(r"proxy_set_header [^`]*?;", (ROOT / "docs" / doc).read_text())
    }
    assert "proxy_set_header Host $http_host;" in quoted
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in quoted
    assert all(directive in shipped for directive in quoted)
