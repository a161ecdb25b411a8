"""What operators watch (Prometheus): actions by kind, the time from an action to its push written to a
socket and where that time went, open sockets, how far the clock is behind its due work, notifications
sent.

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
# Where that time went, for the same boards, stage by stage (the stages add up to penta_push_seconds):
#   applied  the action taken to its pushes handed to the process's courier: the game's transaction
#            and every screen's board rendered (on a socket database thread);
#   queued   handed over to sent: waiting for the event loop and for the pushes ahead in the courier;
#   transit  sent to written: through Redis to the receiving process (or straight to a socket of the
#            same one), its event loop, the socket's consumer, compression and the write.
# And once per action taken over a socket, on the process that took it:
#   waited   the frame taken by the socket's consumer to the action started on a socket database thread.
# A slow push says which of them to look at: the database (applied), a process's CPU (queued, waited)
# or the channel layer and the receiving process (transit).
PUSH_STAGE_SECONDS = Histogram(
    "penta_push_stage_seconds",
    "Seconds of an action's push spent in each stage (waited, applied, queued, transit)",
    ["stage"],
    # Fine below 30 ms, where a push's stages lie when all is well.
    buckets=tuple(ms / 1000 for ms in (0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 200, 500, 1000)),
)
# The label children, made once: these are observed for every push.
_WAITED, _APPLIED, _QUEUED, _TRANSIT = (
    PUSH_STAGE_SECONDS.labels(stage) for stage in ("waited", "applied", "queued", "transit")
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


def action_waited(received_at: float, started_at: float) -> None:
    """An action read from a socket at `received_at` (time.time()) started on a database thread."""
    _WAITED.observe(max(0.0, started_at - received_at))


def push_written(event: dict, written_at: float) -> None:
    """An action's push (`live.pushes`: `acted_at`, `handed_at`, and the courier's `sent_at`) written
    to a socket at `written_at`: its whole time and its stages."""
    acted = event["acted_at"]
    PUSH_SECONDS.observe(max(0.0, written_at - acted))
    handed, sent = event.get("handed_at"), event.get("sent_at")
    if handed is None or sent is None:  # a message from a process that does not stamp them yet
        return
    _APPLIED.observe(max(0.0, handed - acted))
    _QUEUED.observe(max(0.0, sent - handed))
    _TRANSIT.observe(max(0.0, written_at - sent))


def exposition() -> tuple[bytes, str]:
    """The figures in Prometheus's text format, with its content type."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(PROCESS_REGISTRY), CONTENT_TYPE_LATEST
