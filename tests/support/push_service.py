"""Web Push for a test, with no mock in between: a push service on this machine (http.server in a thread
on 127.0.0.1, over plain http or, with tls=True, over https with the tests' own CA: tests/support/tls.py)
that keeps every request it gets and answers the status the test asks for, the browser's
side of a subscription (its key pair and auth secret, the only things that can read a message), and the
check a real push service makes of the VAPID token that signs each request (RFC 8292)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.support.tls import HTTPSServer


def b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: Message  # case-insensitive, as HTTP headers are
    body: bytes
    at: float = 0.0  # time.monotonic() when it came


class PushService:
    """A push service for the test's browsers: `endpoint(name)` is a device's push address on it;
    `answer(endpoint, 500)` makes its next request fail (the statuses are used up in order, then
    `status`, 201 unless set). `host`: the name or address its endpoints are written with."""

    def __init__(self, *, tls: bool = False, host: str = "127.0.0.1") -> None:
        self.status = 201
        self.received: list[Received] = []
        self._planned: dict[str, deque[int]] = {}
        self._lock = threading.Lock()
        server_class = HTTPSServer if tls else ThreadingHTTPServer
        self._server = server_class(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.origin = f"{'https' if tls else 'http'}://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="push-service", daemon=True)

    def __enter__(self) -> PushService:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def answer(self, endpoint: str, *statuses: int) -> None:
        with self._lock:
            self._planned.setdefault(self._path(endpoint), deque()).extend(statuses)

    def received_at(self, endpoint: str) -> list[Received]:
        path = self._path(endpoint)
        with self._lock:
            return [r for r in self.received if r.path == path]

    def _path(self, endpoint: str) -> str:
        return endpoint.removeprefix(self.origin)

    def _take(self, request: Received) -> int:
        with self._lock:
            self.received.append(request)
            planned = self._planned.get(request.path)
            return planned.popleft() if planned else self.status

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = Received(self.command, self.path, self.headers, body, time.monotonic())
                status = service._take(received)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET = do_PUT = do_DELETE = _record

            def log_message(self, format, *args):  # the test's output is for the test
                pass

        return Handler


class BrowserSubscription:
    """What a browser hands the site when it subscribes: its push endpoint, the public half of a fresh
    P-256 key pair (p256dh) and an auth secret; the private half stays here and decrypts the messages."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    @property
    def p256dh(self) -> str:
        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url_encode(raw)

    @property
    def auth(self) -> str:
        return b64url_encode(self.auth_secret)

    def as_json(self) -> dict:
        """As PushSubscription.toJSON() in the browser."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}

    def decrypt(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm"
        )
        return json.loads(plain)


@dataclass(frozen=True)
class VapidToken:
    header: dict
    claims: dict
    key: str  # the server's public key, as in k= (base64url of the uncompressed point)


def verify_vapid(authorization: str) -> VapidToken:
    """The Authorization header `vapid t=<JWT>, k=<key>`, its ES256 signature checked with the key it
    names (cryptography raises InvalidSignature for a forged or altered token)."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    token, key = fields["t"], fields["k"]
    header_b64, claims_b64, signature_b64 = token.split(".")
    signature = b64url_decode(signature_b64)
    assert len(signature) == 64, "an ES256 JWT signature is r||s, 32 bytes each"
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(key))
    public_key.verify(
        encode_dss_signature(r, s), f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256())
    )
    return VapidToken(
        header=json.loads(b64url_decode(header_b64)), claims=json.loads(b64url_decode(claims_b64)), key=key
    )
