"""Push services that mean harm, for real, over https on this machine (tests/support/hostile_push.py): one
that redirects elsewhere, one that dribbles its answer a byte at a time, one that answers 300 MB. The
sender follows no redirect, cuts a push off at its deadline, reads no more than a few KB, and a slow
device holds up no one else's push or mail. A name that resolves to a private address by the time a push
is sent is refused then, without a connection; the connection goes to the address that was checked, and
TLS is checked against the name. And in production mode the same servers, on loopback, are refused.

The tests' push services are on loopback: PENTA_PUSH_ALLOW_LOOPBACK is on here (settings_test) unless a
test turns it off. Any HTTP client of the sender trusts the tests' CA (requests reads
REQUESTS_CA_BUNDLE), so that it is judged by what it does with the answers, not by its trust store."""

from __future__ import annotations

import socket
import time
import tracemalloc

import pytest
from django.utils import timezone

from notifications import services
from notifications.models import Notification, PushDelivery, PushSubscription
from tests.support import tls
from tests.support.factories import UserFactory, befriend, client_for
from tests.support.games import open_turn, play_turn, started_two_player_game
from tests.support.hostile_push import MB, HostilePushService
from tests.support.notifications import add_device_from_page, sender_thread, subscribe, your_turn
from tests.support.push_service import BrowserSubscription, PushService

DAY = 24 * 3600
PENDING, SENT = Notification.State.PENDING, Notification.State.SENT
DEADLINE = 2.0
SLACK = 1.0


@pytest.fixture
def hostile(settings, monkeypatch):
    tls.ensure()
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", settings.PENTA_PUSH_CA_BUNDLE)
    settings.PENTA_PUSH_TIMEOUT_SECONDS = DEADLINE
    with HostilePushService() as service:
        yield service


@pytest.fixture
def tls_push_service():
    tls.ensure()
    with PushService(tls=True) as service:
        yield service


def turn_of(player, opponent):
    """A live game (60 s a turn) in which it is `player`'s turn (the opponent has played)."""
    befriend(opponent, player)
    game = started_two_player_game(opponent, player, turn_seconds=60)
    play_turn(game, opponent)
    assert open_turn(game).player.user_id == player.pk
    return game


@pytest.fixture
def femke(db):
    return UserFactory(username="femke")


@pytest.fixture
def femkes_turn(femke):
    return turn_of(femke, UserFactory(username="hana"))


def failed_once(device: PushSubscription, notification: Notification) -> None:
    """A failure of that device: kept, counted against its budget, the notification tried again later."""
    device.refresh_from_db()  # still there: not "gone"
    assert device.failures == 1
    notification.refresh_from_db()
    assert (notification.state, notification.attempts) == (PENDING, 1)
    assert not PushDelivery.objects.exists()


# -- redirects ------------------------------------------------------------------------------------------


def test_a_redirect_is_never_followed(hostile, push_service, femke, femkes_turn):
    # The second server stands for an internal service the redirect points at.
    hostile.redirect_to = push_service.endpoint("internal-admin")
    device = subscribe(femke, hostile.endpoint("redirect"))

    assert services.send_due() == 0

    assert len(hostile.visits_to("redirect")) == 1
    assert push_service.received == []
    notification = your_turn(femke, femkes_turn)
    failed_once(device, notification)
    assert "307" in notification.error


# -- answers of other shapes -------------------------------------------------------------------------------


def test_an_interim_answer_is_read_past(hostile, femke, femkes_turn):
    subscribe(femke, hostile.endpoint("interim"))
    assert services.send_due() == 1


def test_an_answer_that_is_not_http_is_a_failure_of_the_device(hostile, femke, femkes_turn):
    device = subscribe(femke, hostile.endpoint("garbage"))

    assert services.send_due() == 0

    notification = your_turn(femke, femkes_turn)
    failed_once(device, notification)
    assert "not HTTP" in notification.error


# -- stalls and memory ----------------------------------------------------------------------------------


def wait_for(predicate, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.01)
    return predicate()


@pytest.mark.django_db(transaction=True)
def test_a_dribbling_push_service_is_cut_at_the_deadline_and_holds_up_no_one_else(
    hostile, push_service, smtp
):
    hostile.dribble_seconds = 0.5
    femke, dave, erin = (UserFactory(username=name) for name in ("femke", "dave", "erin"))
    femkes_game = turn_of(femke, UserFactory(username="hana"))
    turn_of(dave, UserFactory(username="carol"))
    slow = subscribe(femke, hostile.endpoint("dribble", "femke"))
    fast = BrowserSubscription(push_service.endpoint("dave"))
    subscribe(dave, fast)
    services.mail_address_set(user=erin, address="erin@example.com", digest=True, language="en")
    # Another device of femke's own, which her slow one must not hold up either.
    her_phone = BrowserSubscription(push_service.endpoint("femke-phone"))
    subscribe(femke, her_phone)

    started = time.monotonic()
    sweep = sender_thread(services.send_due)
    sweep.start()
    mailed = wait_for(lambda: smtp.mails and time.monotonic(), timeout=30)
    sweep.join(timeout=60)
    took = time.monotonic() - started

    assert not sweep.is_alive()
    [dribbled] = hostile.visits_to("dribble")
    assert dribbled.sent > 0  # it had begun to answer, a byte at a time
    assert took < DEADLINE + SLACK, f"the sweep took {took:.1f} s"
    # The others were not kept waiting by it.
    [to_dave] = push_service.received_at(fast.endpoint)
    [to_her_phone] = push_service.received_at(her_phone.endpoint)
    assert to_dave.at - started < DEADLINE / 2
    assert to_her_phone.at - started < DEADLINE / 2
    assert mailed - started < DEADLINE / 2
    notification = your_turn(femke, femkes_game)
    assert (notification.state, notification.attempts) == (PENDING, 1)
    assert "Timeout" in notification.error
    slow.refresh_from_db()
    assert slow.failures == 1


def test_a_huge_answer_is_not_read(hostile, femke, femkes_turn):
    device = subscribe(femke, hostile.endpoint("huge"))
    tracemalloc.start()
    try:
        started = time.monotonic()
        sent = services.send_due()
        took = time.monotonic() - started
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert sent == 1  # a 201: delivered, whatever follows it
    assert peak < 20 * MB, f"{peak / MB:.0f} MB"
    assert took < DEADLINE
    [visit] = hostile.visits_to("huge")
    assert wait_for(lambda: visit.ended, timeout=10)
    assert visit.sent < 100 * MB  # the connection was closed long before the end of the body
    assert PushDelivery.objects.filter(subscription=device).exists()


def test_a_push_service_that_never_finishes_the_tls_handshake_is_cut_at_the_deadline(
    settings, femke, femkes_turn
):
    settings.PENTA_PUSH_TIMEOUT_SECONDS = DEADLINE
    with socket.create_server(("127.0.0.1", 0)) as silent:  # takes the connection, says nothing
        device = subscribe(femke, f"https://127.0.0.1:{silent.getsockname()[1]}/push")
        started = time.monotonic()
        assert services.send_due() == 0
        assert time.monotonic() - started < DEADLINE + SLACK
    failed_once(device, your_turn(femke, femkes_turn))


# -- addresses checked when the push is sent ------------------------------------------------------------


def test_a_name_that_resolves_to_a_private_address_when_the_push_is_sent_is_refused_then(
    settings, resolver, femke, femkes_turn
):
    settings.PENTA_PUSH_ALLOW_LOOPBACK = False
    device = subscribe(femke, "https://push.example/device")  # not resolvable when it was kept
    resolver.map("push.example", "8.8.8.8", "10.0.0.5")  # and now partly private

    assert services.send_due() == 0

    # No connection was tried (the network guard fails the test on any beyond loopback).
    assert resolver.lookups.count("push.example") >= 1
    notification = your_turn(femke, femkes_turn)
    failed_once(device, notification)
    assert "not allowed" in notification.error


@pytest.mark.parametrize("address", ["169.254.169.254", "fd00::1", "::ffff:10.0.0.5", "127.0.0.1"])
def test_private_and_metadata_addresses_are_refused_at_send_time(
    settings, resolver, femke, femkes_turn, address
):
    settings.PENTA_PUSH_ALLOW_LOOPBACK = False
    device = subscribe(femke, "https://push.example/device")
    resolver.map("push.example", address)

    assert services.send_due() == 0

    failed_once(device, your_turn(femke, femkes_turn))


def test_the_push_goes_to_the_address_that_was_checked_and_tls_is_checked_against_the_name(
    resolver, femke, femkes_turn
):
    tls.ensure()
    with PushService(tls=True, host="push.example") as service:
        browser = BrowserSubscription(service.endpoint("femke"))
        device = subscribe(femke, browser)
        resolver.forget()
        # The name's owner changes its answer after the first lookup (DNS rebinding): a second lookup,
        # by anything, would lead to a private address.
        resolver.map_in_turn("push.example", ["127.0.0.1"], ["10.0.0.5"])

        assert services.send_due() == 1

        [request] = service.received
        assert request.headers["Host"] == f"push.example:{service.port}"
        assert browser.decrypt(request.body)["tag"] == f"game-{femkes_turn.pk}"
    assert resolver.lookups.count("push.example") == 1
    assert PushDelivery.objects.filter(subscription=device).exists()


def test_a_certificate_that_is_not_for_the_name_fails_the_push(resolver, femke, femkes_turn):
    tls.ensure()
    with PushService(tls=True, host="elsewhere.example") as service:
        device = subscribe(femke, service.endpoint("femke"))
        resolver.map("elsewhere.example", "127.0.0.1")  # the right machine, the wrong certificate

        assert services.send_due() == 0

        assert service.received == []
    failed_once(device, your_turn(femke, femkes_turn))


def test_a_push_over_https_to_this_machine_works_where_loopback_is_allowed(
    tls_push_service, femke, femkes_turn
):
    browser = BrowserSubscription(tls_push_service.endpoint("femke"))
    subscribe(femke, browser)

    assert services.send_due() == 1

    [request] = tls_push_service.received
    assert browser.decrypt(request.body)["url"] == f"/games/{femkes_turn.pk}/"
    assert your_turn(femke, femkes_turn).state == SENT


# -- production mode: the same servers are refused ------------------------------------------------------


@pytest.mark.parametrize("kind", ["redirect", "dribble", "huge"])
def test_in_production_the_hostile_servers_on_loopback_are_refused_when_stored(
    settings, hostile, femke, kind
):
    settings.PENTA_PUSH_ALLOW_LOOPBACK = False
    browser = BrowserSubscription(hostile.endpoint(kind))

    response = add_device_from_page(client_for(femke, enforce_csrf_checks=True), browser)

    assert response.status_code == 400
    assert "private, local or reserved" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_in_production_a_loopback_device_kept_earlier_is_never_pushed_to(
    settings, hostile, femke, femkes_turn
):
    device = subscribe(femke, hostile.endpoint("redirect"))  # kept while loopback was allowed
    settings.PENTA_PUSH_ALLOW_LOOPBACK = False

    assert services.send_due(now=timezone.now()) == 0

    assert hostile.visits == []
    failed_once(device, your_turn(femke, femkes_turn))
