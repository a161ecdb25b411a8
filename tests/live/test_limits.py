"""The pure parts of the sockets: the token buckets, and what a game socket message may be."""

import pytest

from live import limits, protocol
from live.limits import TokenBucket


def test_a_bucket_gives_its_burst_then_its_rate():
    bucket = TokenBucket(rate=2, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(0.4)  # 0.8 of a token
    assert bucket.take(0.5)  # one token a half second
    assert bucket.take(10.0) and bucket.take(10.0) and bucket.take(10.0) and not bucket.take(10.0)


def test_a_socket_over_its_rate_is_told_at_most_once_a_second_then_closed(settings):
    settings.PENTA_SOCKET_RATE, settings.PENTA_SOCKET_BURST = 1, 2
    settings.PENTA_PERSON_RATE, settings.PENTA_PERSON_BURST = 100, 100
    settings.PENTA_SOCKET_ABUSE_LIMIT = 5
    limiter = limits.SocketLimiter("user:1")
    try:
        verdicts = [limiter.check(now=t) for t in (0, 0, 0, 0.1, 0.2, 1.2, 1.3)]
        assert verdicts == ["allow", "allow", "tell", "drop", "drop", "allow", "tell"]
        assert [limiter.check(now=1.31) for _ in range(4)][-1] == "close"
    finally:
        limiter.release()


def test_a_persons_sockets_share_one_bucket(settings):
    settings.PENTA_SOCKET_RATE, settings.PENTA_SOCKET_BURST = 100, 100
    settings.PENTA_PERSON_RATE, settings.PENTA_PERSON_BURST = 1, 3
    first, second = limits.SocketLimiter("guest:x"), limits.SocketLimiter("guest:x")
    other = limits.SocketLimiter("user:2")
    try:
        assert [first.check(now=0), second.check(now=0), first.check(now=0)] == ["allow"] * 3
        assert second.check(now=0) == "tell"
        assert other.check(now=0) == "allow"  # somebody else is not slowed
    finally:
        for limiter in (first, second, other):
            limiter.release()
    assert "guest:x" not in limits._people


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"action": "roll", "turn": 3, "roll": 1}', {"action": "roll", "turn": 3, "roll": 1}),
        ('{"action": "choose", "turn": 3, "roll": 1, "box": "CHANCE", "x": 1}', None),
        ('{"action": "sync"}', {"action": "sync"}),
    ],
)
def test_good_messages_keep_only_their_fields(text, expected):
    parsed = protocol.parse(text)
    if expected is None:
        # Unknown fields go; a choice's flags are there, 0 unless sent (the zero's question not answered).
        assert parsed == {
            "action": "choose",
            "turn": 3,
            "roll": 1,
            "box": "CHANCE",
            "confirm_zero": 0,
            "write": 0,
        }
    else:
        assert parsed == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "roll", "turn": 1.0, "roll": 0}',
        '{"action": "roll", "turn": true, "roll": 0}',
        '{"action": "roll", "turn": 1e400, "roll": 0}',
        '{"action": "roll", "turn": -Infinity, "roll": 0}',
        '{"action": "roll", "turn": 2147483648, "roll": 0}',
        '{"action": 7}',
        "[]",
        "",
    ],
)
def test_bad_messages_are_refused(text):
    with pytest.raises(protocol.BadMessage):
        protocol.parse(text)


def test_binary_and_oversized_messages_are_refused_as_too_large():
    with pytest.raises(protocol.BadMessage) as binary:
        protocol.parse(None, b"{}")
    with pytest.raises(protocol.BadMessage) as large:
        protocol.parse('{"action": "sync", "pad": "' + "é" * 2100 + '"}')
    assert binary.value.status == large.value.status == 413


def test_a_person_reconnecting_in_a_loop_is_refused(settings):
    settings.PENTA_CONNECT_RATE, settings.PENTA_CONNECT_BURST = 1, 3
    assert [limits.connect_allowed("ip:9.9.9.9", now=0.0) for _ in range(4)] == [True, True, True, False]
    assert limits.connect_allowed("ip:8.8.8.8", now=0.0)  # somebody else
    assert limits.connect_allowed("ip:9.9.9.9", now=1.0)


@pytest.mark.asyncio
async def test_an_address_opening_sockets_too_fast_is_refused_at_the_handshake(settings):
    settings.PENTA_HANDSHAKE_RATE, settings.PENTA_HANDSHAKE_BURST = 0.001, 2
    reached = []

    async def app(scope, receive, send):
        reached.append(scope["client"][0])

    guard = limits.HandshakeLimit(app)
    sent = []

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)

    for address in ("1.1.1.1", "1.1.1.1", "1.1.1.1", "2.2.2.2"):
        await guard({"type": "websocket", "client": (address, 1)}, receive, send)
    assert reached == ["1.1.1.1", "1.1.1.1", "2.2.2.2"]  # the third from 1.1.1.1 never reached the app
    assert sent == [{"type": "websocket.close", "code": 4429}]
