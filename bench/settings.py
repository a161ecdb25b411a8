"""The benchmarks' servers: the production settings, with the bare baselines routed (bench.urls,
bench.asgi). Never used by the site itself."""

import os

from penta.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
# The file of the board the relay baseline sends (bench.echo.RelayConsumer), written by the bench.
BENCH_RELAY_BOARD = os.environ.get("PENTA_BENCH_RELAY_BOARD", "")
