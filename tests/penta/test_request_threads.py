"""The web process's HTTP handler (penta.request_threads): a request's middleware and view run in one
call on one of a few long-lived threads, which keep their database connection for the next request."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from asgiref.testing import ApplicationCommunicator
from django.test import override_settings

from penta.request_threads import ThreadedASGIHandler
from tests.penta import request_threads_urls as views

URLS = override_settings(ROOT_URLCONF="tests.penta.request_threads_urls", ALLOWED_HOSTS=["testserver"])


def scope(path: str) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


async def get(app, path: str, timeout: float = 10) -> dict:
    """The JSON the view answered, through the whole ASGI handler."""
    talk = ApplicationCommunicator(app, scope(path))
    await talk.send_input({"type": "http.request", "body": b""})
    start = await talk.receive_output(timeout)
    assert start["type"] == "http.response.start" and start["status"] == 200, start
    body = b""
    while True:
        message = await talk.receive_output(timeout)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await talk.wait(timeout)
    return json.loads(body)


async def waiting_requests(app, count: int, *, inside: int) -> list[asyncio.Task]:
    """`count` requests to the view that waits for the gate, once `inside` of them are in it."""
    views.gate.clear()
    views.inside.update(now=0, most=0)
    requests = [asyncio.create_task(get(app, "/wait/")) for _ in range(count)]
    for _ in range(100):
        await asyncio.sleep(0.01)
        if views.inside["now"] == inside:
            break
    return requests


@pytest.mark.asyncio
@URLS
async def test_requests_one_after_another_run_on_the_same_thread_with_the_same_connection():
    app = ThreadedASGIHandler(threads=4)
    first = await get(app, "/where/")
    for _ in range(5):
        again = await get(app, "/where/")
        assert again == first  # the warm thread (last given back, first lent) and its connection object
    assert first["thread"] != threading.get_ident()  # not the event loop's thread


@pytest.mark.asyncio
@URLS
async def test_no_more_requests_work_at_once_than_the_threads_and_the_others_wait_their_turn():
    app = ThreadedASGIHandler(threads=2)
    requests = await waiting_requests(app, 5, inside=2)
    await asyncio.sleep(0.1)
    assert views.inside["now"] == 2  # three wait for a thread
    views.gate.set()
    answers = await asyncio.gather(*requests)
    assert views.inside["most"] == 2
    assert len({a["thread"] for a in answers}) == 2
    assert len(app._idle) == 2 and not app._waiting


@pytest.mark.asyncio
@URLS
async def test_a_request_cancelled_while_waiting_for_a_thread_leaves_the_threads_to_the_others():
    app = ThreadedASGIHandler(threads=1)
    (busy,) = await waiting_requests(app, 1, inside=1)
    # As daphne does when the client goes away: the application's task is cancelled.
    never = asyncio.Event()

    async def receive():
        await never.wait()

    async def send(message):
        pass

    waiting = asyncio.create_task(app(scope("/where/"), receive, send))
    await asyncio.sleep(0.05)
    assert len(app._waiting) == 1
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not app._waiting
    views.gate.set()
    await busy
    assert len(app._idle) == 1
    await get(app, "/where/")  # the one thread serves the next request


@pytest.mark.asyncio
@URLS
async def test_the_middleware_and_the_view_run_in_one_call_on_the_borrowed_thread():
    """Built for sync, as under WSGI: no middleware runs on the event loop, so a request crosses to its
    thread once instead of out and back for each async-capable middleware and the rendering."""
    app = ThreadedASGIHandler(threads=1)
    assert not asyncio.iscoroutinefunction(app._middleware_chain)
    crossings = []
    original = app.get_response

    def counted(request):
        crossings.append(threading.get_ident())
        return original(request)

    app.get_response = counted
    answer = await get(app, "/where/")
    assert crossings == [answer["thread"]]


def test_at_least_one_thread():
    with pytest.raises(ValueError):
        ThreadedASGIHandler(threads=0)
