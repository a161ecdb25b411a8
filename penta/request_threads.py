"""Django's ASGI handler, running each HTTP request's middleware and view in one go on one of a few
long-lived threads.

Django's own ASGI handler does two costly things for a project whose views and middleware are
synchronous, as all of Penta's are (the sockets are Channels consumers, not views):

- It runs a request's sync work in a thread made for that request (an executor of its own, shut
  down at the end). A database connection belongs to its thread, so every request opened a new one
  (SQLite: a connection and its PRAGMAs; CONN_MAX_AGE could never apply; PostgreSQL: a connection
  whose prepared statements were lost): a quarter of the process's CPU on a solo action (py-spy,
  `bench/solo_game.py`, measured when the turn flow's queries were still compiled once per connection),
  on top of starting and joining the thread.
- It builds the middleware chain for async: the middleware that are async-capable run on the event
  loop, the others in the thread, so a request crosses between the two several times (out to the
  sync middleware, back for the async ones, out for the view, back, out to render a
  TemplateResponse, back, and the same on the way out). Each crossing wakes the other side.

Here the chain is built for sync, as under WSGI, and a request's whole `get_response` (middleware,
view, rendering) is one call on a thread borrowed for the request's whole life (asgiref's
`ThreadSensitiveContext(executor=...)`: every thread-sensitive call of the request runs there), given
back when the response is sent. The thread keeps its connection (CONN_MAX_AGE on SQLite; on
PostgreSQL the pool lends and takes back as before) for the next request.
The last returned is lent first, so a quiet process keeps using the same warm thread. A request that
finds none idle waits for one: the pool bounds how many requests work at once (and so the database
connections they hold: PostgreSQL's pool, penta.settings, has at most PENTA_DB_POOL_MAX), where
before every request got a thread. Reading the body and sending the answer stay on the event loop.

This overrides ASGIHandler's undocumented `run_get_response` (and sets `_handler_class`, the
sender of `request_finished`, as Django's does): tests/test_private_names.py pins the Django version
it was checked in.

A request whose client goes away is cancelled while its view may still be running: its thread goes
back to the idle ones all the same, and runs the next request's work after the view ends (one worker
each: never two requests at once on one thread).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import FileResponse


class ThreadedASGIHandler(ASGIHandler):
    def __init__(self, threads: int):
        if threads < 1:
            raise ValueError("at least one request thread")
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{i}") for i in range(threads)
        ]
        self._waiting: list[asyncio.Future] = []  # requests waiting for a thread, first come first served

    def load_middleware(self, is_async: bool = False) -> None:
        # The chain as under WSGI: every middleware in its sync mode, the view called directly.
        super().load_middleware(is_async=False)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = await self._borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self._give_back(executor)

    async def run_get_response(self, request):
        response = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size  # as Django's: the server does the chunking
        return response

    async def _borrow(self) -> ThreadPoolExecutor:
        if self._idle and not self._waiting:
            return self._idle.pop()
        future = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._give_back(future.result())  # lent just as the waiter was cancelled
            else:
                self._waiting.remove(future)
            raise

    def _give_back(self, executor: ThreadPoolExecutor) -> None:
        while self._waiting:
            future = self._waiting.pop(0)
            if not future.done():
                future.set_result(executor)
                return
        self._idle.append(executor)


def get_asgi_application() -> ThreadedASGIHandler:
    """As django.core.asgi's: set Django up, then the handler, with PENTA_REQUEST_THREADS threads."""
    django.setup(set_prefix=False)
    from django.conf import settings

    return ThreadedASGIHandler(settings.PENTA_REQUEST_THREADS)
