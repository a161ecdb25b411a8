"""Compressed answers and pushes: gzip for HTML answers over HTTP (GZipMiddleware), permessage-deflate
for the sockets of `python -m penta.server` (daphne with compression accepted); a client that
asks for neither gets the same content uncompressed."""

import asyncio
import gzip
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import websockets
from autobahn.websocket.compress import PerMessageDeflateOffer
from django.conf import settings
from django.db import connection
from django.test import override_settings
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory, PerMessageDeflate

from dicegame import play
from dicegame.actors import Actor
from dicegame.play import rooms
from penta.server import (
    CLIENT_WINDOW_BITS,
    WINDOW_BITS,
    CompressingServer,
    FormUnparsedRequest,
    LeanPerMessageDeflate,
    accept_deflate,
)
from tests.support import HX, ROOT
from tests.support.factories import UserFactory, session_cookie
from tests.support.servers import free_port

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
ASGI_APP = "penta.asgi:application"

# A push-like text: the scoresheet's rows, repetitive as the real ones are (about 10 KB).
PUSH_LIKE = "".join(
    f'<tr class="box-row"><th scope="row"><button type="button" data-box="BOX{i}" class="box">Box {i}'
    f'</button></th><td class="filled" data-score="{i * 3}">{i * 3}</td><td class="open"></td></tr>\n'
    for i in range(60)
)


# -- HTTP: gzip ---------------------------------------------------------------------------------------

_bodies: list[bytes] = []


def capture_body(get_response):
    """Placed right below GZipMiddleware in a test: records each body as it was before compression."""

    def middleware(request):
        response = get_response(request)
        _bodies.append(response.content)
        return response

    return middleware


def middleware_with_capture() -> list[str]:
    stack = list(settings.MIDDLEWARE)
    stack.insert(stack.index("django.middleware.gzip.GZipMiddleware") + 1, f"{__name__}.capture_body")
    return stack


def assert_gzipped_as(response, body: bytes) -> None:
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    assert int(response["Content-Length"]) == len(response.content) < len(body) / 3
    assert response.content[3] & gzip.FNAME  # Heal The Breach: random bytes in the name field
    assert gzip.decompress(response.content) == body


@pytest.mark.django_db
def test_a_page_is_gzipped_for_a_client_that_accepts_it(client):
    _bodies.clear()
    with override_settings(MIDDLEWARE=middleware_with_capture()):
        response = client.post("/games/solo/", follow=True, **GZIP)
    assert response.status_code == 200
    page = _bodies[-1]
    assert b'id="scoresheet"' in page and b"</html>" in page
    assert_gzipped_as(response, page)


@pytest.mark.django_db
def test_an_htmx_answer_is_gzipped_for_a_client_that_accepts_it(user_client, user):
    game = play.game_create_solo(actor=Actor(user_id=user.pk, name=user.username))
    _bodies.clear()
    with override_settings(MIDDLEWARE=middleware_with_capture()):
        response = user_client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, **HX, **GZIP)
    assert response.status_code == 200
    answer = _bodies[-1]
    assert re.search(rb'id="dice-tray"[^>]*hx-swap-oob="morph"', answer) and b"<html" not in answer
    assert_gzipped_as(response, answer)


@pytest.mark.django_db
def test_without_accept_encoding_the_answer_is_plain_but_varies(user_client, user):
    game = play.game_create_solo(actor=Actor(user_id=user.pk, name=user.username))
    response = user_client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, **HX)
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert "Accept-Encoding" in response["Vary"]  # a cache must keep both versions apart
    assert b'id="dice-tray"' in response.content


@pytest.mark.django_db
def test_small_answers_are_left_alone(user_client, user, client):
    game = play.game_create_solo(actor=Actor(user_id=user.pk, name=user.username))
    # A plain form post: a redirect with an empty body.
    response = user_client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, **GZIP)
    assert response.status_code == 302 and len(response.content) < 200
    assert not response.has_header("Content-Encoding")
    assert "Accept-Encoding" not in response.get("Vary", "")
    # The health check: "ok".
    response = client.get("/healthz/", **GZIP)
    assert response.content == b"ok" and not response.has_header("Content-Encoding")


# -- WebSocket: permessage-deflate ----------------------------------------------------------------------


def start_server(env: dict, log_path: Path, app: str = ASGI_APP) -> tuple[subprocess.Popen, int]:
    """`python -m penta.server` on a free port, its output in log_path; returns once it listens."""
    port = free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "penta.server", *("-b", "127.0.0.1", "-p", str(port)), app],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}:\n{log_path.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not listen within 60 s:\n{log_path.read_text()}")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def server_env(**extra: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PENTA_USE_TEST_DB"}
    return {**env, "DJANGO_SETTINGS_MODULE": "penta.settings_test", **extra}


def this_database_url() -> str:
    """The database this test runs on, by its actual name (pytest-xdist adds a suffix to it)."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    return urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))


@pytest.fixture(scope="module")
def echo_server(tmp_path_factory):
    """The entry point serving the benchmarks' application, for its echo route (ws/echo/), which needs no
    database."""
    log = tmp_path_factory.mktemp("echo-server") / "server.log"
    process, port = start_server(server_env(PENTA_CLOCK_IN_WEB="false"), log, app="bench.asgi:application")
    try:
        yield port
    finally:
        stop_server(process)


async def counting_client(port: int, path: str, **kwargs):
    """A `websockets` client that counts the bytes it receives (frames as they came over the wire)."""

    ws = await websockets.connect(
        f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}", open_timeout=10, **kwargs
    )
    ws.wire_bytes = 0
    receive_data = ws.protocol.receive_data

    def counting(data):
        ws.wire_bytes += len(data)
        return receive_data(data)

    ws.protocol.receive_data = counting
    return ws


async def echo_round_trips(ws, messages: list[str]) -> int:
    """Each message comes back unchanged; returns the bytes received on the wire for all of them."""
    before = ws.wire_bytes
    for message in messages:
        await ws.send(message)
        assert await asyncio.wait_for(ws.recv(), timeout=10) == message
    return ws.wire_bytes - before


def test_a_client_offering_deflate_gets_it_and_messages_round_trip(echo_server):

    async def run():
        ws = await counting_client(
            echo_server, "/ws/echo/"
        )  # the websockets client offers deflate by default
        try:
            header = ws.response.headers["Sec-WebSocket-Extensions"]
            window = f"client_max_window_bits={CLIENT_WINDOW_BITS}"
            assert header == f"permessage-deflate; client_no_context_takeover; {window}"
            [extension] = ws.protocol.extensions
            assert isinstance(extension, PerMessageDeflate)
            # Several messages on one socket: each is compressed afresh (no context kept between them).
            pushes = [PUSH_LIKE, PUSH_LIKE.replace("Box 7", "Box seven"), PUSH_LIKE]
            wire = await echo_round_trips(ws, pushes)
            assert wire < sum(len(p) for p in pushes) / 4
            # Small frames and non-ASCII text too.
            await echo_round_trips(ws, ["{}", '{"action": "ping"}', "Dobbelsteen: één, twee, drie ⚀⚁⚂"])
        finally:
            await ws.close()

    asyncio.run(run())


def test_a_client_not_offering_deflate_gets_plain_frames(echo_server):
    async def run():
        ws = await counting_client(echo_server, "/ws/echo/", compression=None)
        try:
            assert "Sec-WebSocket-Extensions" not in ws.response.headers
            assert ws.protocol.extensions == []
            wire = await echo_round_trips(ws, [PUSH_LIKE, "{}"])
            assert wire >= len(PUSH_LIKE) + 2
        finally:
            await ws.close()

    asyncio.run(run())


def test_the_server_window_never_exceeds_what_the_client_asks(echo_server):

    async def run():
        offer = ClientPerMessageDeflateFactory(server_max_window_bits=10, server_no_context_takeover=True)
        ws = await counting_client(echo_server, "/ws/echo/", extensions=[offer], compression=None)
        try:
            header = ws.response.headers["Sec-WebSocket-Extensions"]
            assert "server_max_window_bits=10" in header and "server_no_context_takeover" in header
            wire = await echo_round_trips(ws, [PUSH_LIKE, PUSH_LIKE])
            assert wire < 2 * len(PUSH_LIKE) / 4
        finally:
            await ws.close()

    asyncio.run(run())


@pytest.mark.django_db(transaction=True)
def test_a_real_push_reaches_a_player_compressed(tmp_path):
    """A live game through the entry point: the board and a roll's push arrive deflated and whole."""
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    a, b = Actor(user_id=host.pk, name="hana"), Actor(user_id=friend.pk, name="femke")
    game = rooms.room_create(actor=a, seats=2, turn_seconds=0)
    rooms.room_join_by_link(token=game.invite_token, actor=b)
    rooms.room_start(game_id=game.pk, actor=a)
    cookie = session_cookie(host)
    process, port = start_server(
        server_env(DATABASE_URL=this_database_url(), PENTA_CLOCK_IN_WEB="false"), tmp_path / "log"
    )

    async def until(ws, pattern: str) -> str:
        deadline = time.monotonic() + 15
        while True:
            frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            if re.search(pattern, frame, re.S):
                return frame

    async def run():
        ws = await counting_client(port, f"/ws/games/{game.pk}/", additional_headers={"Cookie": cookie})
        try:
            assert ws.response.headers["Sec-WebSocket-Extensions"].startswith("permessage-deflate")
            board = await until(ws, 'id="dice-tray"')
            before = ws.wire_bytes
            await ws.send(json.dumps({"action": "roll", "turn": 1, "roll": 0}))
            push = await until(ws, r'data-die="1" data-value="[1-6]"')
            assert 'id="scoresheet"' in push
            assert ws.wire_bytes - before < len(push.encode()) / 3
            return board, push
        finally:
            await ws.close()

    try:
        board, push = asyncio.run(run())
    finally:
        time.sleep(0.5)  # let the server finish the socket's disconnect before it is told to stop
        stop_server(process)
    assert len(push.encode()) > 2000


# -- the accept policy and the lean extension, in this process -------------------------------------------


def test_the_accept_takes_a_bare_offer_with_small_fresh_contexts():
    accept = accept_deflate([PerMessageDeflateOffer.parse({})])  # "permessage-deflate", as Firefox offers
    assert accept.get_extension_string() == "permessage-deflate; client_no_context_takeover"
    assert accept.no_context_takeover is True
    assert accept.window_bits == WINDOW_BITS and accept.mem_level == 5
    assert accept_deflate([]) is None


def test_the_lean_extension_lets_each_context_go_and_stays_decodable():
    pmce = LeanPerMessageDeflate(True, True, True, WINDOW_BITS, CLIENT_WINDOW_BITS, 5)
    # A client that keeps its context between messages still decodes every message.
    client_inflate = zlib.decompressobj(-15)
    for text in (PUSH_LIKE, PUSH_LIKE[:500], PUSH_LIKE):
        pmce.start_compress_message()
        data = pmce.compress_message_data(text.encode()) + pmce.end_compress_message()
        assert pmce._compressor is None
        assert client_inflate.decompress(data + b"\x00\x00\xff\xff") == text.encode()
    # What the client sends, each message compressed on its own (client_no_context_takeover).
    for text in ('{"action": "roll", "turn": 1, "roll": 0}', PUSH_LIKE):
        deflate = zlib.compressobj(-1, zlib.DEFLATED, -CLIENT_WINDOW_BITS)
        data = (deflate.compress(text.encode()) + deflate.flush(zlib.Z_SYNC_FLUSH))[:-4]
        pmce.start_decompress_message()
        assert pmce.decompress_message_data(data) == text.encode()
        pmce.end_decompress_message()
        assert pmce._decompressor is None


def test_the_server_leaves_a_forms_body_to_django():
    """Twisted would parse a posted form into `request.args` (through the e-mail package's header
    parser) for daphne, which never reads them: the server's requests skip it, and the body stays whole
    for Django."""
    from daphne.http_protocol import HTTPFactory
    from twisted.internet.address import IPv4Address
    from twisted.internet.testing import StringTransport

    server = CompressingServer(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])
    server.connections = {}
    server.http_factory = HTTPFactory(server)  # as Server.run() does
    protocol = server.http_factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 1))
    assert protocol.requestFactory is FormUnparsedRequest
    protocol.makeConnection(StringTransport())
    request = protocol.requestFactory(protocol._channel)
    assert request._parsePOSTFormSubmission is False
    body = b"turn=3&roll=1"
    request.content = io.BytesIO(body)
    request.requestHeaders.setRawHeaders(b"content-type", [b"application/x-www-form-urlencoded"])
    request.requestHeaders.setRawHeaders(b"content-length", [str(len(body)).encode()])
    request.process = lambda: None  # daphne's own hands the request to the application
    request.requestReceived(b"POST", b"/games/1/roll/", b"HTTP/1.1")
    assert request.args == {}
    assert request.content.read() == body
