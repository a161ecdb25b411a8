"""How much one socket, and one person, may ask of a server process.

Every message a socket receives first takes a token from two buckets: the socket's own, and its
person's (all of that person's sockets on this process together), before it is even parsed. Without a
token the message is dropped unread; the socket is told so by an error frame (at most one a second),
and a socket that goes on sending `PENTA_SOCKET_ABUSE_LIMIT` refused messages in a row is closed
with CLOSE_FLOODING. A person playing at human speed never comes near the limits.

The buckets live in this process's memory: a token bucket is a rate, and a rate is per process. The
caps on open sockets, which need every process's count, are in `presence`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings

CLOSE_FLOODING = 4429
ERROR_FRAME_INTERVAL = 1.0  # seconds between two "slow down" frames to one socket


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
    refused_in_a_row: int = 0
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
                self.refused_in_a_row = 0
                return ALLOW
            self.bucket.tokens += 1.0
        self.refused_in_a_row += 1
        if self.refused_in_a_row >= settings.PENTA_SOCKET_ABUSE_LIMIT:
            return CLOSE
        if now - self.last_told >= ERROR_FRAME_INTERVAL:
            self.last_told = now
            return TELL
        return DROP

    def release(self) -> None:
        self._shared.sockets -= 1
        if self._shared.sockets <= 0 and _people.get(self.identity) is self._shared:
            del _people[self.identity]
