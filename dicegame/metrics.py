"""What operators watch (Prometheus): actions by kind, the time from an action to its push written to a
socket, open sockets, how far the clock is behind its due work, notifications sent.

Each web process and the clock process count their own. With PROMETHEUS_MULTIPROC_DIR set (production:
a directory on the host, emptied before the processes start) every process writes its figures there and
any process's /metrics answer adds them all up; without it (`make run`, the tests) the process's own
are served. The endpoint itself is `penta.middleware.MetricsMiddleware`: loopback or the addresses of
PENTA_METRICS_ALLOWED only, never through the proxy."""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import REGISTRY as PROCESS_REGISTRY
from prometheus_client.multiprocess import MultiProcessCollector

ACTIONS = Counter("penta_actions", "A player's actions that the server applied, by kind", ["kind"])
REFUSED = Counter("penta_actions_refused", "A player's actions that the server refused, by kind", ["kind"])
# From the moment the server took the action to its board written to a screen's socket (every screen,
# the actor's own included), on the process that wrote it.
PUSH_SECONDS = Histogram(
    "penta_push_seconds",
    "Seconds from an action to its board written to a socket",
    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)
# Summed over the processes alive (a dead process's sockets are gone with it).
OPEN_SOCKETS = Gauge("penta_open_sockets", "Open sockets, by kind", ["kind"], multiprocess_mode="livesum")
# At each sweep: how late the oldest due auto-commit, turn timer or computer move is (0: nothing waits).
CLOCK_LAG = Gauge(
    "penta_clock_lag_seconds", "How far the clock is behind its oldest due work", multiprocess_mode="max"
)
NOTIFICATIONS = Counter(
    "penta_notifications", "Notifications sent, by channel and outcome", ["channel", "outcome"]
)


def exposition() -> tuple[bytes, str]:
    """The figures in Prometheus's text format, with its content type."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(PROCESS_REGISTRY), CONTENT_TYPE_LATEST
