"""What the tests share: factories, games made and played for a test, WebSocket clients, the servers a
test starts (daphne, run_timers, PostgreSQL), and the fixtures the conftest files install."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
DATA = ROOT / "tests" / "data"  # the figures tests check against (copies of the rules' examples, ...)
HX = {"HTTP_HX_REQUEST": "true"}  # a request as htmx sends it (the views answer with regions)
ORIGIN = (b"origin", b"http://localhost")  # a socket's Origin header that AllowedHostsOriginValidator lets in
