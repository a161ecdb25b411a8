"""What the tests share: factories, games made and played for a test, WebSocket clients, the servers a
test starts (daphne, run_timers, PostgreSQL), and the fixtures the conftest files install."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
DATA = ROOT / "tests" / "data"  # the figures tests check against (copies of the rules' examples, ...)
