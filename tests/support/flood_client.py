"""A flooding client, as a process of its own (so that its loop does not slow the test's clients): one
account opens every socket it can and sends a message on each as fast as it goes, opening again
whatever is closed, until SIGTERM or SIGINT. It prints one JSON line as each socket closes, and one with
everything that happened at the end.

    python -m tests.support.flood_client --cookie 'sessionid=...' --origin http://127.0.0.1:8001 \\
        --url ws://127.0.0.1:8001/ws/games/7/?t=TOKEN --count 16 \\
        --url ws://127.0.0.1:8001/ws/notifications/ --count 4 [--burst 1] [--pace 0]

Each socket sends `--burst` messages back to back, then waits `--pace` seconds, and again (1 and 0: a
tight loop, yielding to the other sockets between messages only). Needs only the `websockets` package,
not Django."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from collections import Counter

MESSAGE = json.dumps({"action": "sync"})


class Flood:
    def __init__(self, cookie: str, origin: str, burst: int, pace: float):
        self.cookie, self.origin, self.burst, self.pace = cookie, origin, burst, pace
        self.stop = asyncio.Event()
        self.closes: Counter[str] = Counter()
        self.opened = 0
        self.open_failures = 0
        self.sent = 0
        self.received = 0
        self.errors: Counter[str] = Counter()
        self.closed_after_error = 0  # closed 4429 after an error frame saying "Too many messages"
        self.first_close: dict[str, float] = {}
        self.started = time.monotonic()

    async def socket(self, url: str) -> None:
        import websockets
        from websockets.exceptions import ConnectionClosed

        while not self.stop.is_set():
            try:
                ws = await websockets.connect(
                    url,
                    origin=self.origin,
                    additional_headers={"Cookie": self.cookie},
                    open_timeout=10,
                    ping_interval=None,
                    close_timeout=1,
                    max_size=None,
                )
            except Exception:
                self.open_failures += 1
                await asyncio.sleep(0.05)
                continue
            self.opened += 1
            told = False

            async def read(ws=ws):
                nonlocal told
                with contextlib.suppress(ConnectionClosed):
                    async for frame in ws:
                        self.received += 1
                        if "Too many messages" in frame:
                            told = True
                            self.errors["Too many messages"] += 1

            reader = asyncio.create_task(read())
            try:
                while not self.stop.is_set() and not reader.done():
                    try:
                        for _ in range(self.burst):
                            await ws.send(MESSAGE)
                            self.sent += 1
                    except ConnectionClosed:
                        break
                    await asyncio.sleep(self.pace)
                if self.stop.is_set():
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(reader, 10)
                code = str(ws.close_code if ws.close_code is not None else 1006)
                print(json.dumps({"closed": code, "told": told}), flush=True)
                self.closes[code] += 1
                self.first_close.setdefault(code, round(time.monotonic() - self.started, 3))
                if code == "4429" and told:
                    self.closed_after_error += 1
                if code == "4430":
                    await asyncio.sleep(0.05)  # over the cap: try again soon
            finally:
                reader.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 2)

    def summary(self) -> dict:
        return {
            "opened": self.opened,
            "open_failures": self.open_failures,
            "sent": self.sent,
            "received": self.received,
            "closes": dict(self.closes),
            "first_close": self.first_close,
            "closed_after_error": self.closed_after_error,
            "errors": dict(self.errors),
            "seconds": round(time.monotonic() - self.started, 3),
        }


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cookie", required=True)
    parser.add_argument("--origin", required=True)
    parser.add_argument("--url", action="append", required=True)
    parser.add_argument("--count", action="append", type=int, required=True)
    parser.add_argument("--burst", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.0)
    args = parser.parse_args(argv)
    flood = Flood(args.cookie, args.origin, args.burst, args.pace)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, flood.stop.set)
    tasks = [
        asyncio.create_task(flood.socket(url))
        for url, count in zip(args.url, args.count, strict=True)
        for _ in range(count)
    ]
    print("flooding", flush=True)
    await flood.stop.wait()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 15)
    print(json.dumps(flood.summary()), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
