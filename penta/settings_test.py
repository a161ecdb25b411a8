"""Test settings: the production settings (DEBUG off) over plain HTTP, with a fast password hasher."""

import os

# With DEBUG off the settings refuse to load without a key, as in production: the tests bring their own
# (set in the environment, so a server process a test starts finds it too).
os.environ.setdefault("SECRET_KEY", "penta-tests-only-" + "not-a-secret-" * 4)

from penta.settings import *  # noqa: F403
from penta.settings import BASE_DIR, DATABASES

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tests run with DEBUG off; the manifest storage would need collectstatic first.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0

# A browser test's server runs in another process (daphne), so the test database must be a file
# (SQLite) or have an explicit name (PostgreSQL). The server process inherits PENTA_TEST_RUN and so
# finds the same database; concurrent test runs and xdist workers each get their own.
# Connections are not kept across requests in tests: threads of the socket tests must not hold one
# when the test database is dropped.
DATABASES["default"]["CONN_MAX_AGE"] = 0
_run = os.environ.setdefault("PENTA_TEST_RUN", str(os.getpid()))
_xdist = os.environ.get("PYTEST_XDIST_WORKER", "")
_worker = f"{_run}_{_xdist or 'main'}"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / f"test-{_run}.sqlite3")}
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_penta_{_run}"}
# pytest-django gives each xdist worker's database the worker's suffix: the name a server process of
# the tests must use.
PENTA_TEST_DATABASE_NAME = DATABASES["default"]["TEST"]["NAME"] + (f"_{_xdist}" if _xdist else "")

PENTA_AUTO_COMMIT_SECONDS = float(os.environ.get("PENTA_AUTO_COMMIT_SECONDS", "3"))

# The clock runs in the test server process only when a test asks for it (PENTA_CLOCK_IN_WEB=true in
# its environment); in the test process itself it would touch the database outside the tests.
PENTA_CLOCK_IN_WEB = os.environ.get("PENTA_CLOCK_IN_WEB", "").lower() in {"1", "true", "yes"}

# A server process started by a test (several daphne processes at once) uses the test database.
if os.environ.get("PENTA_USE_TEST_DB"):
    DATABASES["default"]["NAME"] = PENTA_TEST_DATABASE_NAME

# A shared Redis cache is never flushed by the tests (the channel layer may share its server): each run
# keeps its keys under its own prefix.
if CACHES["default"]["BACKEND"].endswith("RedisCache"):  # noqa: F405
    CACHES["default"]["KEY_PREFIX"] = f"penta-test-{_worker}"  # noqa: F405

# Several test runs (and xdist workers) may share one Redis, and their games have the same ids: each
# run's channel layer keeps to its own names, or one run's pushes would reach another's sockets.
if "CONFIG" in CHANNEL_LAYERS["default"]:  # noqa: F405
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"penta-test-{_worker}"  # noqa: F405

# The suite opens sockets by the hundred from one address, often for users with the same id again (a
# transactional test empties the tables): the limits on opening sockets are tested on their own.
PENTA_HANDSHAKE_RATE = float(os.environ.get("PENTA_HANDSHAKE_RATE", "10000"))
PENTA_HANDSHAKE_BURST = float(os.environ.get("PENTA_HANDSHAKE_BURST", "10000"))
PENTA_CONNECT_RATE = float(os.environ.get("PENTA_CONNECT_RATE", "10000"))
PENTA_CONNECT_BURST = float(os.environ.get("PENTA_CONNECT_BURST", "10000"))
# Likewise the suite signs up many accounts from the one address of the test client (and a browser
# test's server keeps its counts for the whole run): the sign-up limit is tested on its own, with the
# production value.
PENTA_SIGNUPS_PER_ADDRESS = int(os.environ.get("PENTA_SIGNUPS_PER_ADDRESS", "10000"))

# Some tests race 20 threads of requests against each other, each holding a connection at once.
if "pool" in DATABASES["default"].get("OPTIONS", {}):
    DATABASES["default"]["OPTIONS"]["pool"]["max_size"] = int(os.environ.get("PENTA_DB_POOL_MAX", "30"))

# Web Push in the tests: a key pair of the run's own, and the tests' push services on this machine
# (loopback, which production never allows; the tests of that refusal turn this off), whose https
# certificates a CA of the tests' own signs (tests/support/tls.py makes both on first use).
PENTA_VAPID_GENERATE = True
PENTA_VAPID_KEY_FILE = str(BASE_DIR / "var" / "vapid-test.pem")
PENTA_PUSH_ALLOW_LOOPBACK = True
PENTA_PUSH_CA_BUNDLE = str(BASE_DIR / "var" / "test-tls" / "ca.pem")
