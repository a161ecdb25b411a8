"""Login throttling (django-axes, counters in the Django cache): a few failures per account, more per
client address, then every attempt is refused for the cool-off (429, the right password too) without
hashing a password; a successful login clears its account's count."""

import io
import time
from datetime import timedelta

import pytest
from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import translation

from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
LOCKED = "Too many failed attempts to log in"
PER_ACCOUNT = 5
PER_ADDRESS = 20


@pytest.fixture(autouse=True)
def _default_language():
    """A request in Dutch leaves Dutch active in the thread: end each test in the default language."""
    yield
    translation.deactivate()


def attempt(username: str, password: str, *, address: str = "10.1.1.1", client: Client | None = None):
    client = client or Client()
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def is_logged_in(response) -> bool:
    return response.status_code == 302 and "sessionid" in response.cookies


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """Every password hash computed (checking a password or hashing one for an unknown user)."""
    calls: list[str] = []
    verify, encode = MD5PasswordHasher.verify, MD5PasswordHasher.encode

    def counting_verify(self, password, encoded):
        calls.append("verify")
        return verify(self, password, encoded)

    def counting_encode(self, password, salt):
        calls.append("encode")
        return encode(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "verify", counting_verify)
    monkeypatch.setattr(MD5PasswordHasher, "encode", counting_encode)
    return calls


def test_settings_are_the_documented_ones(settings):
    assert settings.PENTA_LOGIN_FAILURES_PER_ACCOUNT == PER_ACCOUNT
    assert settings.PENTA_LOGIN_FAILURES_PER_ADDRESS == PER_ADDRESS
    assert timedelta(minutes=15) == settings.AXES_COOLOFF_TIME
    assert settings.AUTHENTICATION_BACKENDS[0] == "accounts.throttle.LoginThrottleBackend"


def test_an_account_is_locked_after_five_failures_the_right_password_too(hashes):
    user = UserFactory(username="ann")
    for _ in range(PER_ACCOUNT - 1):
        response = attempt("ann", "wrong")
        assert response.status_code == 400 and LOCKED not in response.content.decode()
    response = attempt("ann", "wrong")
    assert response.status_code == 429
    html = response.content.decode()
    assert LOCKED in html and "try again in 15 minutes" in html and 'role="alert"' in html
    assert 'name="password"' in html  # the login page itself, with its form

    hashes.clear()
    for address in ("10.1.1.1", "10.9.9.9"):  # the account, from any address
        response = attempt("ann", PASSWORD, address=address)
        assert response.status_code == 429 and LOCKED in response.content.decode()
        assert not is_logged_in(response)
        assert attempt("ann", "wrong", address=address).status_code == 429
    assert hashes == [], "a refused attempt must not cost a password hash"

    # Another account from the same address is not locked.
    UserFactory(username="bea")
    assert is_logged_in(attempt("bea", PASSWORD))
    assert user.last_login is None


def test_an_address_is_locked_after_twenty_failures_over_any_accounts(hashes):
    UserFactory(username="cas")
    for i in range(PER_ADDRESS - 1):
        response = attempt(f"guess{i % 10}", "wrong", address="10.2.2.2")  # 2 per name: under 5
        assert response.status_code == 400, i
    response = attempt("guess9", "wrong", address="10.2.2.2")
    assert response.status_code == 429 and LOCKED in response.content.decode()

    hashes.clear()
    response = attempt("cas", PASSWORD, address="10.2.2.2")
    assert response.status_code == 429 and not is_logged_in(response)
    assert hashes == []
    # The same account from another address is fine.
    assert is_logged_in(attempt("cas", PASSWORD, address="10.3.3.3"))


def test_a_client_cannot_dodge_the_address_count_with_a_forwarded_header():
    """Only the connection's address counts (daphne --proxy-headers sets it behind the proxy); a header
    the client sends itself changes nothing."""
    for i in range(PER_ADDRESS):
        Client().post(
            "/accounts/login/",
            {"username": f"x{i}", "password": "wrong"},
            REMOTE_ADDR="10.4.4.4",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{i}",
        )
    UserFactory(username="dirk")
    assert attempt("dirk", PASSWORD, address="10.4.4.4").status_code == 429


def test_a_successful_login_clears_the_accounts_count():
    UserFactory(username="eva")
    for _ in range(PER_ACCOUNT - 1):
        assert attempt("eva", "wrong").status_code == 400
    assert is_logged_in(attempt("eva", PASSWORD))
    # Four more mistakes are allowed again; the fifth locks.
    for _ in range(PER_ACCOUNT - 1):
        assert attempt("eva", "wrong").status_code == 400
    assert attempt("eva", "wrong").status_code == 429


def test_a_username_that_looks_like_an_address_has_its_own_count():
    UserFactory(username="10.5.5.5")
    UserFactory(username="finn")
    for _ in range(PER_ACCOUNT):
        attempt("10.5.5.5", "wrong", address="10.6.6.6")
    # The account named like the address is locked; the address itself is not.
    assert attempt("10.5.5.5", PASSWORD, address="10.6.6.6").status_code == 429
    assert is_logged_in(attempt("finn", PASSWORD, address="10.5.5.5"))


def test_the_lockout_message_in_dutch():
    UserFactory(username="gijs")
    client = Client()
    client.cookies["django_language"] = "nl"
    for _ in range(PER_ACCOUNT):
        response = attempt("gijs", "wrong", client=client)
    assert response.status_code == 429
    html = response.content.decode()
    assert (
        "Te veel mislukte pogingen om in te loggen" in html and "probeer het over 15 minuten opnieuw" in html
    )


def test_the_lockout_ends_after_the_cool_off():
    UserFactory(username="hein")
    with override_settings(AXES_COOLOFF_TIME=timedelta(seconds=1)):
        for _ in range(PER_ACCOUNT):
            attempt("hein", "wrong")
        assert attempt("hein", PASSWORD).status_code == 429
        time.sleep(1.5)
        assert is_logged_in(attempt("hein", PASSWORD))


def test_the_test_clients_login_is_not_throttled():
    """Client.login() authenticates without a request: no client to count, nothing to refuse."""
    user = UserFactory(username="ilse")
    for _ in range(PER_ACCOUNT):
        attempt("ilse", "wrong", address="127.0.0.1")
    assert Client().login(username=user.username, password=PASSWORD)


def test_an_operator_can_lift_a_lockout_with_axes_commands():
    UserFactory(username="joop")
    for _ in range(PER_ACCOUNT):
        attempt("joop", "wrong", address="10.7.7.7")
    for i in range(PER_ADDRESS):
        attempt(f"y{i}", "wrong", address="10.8.8.8")
    assert attempt("joop", PASSWORD, address="10.9.9.9").status_code == 429
    assert attempt("joop", "wrong", address="10.8.8.8").status_code == 429
    call_command("axes_reset_username", "joop", stdout=io.StringIO())
    assert is_logged_in(attempt("joop", PASSWORD, address="10.9.9.9"))
    assert attempt("joop", PASSWORD, address="10.8.8.8").status_code == 429  # the address still is
    call_command("axes_reset_ip", "10.8.8.8", stdout=io.StringIO())
    assert is_logged_in(attempt("joop", PASSWORD, address="10.8.8.8"))


@pytest.fixture
def shared_cache_down():
    """The shared cache is a Redis nobody listens on (port 1): every call to it fails at once."""

    dead = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }
    with override_settings(CACHES=dead):  # Django rebuilds its cache handlers on the change
        AxesProxyHandler.get_implementation(force=True)  # the handler keeps the cache it was built with
        yield
    AxesProxyHandler.get_implementation(force=True)


def test_a_login_works_and_is_still_throttled_while_the_shared_cache_is_down(shared_cache_down, caplog):
    user = UserFactory()
    assert is_logged_in(attempt(user.username, PASSWORD))  # was a 500: the counters could not be read

    for _ in range(PER_ACCOUNT - 1):
        assert attempt(user.username, "wrong", address="10.9.9.9").status_code == 400  # a form error
    assert attempt(user.username, "wrong", address="10.9.9.9").status_code == 429
    refused = attempt(user.username, PASSWORD, address="10.9.9.10")
    assert refused.status_code == 429 and LOCKED in refused.content.decode()
    assert "shared cache unreachable" in caplog.text
