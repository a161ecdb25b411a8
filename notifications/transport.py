"""One POST to a push service, done by hand so that nothing in it can be stretched:

- the host is resolved once and every address checked (`endpoints.addresses`); the socket connects to
  a checked address, and TLS (SNI, certificate) is verified against the endpoint's host name, so a DNS
  answer that changes between the check and the connection (rebinding) changes nothing;
- one wall-clock deadline covers it all: the lookup, the connection, the handshake, the request and the
  answer. Before each step the socket's timeout is set to what is left of it, and each step waits at
  most that long (a TLS read or handshake counts its timeout from its start in CPython's _ssl, so
  records dribbled a byte at a time do not restart it), so a service that answers a byte a second is
  cut off at the deadline;
- only the status line is read, from at most READ_CAP bytes, then the connection is closed: an answer
  of any size costs at most that much memory;
- a redirect (3xx) is an answer like any other: it is never followed.
"""

from __future__ import annotations

import functools
import re
import socket
import ssl
import time

from django.conf import settings

from notifications import endpoints
from notifications.endpoints import Endpoint

READ_CAP = 4096  # what is read of an answer, at most
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9])(?: [^\r\n]*)?")


class ProtocolError(OSError):
    """The push service's answer is not one HTTP/1.1 can read."""


def post(endpoint: Endpoint, body: bytes, headers: dict[str, str], *, timeout: float) -> int:
    """POST `body` to the endpoint within `timeout` seconds in all; returns the answer's status.
    Raises endpoints.EndpointRefused (an address not allowed: nothing was sent), TimeoutError, or
    another OSError (not found, refused, reset, a bad certificate, a garbled answer)."""
    deadline = time.monotonic() + timeout
    sock = _connect(endpoint, deadline)
    try:
        if endpoint.scheme == "https":
            sock = _tls(sock, endpoint.host, deadline)
        _send(sock, _request(endpoint, body, headers), deadline)
        return _status(sock, deadline)
    finally:
        sock.close()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the push service did not answer within the push's deadline")
    return left


def _connect(endpoint: Endpoint, deadline: float) -> socket.socket:
    """A connection to the first checked address that takes it."""
    failure: OSError | None = None
    for address in endpoints.addresses(endpoint, deadline):
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(_left(deadline))
            sock.connect((address, endpoint.port))
            return sock
        except TimeoutError:
            sock.close()
            raise
        except OSError as exc:
            sock.close()
            failure = exc
    raise failure or OSError(f"no address to connect to for {endpoint.host}")


@functools.cache
def _context(ca_bundle: str) -> ssl.SSLContext:
    """The system's trusted CAs (PENTA_PUSH_CA_BUNDLE: a file of the tests' own instead)."""
    return ssl.create_default_context(cafile=ca_bundle or None)


def _tls(sock: socket.socket, host: str, deadline: float) -> ssl.SSLSocket:
    tls = _context(settings.PENTA_PUSH_CA_BUNDLE).wrap_socket(
        sock, server_hostname=host, do_handshake_on_connect=False
    )
    tls.settimeout(_left(deadline))
    tls.do_handshake()
    return tls


def _request(endpoint: Endpoint, body: bytes, headers: dict[str, str]) -> bytes:
    if any(c in value for value in headers.values() for c in "\r\n"):
        raise ValueError("a header value with a line break")
    lines = [
        f"POST {endpoint.target} HTTP/1.1",
        f"Host: {endpoint.host_header}",
        "User-Agent: Penta",
        "Connection: close",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        sock.settimeout(_left(deadline))
        view = view[sock.send(view) :]


def _status(sock: socket.socket, deadline: float) -> int:
    """The answer's status, from its first READ_CAP bytes at most (interim 1xx answers skipped)."""
    buffer = bytearray()
    read = 0
    while True:
        end = buffer.find(b"\r\n")
        if end >= 0:
            line = STATUS_LINE.fullmatch(bytes(buffer[:end]))
            if line is None:
                raise ProtocolError("the push service's answer is not HTTP/1.1")
            status = int(line.group(1))
            if status >= 200:
                return status
            head_end = buffer.find(b"\r\n\r\n")
            if head_end >= 0:
                del buffer[: head_end + 4]
                continue
        if read >= READ_CAP:
            raise ProtocolError(f"no status in the first {READ_CAP} bytes of the answer")
        sock.settimeout(_left(deadline))
        chunk = sock.recv(READ_CAP - read)
        if not chunk:
            raise ConnectionError("the push service closed the connection without an answer")
        read += len(chunk)
        buffer += chunk
