"""Sign-up throttling (issue 38, finding 5): at most PENTA_SIGNUPS_PER_ADDRESS new accounts from one
client address (an IPv6 client's /64) within PENTA_SIGNUP_WINDOW_SECONDS, counted in the cache in one
atomic step; past it the sign-up page answers 429 with its message and makes nothing. 39 accounts made
from one address in 8 s filled a tournament before.

The suite itself signs up from one address, so the test settings raise the limit; these tests put the
production value back."""

import itertools
import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.utils import translation

import penta.settings
from accounts import throttle
from tests.support.games import race

SIGNUP = "/accounts/signup/"
LIMIT = 5  # the production default (penta/settings.py)
REFUSED = "Too many new accounts from your address"
_names = itertools.count()

real_limit = override_settings(PENTA_SIGNUPS_PER_ADDRESS=LIMIT)


@pytest.fixture(autouse=True)
def _default_language():
    yield
    translation.activate("en")


def sign_up(address: str, name: str | None = None, **extra):
    name = name or f"newcomer{next(_names)}"
    data = {"username": name, "password1": "dice-are-nice-42", "password2": "dice-are-nice-42"}
    return Client(REMOTE_ADDR=address).post(SIGNUP, data, **extra)


def accounts() -> int:
    return get_user_model().objects.count()


def test_the_production_limit_is_five_an_hour():
    assert penta.settings.PENTA_SIGNUPS_PER_ADDRESS == LIMIT
    assert penta.settings.PENTA_SIGNUP_WINDOW_SECONDS == 3600


@real_limit
@pytest.mark.django_db
def test_a_burst_from_one_address_is_cut_at_the_limit_and_another_address_is_not():
    for _ in range(LIMIT):
        assert sign_up("10.2.2.2").status_code == 302
    before = accounts()

    refused = sign_up("10.2.2.2", "one_too_many")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert REFUSED in page and "at most 5 can be made in 60 minutes" in page
    assert 'name="username"' in page  # the form again, to try later
    assert accounts() == before and not get_user_model().objects.filter(username="one_too_many").exists()
    assert "sessionid" not in refused.cookies  # nobody was logged in

    assert sign_up("10.3.3.3").status_code == 302


@real_limit
@pytest.mark.django_db
def test_sign_ups_refused_by_the_form_do_not_count():
    for _ in range(LIMIT + 2):
        bad = Client(REMOTE_ADDR="10.4.4.4").post(
            SIGNUP, {"username": "typo", "password1": "dice-are-nice-42", "password2": "other-one-42"}
        )
        assert bad.status_code == 400
    assert sign_up("10.4.4.4", "taken").status_code == 302
    for _ in range(LIMIT + 2):
        assert sign_up("10.4.4.4", "taken").status_code == 400  # the name exists: the form's error
    for _ in range(LIMIT - 1):
        assert sign_up("10.4.4.4").status_code == 302


@real_limit
@pytest.mark.django_db
def test_an_ipv6_client_counts_by_its_64_network():
    for i in range(LIMIT):
        assert sign_up(f"2001:db8:1:2::{i + 1:x}").status_code == 302
    assert sign_up("2001:db8:1:2:ffff:ffff:ffff:ffff").status_code == 429
    assert sign_up("2001:db8:1:3::1").status_code == 302


@real_limit
@pytest.mark.django_db
def test_the_refusal_in_dutch():
    for _ in range(LIMIT):
        sign_up("10.5.5.5")
    refused = sign_up("10.5.5.5", headers={"accept-language": "nl"})
    assert refused.status_code == 429
    assert "Te veel nieuwe accounts vanaf je adres" in refused.content.decode()


@override_settings(PENTA_SIGNUPS_PER_ADDRESS=2, PENTA_SIGNUP_WINDOW_SECONDS=1)
@pytest.mark.django_db
def test_the_window_ends():
    assert sign_up("10.6.6.6").status_code == 302
    assert sign_up("10.6.6.6").status_code == 302
    assert sign_up("10.6.6.6").status_code == 429
    time.sleep(1.1)
    assert sign_up("10.6.6.6").status_code == 302


@real_limit
@pytest.mark.django_db(transaction=True)
def test_sign_ups_sent_at_once_cannot_pass_the_limit():
    numbers = itertools.count()  # its next() is one step under the interpreter lock

    def one():
        return sign_up("10.7.7.7", f"burst{next(numbers)}").status_code

    statuses = race(12, one)
    assert sorted(statuses) == [302] * LIMIT + [429] * (12 - LIMIT), statuses
    assert accounts() == LIMIT


def test_a_client_is_its_ipv4_address_or_its_ipv6_64():
    assert throttle.client_key("203.0.113.9") == "203.0.113.9"
    assert throttle.client_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert throttle.client_key("2001:db8::1") == "2001:db8::/64"
    assert throttle.client_key(None) == throttle.client_key("not an address") == "unknown"


@real_limit
@pytest.mark.django_db
def test_sign_ups_work_and_are_still_throttled_while_the_shared_cache_is_down(caplog):
    """Redis gone: the counts fall back to this process's memory (as the login throttle's do), not a 500."""
    dead = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }
    with override_settings(CACHES=dead):
        for _ in range(LIMIT):
            assert sign_up("10.8.8.8").status_code == 302
        assert sign_up("10.8.8.8").status_code == 429
    assert "shared cache unreachable" in caplog.text
