"""Web Push for real: a turn of a game against friends is encrypted to the browser's keys, signed with
the server's VAPID key and POSTed to a push service on this machine, which the test reads back as the
browser and the push service would (decrypting the body, checking the JWT's signature)."""

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from dicegame.models import Player
from notifications import services
from notifications.models import Notification, PushDelivery, PushSubscription
from notifications.vapid import application_server_key
from tests.support.factories import client_for
from tests.support.games import open_turn, play_turn, started_two_player_game
from tests.support.notifications import add_device_from_page, subscribe, your_turn
from tests.support.push_service import BrowserSubscription, verify_vapid

pytestmark = pytest.mark.django_db

DAY = 24 * 3600


def correspondence_game(host, friend):
    """A started correspondence game (a day a move) of the host and a friend; the host moves first."""
    return started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)


def delivered_to(notification: Notification) -> set[int]:
    return set(PushDelivery.objects.filter(notification=notification).values_list("subscription", flat=True))


def test_a_turn_is_pushed_once_encrypted_to_the_device_and_signed_by_the_server(push_service, host, friend):
    browser = BrowserSubscription(push_service.endpoint("hana-phone"))
    # As the preferences page's script does: the page's CSRF token, the subscription as JSON.
    response = add_device_from_page(client_for(host, enforce_csrf_checks=True), browser)
    assert response.status_code == 201, response.content
    device = PushSubscription.objects.get(endpoint=browser.endpoint)
    assert device.user == host

    game = correspondence_game(host, friend)
    notification = your_turn(host, game)
    assert notification.state == Notification.State.PENDING
    deadline = open_turn(game).deadline_at
    now = timezone.now()

    assert services.send_due(now=now) == 1

    [request] = push_service.received
    assert request.method == "POST"
    assert request.path == "/push/hana-phone"
    assert request.headers["Content-Encoding"] == "aes128gcm"
    # The push service may keep it while the move lasts, no longer.
    left = (deadline - now).total_seconds()
    assert left - 2 <= int(request.headers["TTL"]) <= left

    # Only the browser's private key and auth secret open it.
    payload = browser.decrypt(request.body)
    assert payload["title"] == "Penta: your turn"
    assert payload["body"].startswith("Your turn against femke")
    assert "left" in payload["body"]
    assert payload["url"] == f"/games/{game.pk}/"
    assert payload["tag"] == f"game-{game.pk}"

    token = verify_vapid(request.headers["Authorization"])
    assert token.header["alg"] == "ES256"
    # Signed by the key the browser subscribed with (the page's applicationServerKey).
    assert token.key == application_server_key()
    assert token.claims["aud"] == push_service.origin
    assert token.claims["sub"] == settings.PENTA_VAPID_SUBJECT
    assert time.time() < token.claims["exp"] <= time.time() + DAY

    notification.refresh_from_db()
    assert notification.state == Notification.State.SENT
    assert notification.attempts == 0
    assert PushDelivery.objects.filter(notification=notification, subscription=device).exists()
    device.refresh_from_db()
    assert device.last_sent_at == now

    # Exactly once: a later sweep finds nothing due.
    assert services.send_due(now=now + timedelta(minutes=5)) == 0
    assert len(push_service.received) == 1


def test_the_turn_passed_on_is_pushed_to_the_friend_and_the_played_one_to_nobody(push_service, host, friend):
    hana = BrowserSubscription(push_service.endpoint("hana"))
    femke = BrowserSubscription(push_service.endpoint("femke"))
    subscribe(host, hana)
    subscribe(friend, femke)
    game = correspondence_game(host, friend)
    play_turn(game, host)

    assert services.send_due() == 1

    # The host played before the sweep came: telling them it is their turn would be wrong.
    assert your_turn(host, game).state == Notification.State.SKIPPED
    assert push_service.received_at(hana.endpoint) == []
    [request] = push_service.received_at(femke.endpoint)
    payload = femke.decrypt(request.body)
    assert payload["body"].startswith("Your turn against hana")
    assert payload["url"] == f"/games/{game.pk}/"
    assert your_turn(friend, game).state == Notification.State.SENT


@pytest.mark.parametrize("status", [410, 404])
def test_a_device_the_push_service_no_longer_knows_is_forgotten(push_service, host, friend, status):
    browser = BrowserSubscription(push_service.endpoint("old-phone"))
    device = subscribe(host, browser)
    push_service.status = status
    game = correspondence_game(host, friend)

    services.send_due()

    assert len(push_service.received_at(browser.endpoint)) == 1
    assert not PushSubscription.objects.filter(pk=device.pk).exists()
    notification = your_turn(host, game)
    # Not a failure to try again: there is nobody left to try it on.
    assert notification.state == Notification.State.SKIPPED
    assert notification.attempts == 0
    assert delivered_to(notification) == set()
    services.send_due(now=timezone.now() + timedelta(hours=1))
    assert len(push_service.received) == 1


def test_a_failing_push_service_is_tried_again_later_and_no_device_gets_it_twice(push_service, host, friend):
    phone = BrowserSubscription(push_service.endpoint("phone"))
    laptop = BrowserSubscription(push_service.endpoint("laptop"))
    phone_device, laptop_device = subscribe(host, phone), subscribe(host, laptop)
    push_service.answer(phone.endpoint, 500)
    game = correspondence_game(host, friend)
    now = timezone.now()

    assert services.send_due(now=now) == 0

    notification = your_turn(host, game)
    assert notification.state == Notification.State.PENDING
    assert notification.attempts == 1
    assert notification.due_at > now
    assert "500" in notification.error
    assert len(push_service.received_at(phone.endpoint)) == 1
    assert len(push_service.received_at(laptop.endpoint)) == 1
    assert delivered_to(notification) == {laptop_device.pk}

    # Before the retry is due, the sweep leaves it alone.
    assert services.send_due(now=now + timedelta(seconds=1)) == 0
    assert len(push_service.received) == 2

    assert services.send_due(now=notification.due_at) == 1

    notification.refresh_from_db()
    assert notification.state == Notification.State.SENT
    assert len(push_service.received_at(laptop.endpoint)) == 1
    [_failed, retried] = push_service.received_at(phone.endpoint)
    assert phone.decrypt(retried.body)["tag"] == f"game-{game.pk}"
    assert delivered_to(notification) == {phone_device.pk, laptop_device.pk}


def test_nothing_is_pushed_to_a_player_who_has_the_game_open(push_service, host, friend):
    browser = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(host, browser)
    game = correspondence_game(host, friend)
    # The game's socket of the host's seat is open: the board shows whose turn it is.
    Player.objects.filter(game=game, user=host).update(connected=True)

    assert services.send_due() == 0

    assert push_service.received == []
    assert your_turn(host, game).state == Notification.State.SKIPPED
    assert not PushDelivery.objects.exists()
