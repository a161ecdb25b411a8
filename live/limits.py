"""How much one socket, and one person, may ask of a server process.

Every message a socket receives first takes a token from two buckets: the socket's own, and its
person's (all of that person's sockets on this process together), before it is even parsed. Without a
token the message is dropped unread; the socket is told so by an error frame (at most one a second),
and a socket whose refusals pile up to `PENTA_SOCKET_ABUSE_LIMIT` (each forgotten after about a
second) is closed with CLOSE_FLOODING. A game page's action (its frame begins as the page writes it,
`{"action": "roll"...`) over the rate is not dropped but waits for its tokens, up to ACTION_PATIENCE:
the page sends one action at a time, so a person tapping faster than the rate is slowed, never
refused, and a client that floods actions is served at the rate while TCP holds the rest back
(`PENTA_SOCKET_QUEUE`). Opening sockets is limited too, per person: a client that reconnects as fast
as it is closed is refused before any database work.

The buckets live in this process's memory: a token bucket is a rate, and a rate is per process. The
caps on open sockets, which need every process's count, are in `presence`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings

CLOSE_FLOODING = 4429
ERROR_FRAME_INTERVAL = 1.0  # seconds between two "slow down" frames to one socket
# At most this long an action waits for its tokens (beyond it, it is dropped as any other message).
ACTION_PATIENCE = 1.0


class TokenBucket:
    """`rate` tokens a second, at most `burst` kept."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float | None = None):
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: now), taking none."""
        tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate if self.rate > 0 else float("inf")


@dataclass
class _Shared:
    bucket: TokenBucket
    sockets: int = 0


_people: dict[str, _Shared] = {}

ALLOW, DROP, TELL, CLOSE = "allow", "drop", "tell", "close"


@dataclass
class SocketLimiter:
    """The limits of one socket; `release()` when it closes."""

    identity: str
    bucket: TokenBucket = field(init=False)
    # Refusals, forgotten at one a second: a socket that keeps going over the rate (not one burst too
    # many) reaches PENTA_SOCKET_ABUSE_LIMIT and is closed. Refusals "in a row" would never get there:
    # the bucket lets one message through now and then.
    refusals: float = 0.0
    refusals_stamp: float = 0.0
    last_told: float = float("-inf")

    def __post_init__(self):
        self.bucket = TokenBucket(settings.PENTA_SOCKET_RATE, settings.PENTA_SOCKET_BURST)
        shared = _people.get(self.identity)
        if shared is None:
            shared = _people[self.identity] = _Shared(
                TokenBucket(settings.PENTA_PERSON_RATE, settings.PENTA_PERSON_BURST)
            )
        shared.sockets += 1
        self._shared = shared

    def check(self, now: float | None = None) -> str:
        """ALLOW the message; or DROP it silently, TELL the socket it was dropped, CLOSE the socket."""
        now = time.monotonic() if now is None else now
        # Both buckets pay only for a message they both allow.
        if self.bucket.take(now):
            if self._shared.bucket.take(now):
                return ALLOW
            self.bucket.tokens += 1.0
        self.refusals = max(0.0, self.refusals - max(0.0, now - self.refusals_stamp)) + 1.0
        self.refusals_stamp = now
        if self.refusals >= settings.PENTA_SOCKET_ABUSE_LIMIT:
            return CLOSE
        if now - self.last_told >= ERROR_FRAME_INTERVAL:
            self.last_told = now
            return TELL
        return DROP

    def wait(self, now: float | None = None) -> float:
        """Seconds until both buckets hold a token (0: now)."""
        now = time.monotonic() if now is None else now
        return max(self.bucket.wait(now), self._shared.bucket.wait(now))

    def release(self) -> None:
        self._shared.sockets -= 1
        if self._shared.sockets <= 0 and _people.get(self.identity) is self._shared:
            del _people[self.identity]


_connects: dict[str, TokenBucket] = {}


def connect_allowed(identity: str, now: float | None = None) -> bool:
    """May this person open another socket now (`PENTA_CONNECT_RATE` a second, a burst of
    `PENTA_CONNECT_BURST`: a page load opens two, a reload two more)?"""
    bucket = _connects.get(identity)
    if bucket is None:
        if len(_connects) > 10_000:  # forget the oldest people; their buckets were full again anyway
            for key in list(_connects)[:5_000]:
                del _connects[key]
        bucket = _connects[identity] = TokenBucket(
            settings.PENTA_CONNECT_RATE, settings.PENTA_CONNECT_BURST, now
        )
    return bucket.take(now)


class HandshakeLimit:
    """ASGI middleware for the sockets: an address opening sockets faster than `PENTA_HANDSHAKE_RATE` a
    second (a burst of `PENTA_HANDSHAKE_BURST`: a school behind one address loads its pages at once) is
    refused at the handshake, before the session is read: a client reconnecting in a loop costs a
    refusal, not a database query."""

    def __init__(self, app):
        self.app = app
        self.buckets: dict[str, TokenBucket] = {}

    async def __call__(self, scope, receive, send):
        address = (scope.get("client") or ("?",))[0]
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) > 10_000:
                for key in list(self.buckets)[:5_000]:
                    del self.buckets[key]
            bucket = self.buckets[address] = TokenBucket(
                settings.PENTA_HANDSHAKE_RATE, settings.PENTA_HANDSHAKE_BURST
            )
        if not bucket.take():
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": CLOSE_FLOODING})
            return
        await self.app(scope, receive, send)
