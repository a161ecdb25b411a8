"""Settings, read from the environment with working defaults for a developer's machine.

Defaults: SQLite file, the in-memory channel layer, DEBUG off. Production sets DATABASE_URL
(PostgreSQL), REDIS_URL (channels-redis), SECRET_KEY, ALLOWED_HOSTS; `make run` sets DEBUG=true.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        # DEBUG off is production: a server must not start on a key that everyone can read here.
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (production); for development set DEBUG=true"
        )
    # Only for development (DEBUG=true, as `make run` sets); the tests set their own key.
    SECRET_KEY = "django-insecure-penta-development-key-not-for-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "channels",
    "axes",
    # Two-factor log-in (accounts.two_factor): TOTP devices and their recovery codes.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "core",
    "accounts",
    "live",
    "dicegame",
    "analysis",
    "review",
    "feedback",
    "daily",
    "ratings",
    "winprob",
    "puzzles",
    "notifications",
    "fairplay",
    "tournaments",
    "chat",
]

MIDDLEWARE = [
    # First: /healthz/ answers before the host check and the redirect to HTTPS.
    "penta.middleware.HealthzMiddleware",
    # Then the operators' metrics, for a direct connection from an allowed address only.
    "penta.middleware.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # gzip for pages and htmx answers of 200 bytes or more, when the client accepts it. Above every
    # middleware that reads or changes the body (as Django's ordering notes ask); below WhiteNoise,
    # whose static files are compressed once by collectstatic and never pass through here. BREACH:
    # Django masks the CSRF token afresh in every response, and GZipMiddleware adds up to 100 random
    # bytes to each gzipped answer (Heal The Breach), so an answer's size makes a poor oracle.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # A NUL character anywhere in the request: 400, before anything reads the database.
    "penta.middleware.RejectNulMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Times in the person's zone (their setting, else their browser's): after the user is known.
    "penta.middleware.TimeZoneMiddleware",
    # Where the person is logged in (the sessions page): a session's row written at most every 5 min.
    "penta.middleware.SessionSeenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a refused login into the login page with its message (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "penta.urls"
WSGI_APPLICATION = "penta.wsgi.application"
ASGI_APPLICATION = "penta.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite by default; DATABASE_URL (postgres://...) selects PostgreSQL.
_sqlite_path = os.environ.get("SQLITE_PATH", str(BASE_DIR / "var" / "db.sqlite3"))
DATABASES = {
    # Persistent connections: a socket action or a clock sweep must not pay a new connection each time.
    "default": dj_database_url.config(
        default=f"sqlite:///{_sqlite_path}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    ),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's own ASGI handler runs every request in a thread of its own, and a persistent connection
    # stays with its thread: a busy daphne process opened one connection per request until PostgreSQL
    # refused more ("too many clients"). Requests now run on a few long-lived threads
    # (penta.request_threads), but the sockets' and the clock's database work run elsewhere: a pool per
    # process bounds them all (psycopg_pool; CONN_MAX_AGE must be 0), and a request that finds it empty
    # waits for a connection instead of failing.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False  # the pool checks a connection before lending it
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "connect_timeout": 5,  # an unreachable database fails a sweep fast; the clock retries
            # Parameters sent apart from the SQL (psycopg's server-side binding, not Django's default
            # client-side quoting), so a statement run again is prepared once per connection, after
            # 5 runs (Django turns psycopg's preparing off unless asked: it would break a pooler in
            # transaction mode, which this set-up does not use): PostgreSQL neither parses nor plans it
            # again. A live action's statements cost the database about half the CPU and the process a
            # fifth less; the pool keeps each connection's prepared statements. Measured again once the
            # turn flow's reads became ordinary querysets (docs/performance-libraries.md): a hold took
            # 0.93 ms in process with it, 1.5 ms without (bench/action_cpu.py), so it stays.
            "server_side_binding": True,
            "prepare_threshold": 5,
            "pool": {
                "min_size": int(os.environ.get("PENTA_DB_POOL_MIN", "2")),
                "max_size": int(os.environ.get("PENTA_DB_POOL_MAX", "14")),
                "timeout": float(os.environ.get("PENTA_DB_POOL_TIMEOUT", "10")),
                "check": None,  # set below: psycopg_pool is imported only on PostgreSQL
            },
        }
    )
    # psycopg_pool's check before lending, skipped for a connection lent a moment ago (penta.database).
    from penta.database import check as _check_connection

    DATABASES["default"]["OPTIONS"]["pool"]["check"] = _check_connection
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take SQLite's write lock at BEGIN, so two requests that read then write
    # the same game are serialised instead of failing with "database is locked" on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The long-lived threads a web process runs its HTTP requests' synchronous work on (penta.request_threads):
# at most this many requests work at once, each on a thread that keeps its database connection.
PENTA_REQUEST_THREADS = int(os.environ.get("PENTA_REQUEST_THREADS", "8"))
# The threads its game sockets' moves run on (live.db_threads): on PostgreSQL a few, so that one move's
# waits on the database overlap another's; on SQLite one (a second writer would only wait on the lock).
# With the request threads below PENTA_DB_POOL_MAX, so that channels' own database thread (the
# sockets' other work), the presence heartbeat and a clock in the process still find a connection.
_ON_POSTGRESQL = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
PENTA_SOCKET_DB_THREADS = int(os.environ.get("PENTA_SOCKET_DB_THREADS", "4" if _ON_POSTGRESQL else "1"))
if PENTA_REQUEST_THREADS < 1 or PENTA_SOCKET_DB_THREADS < 1:
    raise ImproperlyConfigured("PENTA_REQUEST_THREADS and PENTA_SOCKET_DB_THREADS must be at least 1.")

# The in-memory layer serves one process; REDIS_URL shares the layer between several processes.
REDIS_URL = os.environ.get("REDIS_URL", "")
# Seconds a Redis command may take before the connection counts as broken. redis-py 8 made this 5 s
# by default, which cut the default layer's 5-s blocking read on every idle socket (redis-py issue
# 4091): it must stay well above any blocking read the layer makes.
REDIS_SOCKET_TIMEOUT = float(os.environ.get("PENTA_REDIS_SOCKET_TIMEOUT", "30"))
# "pubsub" (channels_redis.pubsub): one subscription connection and one publishing connection per
# process, whatever the number of sockets, and groups die with the process that joined them. "core"
# (channels_redis.core, the library's default) is kept for comparison in bench/live_games.py.
CHANNEL_LAYER_KIND = os.environ.get("PENTA_CHANNEL_LAYER", "pubsub")
if REDIS_URL:
    _redis_host = {
        "address": REDIS_URL,
        "socket_timeout": REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 15,
        # The core layer holds one pooled connection per socket's blocking read; redis-py's pool of
        # 100 failed at once when 250 sockets closed together. The pub/sub layer needs two.
        "max_connections": int(os.environ.get("PENTA_REDIS_MAX_CONNECTIONS", "10000")),
    }
    if CHANNEL_LAYER_KIND == "core":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [_redis_host], "capacity": 500, "expiry": 30},
            }
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                # channels-redis's pub/sub layer, delivering in memory to this process's own screens.
                "BACKEND": "live.layer.LocalFirstPubSubLayer",
                "CONFIG": {"hosts": [_redis_host]},
            }
        }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Counters every process must agree on (login throttling, socket limits) and the statistics cache:
# Redis when configured (CACHE_URL, else REDIS_URL), else this process's memory.
CACHE_URL = os.environ.get("CACHE_URL", REDIS_URL)
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.environ.get("PENTA_CACHE_PREFIX", "penta"),
            # One pool per process (penta.cache): Django's own pool per cache object gave every open
            # socket a Redis connection of its own.
            "OPTIONS": {
                "socket_timeout": 5,
                "socket_connect_timeout": 5,
                "pool_class": "penta.cache.SharedConnectionPool",
            },
        }
    }
else:
    # The versioned values and fragments of the pages live here too (core.versions): Django's default
    # of 300 entries evicted them while fifty people read their pages, and they were worked out again.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "dicegame:history"
LOGOUT_REDIRECT_URL = "dicegame:home"

# Login throttling (django-axes, see accounts/throttle.py and docs/security.md): failed logins
# count per account and per client address in the cache above (Redis when configured, shared by every
# process; this process's memory otherwise); past a limit within the cool-off, every attempt is refused
# (429) until the cool-off has passed, the right password too, without hashing any password.
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.LoginThrottleBackend",  # first: refuses before the model backend hashes
    "django.contrib.auth.backends.ModelBackend",
]
PENTA_LOGIN_FAILURES_PER_ACCOUNT = int(os.environ.get("PENTA_LOGIN_FAILURES_PER_ACCOUNT", "5"))
PENTA_LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("PENTA_LOGIN_FAILURES_PER_ADDRESS", "20"))
AXES_HANDLER = "accounts.throttle.LoginThrottleHandler"
AXES_CACHE = "default"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each its own counter (and limit, in the handler)
AXES_FAILURE_LIMIT = max(PENTA_LOGIN_FAILURES_PER_ACCOUNT, PENTA_LOGIN_FAILURES_PER_ADDRESS)
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("PENTA_LOGIN_COOLOFF_MINUTES", "15")))
# A refused attempt does not count again: the lockout ends one cool-off after it began.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "accounts.throttle.account_key"

# A password reset link works for this long (and once: Django's token changes with the password).
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PENTA_PASSWORD_RESET_SECONDS", str(2 * 3600)))
# "Forgot password": at most so many reset mails asked for one address, and from one client address,
# within the window (accounts.throttle.take); past it the page answers 429, the same for any address.
PENTA_RESETS_PER_RECIPIENT = int(os.environ.get("PENTA_RESETS_PER_RECIPIENT", "3"))
PENTA_RESETS_PER_CLIENT = int(os.environ.get("PENTA_RESETS_PER_CLIENT", "10"))
PENTA_RESET_WINDOW_SECONDS = int(os.environ.get("PENTA_RESET_WINDOW_SECONDS", "3600"))
# The issuer named in a person's authenticator app beside their account's name.
OTP_TOTP_ISSUER = "Penta"

# Sign-up throttling (accounts.services.account_create): at most so many new accounts from one client
# address (an IPv6 client's /64) within the window, counted in the cache above; past it the sign-up page
# answers 429 and makes nothing.
PENTA_SIGNUPS_PER_ADDRESS = int(os.environ.get("PENTA_SIGNUPS_PER_ADDRESS", "5"))
PENTA_SIGNUP_WINDOW_SECONDS = int(os.environ.get("PENTA_SIGNUP_WINDOW_SECONDS", "3600"))
# Confirmation mails (notifications.services.mail_address_set) go to an address nobody has confirmed
# yet: besides a person's 3 a day, at most so many a day to one recipient address (whoever asks) and
# from one client address, counted in the cache above.
PENTA_CONFIRMATIONS_PER_RECIPIENT = int(os.environ.get("PENTA_CONFIRMATIONS_PER_RECIPIENT", "3"))
PENTA_CONFIRMATIONS_PER_CLIENT = int(os.environ.get("PENTA_CONFIRMATIONS_PER_CLIENT", "10"))

# "Report a problem": at most so many reports per person (a user or a guest) and per client address
# within the window, counted in the cache above (feedback.services).
# The site's address, for the links in e-mails (they leave the site, so they must be absolute).
# Unset, it is the development server's own (`make run PORT=8201` passes its PORT): a mail's link must lead
# to the server that sent it.
PENTA_SITE_URL = os.environ.get("PENTA_SITE_URL") or f"http://127.0.0.1:{os.environ.get('PORT') or '8000'}"

# E-mail (the daily digest, address confirmations): SMTP from the environment in production; printed to
# the console for development (`make run`). Django 6.1's MAILERS (its EMAIL_* settings are deprecated).
_SMTP = "django.core.mail.backends.smtp.EmailBackend"
_mail_backend = os.environ.get(
    "EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend" if DEBUG else _SMTP
)
MAILERS = {
    "default": {
        "BACKEND": _mail_backend,
        "OPTIONS": {
            "host": os.environ.get("EMAIL_HOST", "localhost"),
            "port": int(os.environ.get("EMAIL_PORT", "25")),
            "username": os.environ.get("EMAIL_HOST_USER", ""),
            "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env_bool("EMAIL_USE_TLS", False),
            "use_ssl": env_bool("EMAIL_USE_SSL", False),
            # A mail server that does not answer must not hold the clock's notification loop for long.
            "timeout": float(os.environ.get("EMAIL_TIMEOUT", "10")),
        }
        if _mail_backend == _SMTP
        else {},
    }
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Penta <penta@localhost>")

# Web Push (notifications): the VAPID key pair that signs every push. In production its private key
# comes from the environment (a PEM, or the raw key in base64url, as `vapid --gen` prints); for
# development a pair is made on first use and kept in var/ (never committed). Without one, push is off.
PENTA_VAPID_PRIVATE_KEY = os.environ.get("PENTA_VAPID_PRIVATE_KEY", "")
PENTA_VAPID_GENERATE = env_bool("PENTA_VAPID_GENERATE", DEBUG)
PENTA_VAPID_KEY_FILE = os.environ.get("PENTA_VAPID_KEY_FILE", str(BASE_DIR / "var" / "vapid-private.pem"))
PENTA_VAPID_SUBJECT = os.environ.get("PENTA_VAPID_SUBJECT", "mailto:penta@localhost")
# One push, all of it (the lookup, the connection, TLS, the request, the answer), ends by this deadline.
PENTA_PUSH_TIMEOUT_SECONDS = float(os.environ.get("PENTA_PUSH_TIMEOUT_SECONDS", "5"))
# Push endpoints are public https addresses only (notifications.endpoints). With DEBUG on, this may let
# a push service on this machine through as well (loopback only, never a private address); with DEBUG
# off (production) it is always off, whatever the environment says.
PENTA_PUSH_ALLOW_LOOPBACK = DEBUG and env_bool("PENTA_PUSH_ALLOW_LOOPBACK", True)
# The CAs a push service's certificate is checked against: "" is the system's; only the tests set one.
PENTA_PUSH_CA_BUNDLE = ""

# Who may read /metrics (penta.middleware.MetricsMiddleware): direct connections from these addresses.
PENTA_METRICS_ALLOWED = env_list("PENTA_METRICS_ALLOWED", "127.0.0.1,::1")

PENTA_REPORTS_PER_PERSON = int(os.environ.get("PENTA_REPORTS_PER_PERSON", "5"))
PENTA_REPORTS_PER_ADDRESS = int(os.environ.get("PENTA_REPORTS_PER_ADDRESS", "20"))
PENTA_REPORT_WINDOW_SECONDS = int(os.environ.get("PENTA_REPORT_WINDOW_SECONDS", "3600"))
# The connection's peer: behind the proxy, daphne --proxy-headers sets it from X-Forwarded-For.
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.login_locked_out"
AXES_ENABLE_ADMIN = False  # the cache handler keeps no rows to show
AXES_VERBOSE = False

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("nl", _("Dutch"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"  # stored and computed in UTC; shown in the person's zone (penta.middleware)
USE_I18N = True
USE_TZ = True
# Unambiguous dates in both languages ("1 Dec 2026, 20:14"), 24-hour clock: penta/formats/.
FORMAT_MODULE_PATH = ["penta.formats"]

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Without collectstatic (make run, a quick local server), WhiteNoise finds files through the finders
# and the plain storage names them; production runs collectstatic and gets hashed, compressed names.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if WHITENOISE_USE_FINDERS
        # WhiteNoise's hashed, compressed names, our own scripts and stylesheets minified first.
        else "penta.static_files.MinifiedCompressedManifestStorage"
    },
}

CSRF_FAILURE_VIEW = "dicegame.web.views.csrf_failure"
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# No inline script or style anywhere: htmx is configured through a <meta> tag (see base.html).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

SESSION_COOKIE_HTTPONLY = True
# Sessions read from the cache (Redis in production), written through to the database (penta.sessions):
# a request that reads its session (every game action) costs no database query for it.
SESSION_ENGINE = "penta.sessions"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

if not DEBUG:
    # Production: HTTPS behind a reverse proxy that sets X-Forwarded-Proto. Each may be turned off
    # by the environment for a local, plain-HTTP deployment (the browser tests do so).
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# The project's own packages (their loggers write to the console).
PENTA_PACKAGES = [
    "penta",
    "core",
    "dicegame",
    "accounts",
    "live",
    "analysis",
    "review",
    "daily",
    "feedback",
    "puzzles",
    "ratings",
    "winprob",
    "notifications",
    "fairplay",
    "tournaments",
    "chat",
]
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        # Every package of the project. Not also to the root logger: daphne gives that one a handler,
        # and every line came out twice.
        **{
            package: {
                "handlers": ["console"],
                "level": os.environ.get("PENTA_LOG_LEVEL", "WARNING"),
                "propagate": False,
            }
            for package in PENTA_PACKAGES
        },
    },
}

# Game tuning.
PENTA_AUTO_COMMIT_SECONDS = float(os.environ.get("PENTA_AUTO_COMMIT_SECONDS", "3"))
PENTA_HISTORY_PAGE_SIZE = 20
# How long each move of a computer player stays on screen before the next one.
PENTA_BOT_STEP_SECONDS = float(os.environ.get("PENTA_BOT_STEP_SECONDS", "0.9"))
# A player with no open screen still gets this long for a turn when the turn timer is off.
PENTA_ABSENT_GRACE_SECONDS = float(os.environ.get("PENTA_ABSENT_GRACE_SECONDS", "60"))
# Each web process runs the game clock (timers, computer moves) in the background; the row locks
# make every change happen once however many processes run it. Off: run `manage.py run_timers`.
PENTA_CLOCK_IN_WEB = env_bool("PENTA_CLOCK_IN_WEB", True)
PENTA_CLOCK_INTERVAL = float(os.environ.get("PENTA_CLOCK_INTERVAL", "0.25"))
PENTA_ROOM_EXPIRY_DAYS = 7
# Presence (live.presence): each web process beats this often; one silent for longer than
# PENTA_PROCESS_STALE_SECONDS is taken for dead and the clock forgets its sockets.
PENTA_HEARTBEAT_SECONDS = float(os.environ.get("PENTA_HEARTBEAT_SECONDS", "2"))
PENTA_PROCESS_STALE_SECONDS = float(os.environ.get("PENTA_PROCESS_STALE_SECONDS", "10"))
# Limits (live.limits): open sockets per person (a user, a guest, an address) and per game;
# messages per second a socket may send (a burst of PENTA_SOCKET_BURST), and all of a person's
# sockets on one process together; a socket that keeps going over is closed.
PENTA_MAX_SOCKETS_PER_PERSON = int(os.environ.get("PENTA_MAX_SOCKETS_PER_PERSON", "12"))
PENTA_MAX_SOCKETS_PER_GAME = int(os.environ.get("PENTA_MAX_SOCKETS_PER_GAME", "60"))
PENTA_SOCKET_RATE = float(os.environ.get("PENTA_SOCKET_RATE", "8"))
PENTA_SOCKET_BURST = float(os.environ.get("PENTA_SOCKET_BURST", "16"))
PENTA_PERSON_RATE = float(os.environ.get("PENTA_PERSON_RATE", "12"))
PENTA_PERSON_BURST = float(os.environ.get("PENTA_PERSON_BURST", "24"))
PENTA_SOCKET_ABUSE_LIMIT = int(os.environ.get("PENTA_SOCKET_ABUSE_LIMIT", "40"))
PENTA_HANDSHAKE_RATE = float(os.environ.get("PENTA_HANDSHAKE_RATE", "10"))
PENTA_HANDSHAKE_BURST = float(os.environ.get("PENTA_HANDSHAKE_BURST", "60"))
PENTA_CONNECT_RATE = float(os.environ.get("PENTA_CONNECT_RATE", "1"))
PENTA_CONNECT_BURST = float(os.environ.get("PENTA_CONNECT_BURST", "20"))
# The server stops reading a socket's frames while this many wait for the application (TCP then
# holds the sender back), and drops what a client sends past twice as many.
PENTA_SOCKET_QUEUE = int(os.environ.get("PENTA_SOCKET_QUEUE", "32"))
PENTA_REMATCH_MINUTES = 30
# The winning chances bar (winprob.live): at most this many games of one person wait in a process's
# queue at once; a logged-in viewer's page may ask for a position's figures this often a minute.
PENTA_WIN_BAR_GAMES_PER_PERSON = int(os.environ.get("PENTA_WIN_BAR_GAMES_PER_PERSON", "4"))
PENTA_WIN_BAR_ASKS_PER_MINUTE = int(os.environ.get("PENTA_WIN_BAR_ASKS_PER_MINUTE", "20"))
# Notices one person makes the site send others (friend requests, game invitations, columns offered:
# accounts.services.notice_quota_take) within an hour: in all, and to any one person.
PENTA_NOTICES_PER_HOUR = int(os.environ.get("PENTA_NOTICES_PER_HOUR", "30"))
PENTA_NOTICES_PER_PERSON_HOUR = int(os.environ.get("PENTA_NOTICES_PER_PERSON_HOUR", "5"))
