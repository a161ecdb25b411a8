"""Settings of the daphne and run_timers processes that tests/support/daphne_servers.py starts: the test
settings (the test database with PENTA_USE_TEST_DB=1, DEBUG off over plain HTTP) with production's way
of keeping database connections. `penta.settings_test` closes every connection after each use, for the
threads of the pytest process, which must not hold one when the test database is dropped; a server
process is stopped before that, and with a new connection for every database call it would measure the
test set-up rather than the production one (opening a game socket took twice as long)."""

import os

from penta.settings_test import *  # noqa: F403
from penta.settings_test import DATABASES

# As penta.settings has it: a connection pool (PostgreSQL), which wants CONN_MAX_AGE 0, or else
# persistent connections.
if "pool" not in DATABASES["default"].get("OPTIONS", {}):
    DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))
