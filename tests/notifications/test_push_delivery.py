"""Web Push, the cases test_push.py leaves out: each device's message encrypted to its own keys, the
VAPID check shown to refuse what the server did not sign, the device's language, push services that
are down or do not answer in time, a player whose game page is open (a real socket) or who left, the
reminder's time to live, and devices whose key no message can be encrypted to."""

from __future__ import annotations

import json
import re
import socket
import struct
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from cryptography.exceptions import InvalidSignature
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext
from http_ece import ECEException

from dicegame.models import Player
from dicegame.play import rooms
from dicegame.rules.turn import REMINDER_SHARE
from notifications import services
from notifications.models import Notification, PushDelivery, PushSubscription
from notifications.vapid import application_server_key
from tests.support.factories import actor, client_for
from tests.support.games import open_turn, play_turn, started_two_player_game
from tests.support.notifications import add_device_from_page, subscribe, your_turn
from tests.support.push_service import BrowserSubscription, b64url_encode, verify_vapid
from tests.support.servers import free_port
from tests.support.sockets import connect

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
PENDING, SENT, SKIPPED = Notification.State.PENDING, Notification.State.SENT, Notification.State.SKIPPED
NOT_A_POINT = b64url_encode(b"\x04" + bytes(64))  # 65 bytes as a key should be, but (0, 0) is off the curve


@pytest.fixture
def femkes_turn(host, friend):
    """A live game (60 s a turn) of hana and femke: hana has played her first turn, femke's has begun."""
    game = started_two_player_game(host, friend, turn_seconds=60)
    play_turn(game, host)
    assert open_turn(game).player.user_id == friend.pk
    return game


@pytest.fixture
def silent_push_service():
    """A push service that takes the connection and the request and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/push/silent"


def test_every_device_gets_the_message_encrypted_to_its_own_keys(push_service, friend, femkes_turn):
    phone = BrowserSubscription(push_service.endpoint("phone"))
    laptop = BrowserSubscription(push_service.endpoint("laptop"))
    devices = {subscribe(friend, phone).pk, subscribe(friend, laptop).pk}

    assert services.send_due() == 1

    [to_phone] = push_service.received_at(phone.endpoint)
    [to_laptop] = push_service.received_at(laptop.endpoint)
    payload = phone.decrypt(to_phone.body)
    assert payload == laptop.decrypt(to_laptop.body)
    assert re.fullmatch(
        r"Your turn against hana \((\d+\s(second|minute)s?|less than a minute) left\)\.", payload["body"]
    ), payload
    assert to_phone.headers["TTL"] == "60"  # a 60 s turn: later it is of no use
    # RFC 8188 2.1 / RFC 8291 4: salt, record size, and the sender's one-off P-256 key, fresh per message.
    salts, keys = set(), set()
    for request in (to_phone, to_laptop):
        salt, record_size, idlen = struct.unpack("!16sIB", request.body[:21])
        keyid = request.body[21 : 21 + idlen]
        assert record_size >= 18 and idlen == 65 and keyid[0] == 4
        salts.add(salt)
        keys.add(keyid)
    assert len(salts) == len(keys) == 2
    assert not {b64url_encode(k) for k in keys} & {phone.p256dh, laptop.p256dh, application_server_key()}
    # Each body opens with its own browser's keys only.
    with pytest.raises(ECEException):
        phone.decrypt(to_laptop.body)
    with pytest.raises(ECEException):
        laptop.decrypt(to_phone.body)
    delivered = PushDelivery.objects.filter(notification=your_turn(friend, femkes_turn))
    assert set(delivered.values_list("subscription_id", flat=True)) == devices


def test_the_vapid_check_refuses_a_token_altered_or_signed_by_another_key(push_service, friend, femkes_turn):
    """The check the push tests rely on is a real one: it fails for anything the server did not sign."""
    subscribe(friend, BrowserSubscription(push_service.endpoint("femke")))
    services.send_due()
    [request] = push_service.received
    authorization = request.headers["Authorization"]
    assert verify_vapid(authorization).key == application_server_key()

    token = re.search(r"t=([^,\s]+)", authorization).group(1)
    head, _claims, signature = token.split(".")
    claims = b64url_encode(json.dumps({"aud": "https://push.example", "exp": 2**31, "sub": "x"}).encode())
    with pytest.raises(InvalidSignature):
        verify_vapid(authorization.replace(token, f"{head}.{claims}.{signature}"))
    other_key = BrowserSubscription("https://push.example/other").p256dh  # any other P-256 public key
    with pytest.raises(InvalidSignature):
        verify_vapid(authorization.replace(application_server_key(), other_key))


def test_each_device_gets_its_message_in_its_own_language(push_service, host, friend):
    dutch = BrowserSubscription(push_service.endpoint("dutch"))
    english = BrowserSubscription(push_service.endpoint("english"))
    # Added from the page in Dutch, as its script does (the page's CSRF token, the subscription as JSON).
    response = add_device_from_page(client_for(friend, language="nl", enforce_csrf_checks=True), dutch)
    assert response.status_code == 201, response.content
    subscribe(friend, english, language="en")
    game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    play_turn(game, host)
    now = timezone.now()

    services.send_due(now=now)

    [to_dutch] = push_service.received_at(dutch.endpoint)
    [to_english] = push_service.received_at(english.endpoint)
    nl, en = dutch.decrypt(to_dutch.body), english.decrypt(to_english.body)
    assert en == {
        "title": "Penta: your turn",
        "body": "Your turn against hana (23\xa0hours left).",
        "url": f"/games/{game.pk}/",
        "tag": f"game-{game.pk}",
    }
    with translation.override("nl"):
        title = gettext("Penta: your turn")
        body = gettext("Your turn against %(names)s (%(left)s left).") % {
            "names": "hana",
            "left": "23\xa0uur",
        }
    assert title != "Penta: your turn"  # locale/nl has it
    assert (nl["title"], nl["body"]) == (title, body)
    assert (nl["url"], nl["tag"]) == (en["url"], en["tag"])


def test_an_unreachable_push_service_is_tried_again(friend, femkes_turn):
    subscribe(friend, BrowserSubscription(f"http://127.0.0.1:{free_port()}/push/phone"))  # nothing listens
    now = timezone.now()

    assert services.send_due(now=now) == 0

    notification = your_turn(friend, femkes_turn)
    assert (notification.state, notification.attempts) == (PENDING, 1)
    assert notification.due_at == now + timedelta(seconds=services.RETRY_SECONDS[0])
    assert "unreachable" in notification.error
    assert not PushDelivery.objects.exists()


def test_a_push_service_that_does_not_answer_in_time_is_tried_again(
    settings, silent_push_service, friend, femkes_turn
):
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 0.5
    subscribe(friend, BrowserSubscription(silent_push_service))
    started = time.monotonic()

    assert services.send_due() == 0

    assert time.monotonic() - started < 5  # the sweep gave up on it, it did not wait
    notification = your_turn(friend, femkes_turn)
    assert (notification.state, notification.attempts) == (PENDING, 1)
    assert "Timeout" in notification.error


def test_a_player_who_left_the_game_is_not_told(push_service, friend, femkes_turn):
    subscribe(friend, BrowserSubscription(push_service.endpoint("femke")))
    rooms.seat_leave(game_id=femkes_turn.pk, actor=actor(friend))  # the computer plays her seat now

    services.send_due()

    assert push_service.received == []
    assert your_turn(friend, femkes_turn).state == SKIPPED


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_nothing_is_pushed_while_the_players_game_page_is_open(push_service, host, friend):
    browser = BrowserSubscription(push_service.endpoint("femke"))
    await database_sync_to_async(subscribe)(friend, browser)
    game = await database_sync_to_async(started_two_player_game)(host, friend, turn_seconds=60)
    await database_sync_to_async(play_turn)(game, host)
    # femke's game page is open: its socket, through the real ASGI application, holds her seat.
    communicator = await connect(game.pk, friend)
    try:
        await communicator.receive_from(timeout=5)  # the board: the seat is hers by now
        seat = await database_sync_to_async(Player.objects.get)(game=game, user=friend)
        assert seat.connected

        assert await database_sync_to_async(services.send_due)() == 0

        assert push_service.received == []
        notification = await database_sync_to_async(your_turn)(friend, game)
        assert notification.state == SKIPPED
    finally:
        await communicator.disconnect()


def test_the_reminder_is_kept_no_longer_than_the_move_lasts_and_sent_once(push_service, host, friend):
    game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    browser = BrowserSubscription(push_service.endpoint("hana"))
    subscribe(host, browser)
    reminder = your_turn(host, game, Notification.Kind.REMINDER)
    assert services.send_due(now=reminder.due_at - timedelta(seconds=1)) == 1  # "your turn" only

    assert services.send_due(now=reminder.due_at) == 1

    [_first, request] = push_service.received
    assert browser.decrypt(request.body)["title"] == "Penta: time"
    assert int(request.headers["TTL"]) == DAY * REMINDER_SHARE  # the 4.8 hours left
    for later in (timedelta(minutes=1), timedelta(hours=4)):
        assert services.send_due(now=reminder.due_at + later) == 0
    assert len(push_service.received) == 2


def test_a_device_key_that_is_not_a_point_of_the_curve_is_refused(push_service, friend):
    data = BrowserSubscription(push_service.endpoint("odd")).as_json()
    data["keys"]["p256dh"] = NOT_A_POINT

    response = client_for(friend).post(
        reverse("notifications:device_add"), data=json.dumps(data), content_type="application/json"
    )

    assert response.status_code == 400
    assert not PushSubscription.objects.exists()


def test_a_device_whose_key_cannot_be_used_keeps_no_other_device_from_its_one_push(
    push_service, friend, femkes_turn
):
    before, after = (BrowserSubscription(push_service.endpoint(name)) for name in ("before", "after"))
    subscribe(friend, before)
    # A device no message can be encrypted to, stored as push_subscribe lets it be.
    PushSubscription.objects.create(
        user=friend,
        endpoint=push_service.endpoint("broken"),
        p256dh=NOT_A_POINT,
        auth=b64url_encode(bytes(16)),
    )
    subscribe(friend, after)
    notification = your_turn(friend, femkes_turn)
    now = timezone.now()

    for _ in range(len(services.RETRY_SECONDS) + 1):  # the sweeps until it is sent or given up
        services.send_due(now=now)
        notification.refresh_from_db()
        if notification.state != PENDING:
            break
        now = notification.due_at

    assert len(push_service.received_at(before.endpoint)) == 1
    assert len(push_service.received_at(after.endpoint)) == 1
