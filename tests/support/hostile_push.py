"""Push services that mean harm, on this machine, over https with the tests' own CA (tests/support/tls.py):
each endpoint's path says what it does once it has read the request.

- /redirect/...: 307 to `redirect_to` (another server, which must never be reached), keeping the body;
- /dribble/...: a 201 answer, one byte every `dribble_seconds`, for as long as the client listens (at
  most `dribble_for` seconds);
- /huge/...: a 201 with a body of `huge_bytes` (300 MB unless set), streamed in 1 MB writes;
- /slow/...: a 201 after `slow_seconds`;
- /interim/...: a 100 Continue, then a 201;
- /garbage/...: something that is not HTTP (what Redis or SSH would say);
- anything else: 201 at once.

It keeps when each request came and when its answer ended (`visits`)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.tls import HTTPSServer

MB = 1024 * 1024


@dataclass
class Visit:
    path: str
    came: float  # time.monotonic()
    ended: float | None = None
    sent: int = 0  # bytes of answer written
    body: bytes = field(default=b"", repr=False)


class HostilePushService:
    def __init__(self, *, host: str = "127.0.0.1") -> None:
        self.redirect_to = ""
        self.dribble_seconds = 1.0
        self.dribble_for = 60.0
        self.huge_bytes = 300 * MB
        self.slow_seconds = 3.0
        self.visits: list[Visit] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._server = HTTPSServer(("127.0.0.1", 0), self._handler())
        self.port = self._server.server_address[1]
        self.origin = f"https://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="hostile-push", daemon=True)

    def __enter__(self) -> HostilePushService:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def endpoint(self, kind: str, name: str = "device") -> str:
        return f"{self.origin}/{kind}/{name}"

    def visits_to(self, kind: str) -> list[Visit]:
        with self._lock:
            return [v for v in self.visits if v.path.startswith(f"/{kind}/")]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                visit = Visit(self.path, time.monotonic(), body=self.rfile.read(length) if length else b"")
                with service._lock:
                    service.visits.append(visit)
                kind = self.path.split("/")[1]
                try:
                    getattr(self, f"_{kind}", self._ok)(visit)
                except OSError:  # the client hung up: what it was meant to do
                    pass
                finally:
                    visit.ended = time.monotonic()
                    self.close_connection = True

            def _write(self, visit: Visit, data: bytes) -> None:
                self.wfile.write(data)
                visit.sent += len(data)

            def _ok(self, visit: Visit) -> None:
                self._write(visit, b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")

            def _redirect(self, visit: Visit) -> None:
                head = f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {service.redirect_to}\r\n"
                self._write(visit, (head + "Content-Length: 0\r\n\r\n").encode())

            def _dribble(self, visit: Visit) -> None:
                answer = b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
                until = time.monotonic() + service.dribble_for
                for byte in answer:
                    if service._stop.wait(service.dribble_seconds) or time.monotonic() > until:
                        return
                    self._write(visit, bytes([byte]))
                # The answer is whole: keep dribbling headers that never end, as a stalling server would.
                while not service._stop.wait(service.dribble_seconds) and time.monotonic() < until:
                    self._write(visit, b"X")

            def _huge(self, visit: Visit) -> None:
                head = f"HTTP/1.1 201 Created\r\nContent-Length: {service.huge_bytes}\r\n\r\n"
                self._write(visit, head.encode())
                chunk = b"x" * MB
                left = service.huge_bytes
                while left > 0 and not service._stop.is_set():
                    self._write(visit, chunk[: min(MB, left)])
                    left -= MB

            def _interim(self, visit: Visit) -> None:
                self._write(visit, b"HTTP/1.1 100 Continue\r\nX-Note: wait\r\n\r\n")
                self._ok(visit)

            def _garbage(self, visit: Visit) -> None:
                self._write(visit, b"-ERR unknown command 'POST'\r\n")

            def _slow(self, visit: Visit) -> None:
                if not service._stop.wait(service.slow_seconds):
                    self._ok(visit)

            def log_message(self, format, *args):
                pass

        return Handler
