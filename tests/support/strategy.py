"""The solved strategy table, once per test session.

Installed by tests/conftest.py:  from tests.support.strategy import strategy  # noqa: F401

Strategy.load() uses PENTA_STRATEGY_PATH if set, else <repo>/var/strategy/penta-strategy-v<N>.npz: the
first session builds it (a few seconds) and later sessions load it in milliseconds. Concurrent
pytest-xdist workers are safe: each writes a temporary file and moves it into place atomically.
"""

from __future__ import annotations

import pytest

from dicegame.strategy import Strategy


@pytest.fixture(scope="session")
def strategy() -> Strategy:
    return Strategy.load()
