"""The floor under a live action, for `bench/live_games.py`: the relay.

K pairs of sockets at the games' pace. The sending socket of a pair is on one daphne process, the
receiving one on the other; every frame the sender sends makes the server publish a real game's board
(the HTML of its `#game`, as big as a push) through the channel layer to the receiver's process, which
writes it to the receiving socket, compressed as the game's pushes are (`bench.echo.RelayConsumer`). No
database, no template, no game: what a live action costs above this is the game's own work.

One sample is the time from the sender's frame to the receiver's socket getting the board; the CPU per
message is the daphne processes' CPU over the phase divided by the messages relayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

GAME_SECTION_RE = re.compile(r"<section\b[^>]*\bid=\"game\".*</section>", re.DOTALL)
TIMEOUT = 5.0


def board_of(page_html: str) -> str:
    """The `#game` section of a game page (from its opening tag to the last section's end)."""
    match = GAME_SECTION_RE.search(page_html)
    if not match:
        raise RuntimeError('the game page has no <section id="game">')
    return match.group(0)


def write_board(path: Path, page_html: str) -> int:
    board = board_of(page_html)
    path.write_text(board)
    return len(board.encode())


@dataclass
class RelayFigures:
    k: int
    samples: list[float] = field(default_factory=list)  # ms
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu: dict = field(default_factory=dict)


def merged(first: RelayFigures, second: RelayFigures) -> RelayFigures:
    """Two relay runs at the same K as one: their samples and failures together, their seconds and CPU
    added (a number, or a list of numbers per process, per meter)."""
    cpu: dict = {}
    for key in first.cpu.keys() | second.cpu.keys():
        a, b = first.cpu.get(key), second.cpu.get(key)
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            cpu[key] = [x + y for x, y in zip(a, b, strict=True)]
        elif isinstance(a, int | float) and isinstance(b, int | float):
            cpu[key] = a + b
    return RelayFigures(
        first.k,
        samples=first.samples + second.samples,
        failures=first.failures + second.failures,
        seconds=first.seconds + second.seconds,
        cpu=cpu,
    )


class Pair:
    def __init__(self, index: int, sender, receiver):
        self.index = index
        self.sender = sender
        self.receiver = receiver
        self.waiting: dict[str, asyncio.Future] = {}
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.receiver:
                if isinstance(frame, bytes):
                    frame = frame.decode(errors="replace")
                tail = frame.rsplit("<!--", 1)[-1].removesuffix("-->")
                fut = self.waiting.pop(tail, None)
                if fut is not None and not fut.done():
                    fut.set_result(time.perf_counter())

    async def send(self, seq: int) -> float:
        token = f"{self.index}/{seq}"
        fut = asyncio.get_running_loop().create_future()
        self.waiting[token] = fut
        sent = time.perf_counter()
        await self.sender.send(token)
        try:
            arrived = await asyncio.wait_for(fut, TIMEOUT)
        finally:
            self.waiting.pop(token, None)
        return (arrived - sent) * 1000

    async def close(self) -> None:
        for ws in (self.sender, self.receiver):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 5)
        self.task.cancel()


async def run_relay(
    *,
    k: int,
    ports: list[int],
    open_socket: Callable[[str, int], Awaitable],
    think: tuple[float, float],
    seconds: float,
    begin: Callable[[], dict],
    end: Callable[[dict], dict],
    tag: str,
    rng: random.Random,
) -> RelayFigures:
    """K pairs relaying for `seconds`, each sender after a think time drawn from `think`."""
    figures = RelayFigures(k)
    limit = asyncio.Semaphore(8)
    host = "127.0.0.1"

    async def open_pair(i: int) -> Pair:
        async with limit:
            send_port, receive_port = ports[0], ports[1 % len(ports)]
            base = f"ws://{host}:{{port}}/ws/relay/{tag}-{i}"
            receiver = await open_socket(f"{base.format(port=receive_port)}/receive/", receive_port)
            sender = await open_socket(f"{base.format(port=send_port)}/send/", send_port)
            return Pair(i, sender, receiver)

    pairs = await asyncio.gather(*(open_pair(i) for i in range(k)))
    try:
        # Every receiver has joined its group before the clock starts (one message each, unmeasured).
        await asyncio.gather(*(p.send(0) for p in pairs))
        before = begin()
        start = time.perf_counter()
        deadline = start + seconds
        low, high = think

        async def relay(pair: Pair, prng: random.Random) -> None:
            await asyncio.sleep(prng.uniform(0, high))
            seq = 0
            while True:
                await asyncio.sleep(prng.uniform(low, high))
                if time.perf_counter() >= deadline:
                    return
                seq += 1
                try:
                    figures.samples.append(await pair.send(seq))
                except Exception as exc:
                    figures.failures.append(f"relay pair {pair.index}: {exc!r}")
                    return

        await asyncio.gather(*(relay(p, random.Random(rng.random())) for p in pairs))
        figures.seconds = time.perf_counter() - start
        figures.cpu = end(before)
    finally:
        await asyncio.gather(*(p.close() for p in pairs), return_exceptions=True)
    return figures
