"""Benchmark: a web process's pushes leaving for Redis while its event loop is busy, one publish per
push (channels-redis's `send`, each waiting for Redis's answer: the baseline) against the courier's
backlog in one pipeline (`live.layer.LocalFirstPubSubLayer.send_many`).

One process, one event loop, the production layer on a real Redis. A few tasks keep the loop busy the
way hundreds of sockets do (each burns --busy-ms of CPU, then waits --idle-ms), and a task hands pushes
of a real push's size to the courier at --rate a second, as the actions' threads do. Each push is timed
from being handed over to Redis having taken it (its publish answered); another process's layer that
subscribes to the channel counts them all. The defaults are an overloaded process (the loop never idle:
a turn of it takes 3 ms); `--busy-tasks 2 --idle-ms 2 --rate 200` is one with time to spare. Both modes
run alternately (--rounds each), so noise on a shared machine hits both alike; the figures are the
medians and p99 over all rounds.

    .venv/bin/python bench/publish_batch.py --redis-url redis://127.0.0.1:6379/0 \\
        [--rate 300] [--busy-tasks 3 --busy-ms 1 --idle-ms 0] [--seconds 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PUSH_BYTES = 9000  # a live push's HTML (2-12 KB)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def burn(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


async def run_mode(
    mode: str, redis_url: str, rate: float, seconds: float, busy_ms: float, idle_ms: float, busy_tasks: int
):
    from core import courier
    from live.layer import LocalFirstPubSubLayer

    prefix = f"bench-publish-{os.getpid()}"
    here = LocalFirstPubSubLayer(hosts=[{"address": redis_url}], prefix=prefix)
    there = LocalFirstPubSubLayer(hosts=[{"address": redis_url}], prefix=prefix)
    theirs = await there.new_channel()
    loop = asyncio.get_running_loop()
    handed: dict[int, float] = {}
    taken: dict[int, float] = {}
    stop = asyncio.Event()

    async def one_by_one(messages):  # the baseline: what channels-redis does for each send
        for _how, where, event in messages:
            await here.send(where, event)
            taken[event["n"]] = time.perf_counter()

    async def in_one_go(messages):
        await here.send_many(messages)
        now = time.perf_counter()
        for _how, _where, event in messages:
            taken[event["n"]] = now

    outbox: asyncio.Queue = asyncio.Queue()

    async def baseline_courier():
        while True:
            await one_by_one(await outbox.get())

    class Layer:  # the courier's view of the layer: its batched send, timed
        send_many = staticmethod(in_one_go)

    async def busy():
        while not stop.is_set():
            burn(busy_ms)
            await asyncio.sleep(idle_ms / 1000)

    received = 0

    async def receive():
        nonlocal received
        while True:
            await there.receive(theirs)
            received += 1

    if mode == "baseline":
        worker = loop.create_task(baseline_courier())
        hand = lambda messages: outbox.put_nowait(messages)  # noqa: E731
    else:
        original = courier.get_channel_layer
        courier.get_channel_layer = lambda: Layer
        worker = None
        hand = courier.post
    receiver = loop.create_task(receive())
    busy_workers = [loop.create_task(busy()) for _ in range(busy_tasks)]
    payload = "x" * PUSH_BYTES

    async def producer():
        # On the loop, every push due by now at `rate` (the actions' threads hand theirs over with
        # call_soon_threadsafe: on the loop all the same).
        n, start = 0, time.perf_counter()
        while (now := time.perf_counter()) - start < seconds:
            while n < (now - start) * rate:
                handed[n] = time.perf_counter()
                hand([("send", theirs, {"type": "game.push", "n": n, "html": payload})])
                n += 1
            await asyncio.sleep(0.001)

    await producer()
    limit = time.perf_counter() + 30
    while len(taken) < len(handed) and time.perf_counter() < limit:
        await asyncio.sleep(0.01)
    while received < len(handed) and time.perf_counter() < limit:
        await asyncio.sleep(0.01)
    stop.set()
    for task in (*busy_workers, receiver, worker):
        if task is not None:
            task.cancel()
    if mode != "baseline":
        courier.get_channel_layer = original
    await here.flush()
    await there.flush()
    latencies = [(taken[n] - handed[n]) * 1000 for n in handed if n in taken]
    return latencies, len(handed), received


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--rate", type=float, default=300.0, help="pushes handed over per second")
    parser.add_argument("--seconds", type=float, default=5.0, help="per round and mode")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy-ms", type=float, default=1.0, help="CPU each busy task burns before yielding")
    parser.add_argument("--idle-ms", type=float, default=0.0, help="and then waits (on the loop's timer)")
    parser.add_argument("--busy-tasks", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings")
    os.environ.setdefault("DEBUG", "true")  # settings only: nothing is served
    import django

    django.setup()
    figures: dict[str, list[float]] = {"baseline": [], "batched": []}
    lost = {"baseline": 0, "batched": 0}
    for _round in range(args.rounds):
        for mode in ("baseline", "batched"):
            latencies, handed, received = asyncio.run(
                run_mode(
                    mode, args.redis_url, args.rate, args.seconds, args.busy_ms, args.idle_ms, args.busy_tasks
                )
            )
            figures[mode] += latencies
            lost[mode] += handed - received
    print(
        f"{args.rate:g} pushes/s of {PUSH_BYTES} bytes for {args.seconds:g} s x {args.rounds} rounds "
        "per mode, "
        f"the loop kept busy by {args.busy_tasks} tasks of {args.busy_ms:g} ms CPU, {args.idle_ms:g} ms apart"
    )
    base = figures["baseline"]
    for mode, values in figures.items():
        med, p99 = statistics.median(values), percentile(values, 0.99)
        line = f"  {mode:8s} handed over -> taken by Redis: median {med:7.2f} ms  p99 {p99:7.2f} ms"
        if mode != "baseline":
            ratios = f"x{med / statistics.median(base):.2f} and x{p99 / percentile(base, 0.99):.2f}"
            line += f"  ({ratios} the baseline's)"
        print(f"{line}  n={len(values)}  not received: {lost[mode]}")
    return 1 if any(lost.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
