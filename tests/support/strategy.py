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


# The win tables of the test session: small (the last layers only, built in well under a second), so
# that the computer that plays to win and its hints behave the same on every machine, whether or not
# the full tables (`build_strategy --win-tables`) were built there. Positions with three boxes or fewer
# left are judged; earlier ones fall back to the expected-total play.
SMALL_WIN_TABLES_LAYER = 11


def install_small_win_tables() -> None:
    """Build the small tables into a temporary directory and point PENTA_WIN_TABLES_PATH at them (so
    the live servers' processes, which inherit the environment, read them too)."""
    import atexit
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from dicegame.strategy import outcomes, win_tables

    folder = tempfile.mkdtemp(prefix="penta-win-tables-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = Path(folder) / "outcomes.npz"
    win_tables.save(path, outcomes.build(Strategy.load().values, min_layer=SMALL_WIN_TABLES_LAYER))
    os.environ[win_tables.ENV_VAR] = str(path)
    win_tables.shared.cache_clear()
