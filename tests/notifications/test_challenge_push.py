"""A challenge reaches the person challenged at once (issue 41): a live notice on every open page and
their inbox asked for again over the notice socket; and, when they are away (no page of the site holds a
socket), a Web Push on their devices, in each device's language, once, and not at all once the
challenge was answered, called off or expired."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.urls import reverse

from dicegame.play import challenges
from dicegame.play.challenges import Terms
from live import presence
from notifications import services
from notifications.models import Notification
from tests.support.factories import UserFactory, actor, befriend
from tests.support.notifications import subscribe
from tests.support.push_service import BrowserSubscription
from tests.support.sockets import open_notice_socket

SENT, SKIPPED = Notification.State.SENT, Notification.State.SKIPPED


def send(frm, to, terms=None):
    return challenges.challenge_send(actor=actor(frm), username=to.username, terms=terms or Terms())


@pytest.mark.django_db
def test_an_away_friend_gets_a_push_on_each_device_in_its_language(push_service, host, friend):
    phone = BrowserSubscription(push_service.endpoint("phone"))
    laptop = BrowserSubscription(push_service.endpoint("laptop"))
    subscribe(friend, phone, language="nl")
    subscribe(friend, laptop)
    challenge = send(host, friend, Terms(move_seconds=24 * 3600))

    assert services.send_due() == 1

    [to_phone] = push_service.received_at(phone.endpoint)
    [to_laptop] = push_service.received_at(laptop.endpoint)
    url = reverse("dicegame:challenge", args=[challenge.pk])
    assert laptop.decrypt(to_laptop.body) == {
        "title": "Penta: a challenge",
        "body": "hana challenges you to a game: Correspondence, a day a move.",
        "url": url,
        "tag": f"challenge-{challenge.pk}",
    }
    dutch = phone.decrypt(to_phone.body)
    assert dutch["title"] == "Penta: een uitdaging" and dutch["url"] == url
    assert dutch["body"] == "hana daagt je uit voor een potje: Correspondentie, een dag per zet."
    # It lives as long as the challenge does (a week), and goes once.
    assert int(to_laptop.headers["TTL"]) > 6 * 24 * 3600
    assert Notification.objects.get(kind=Notification.Kind.CHALLENGE).state == SENT
    assert services.send_due() == 0 and len(push_service.received_at(laptop.endpoint)) == 1


@pytest.mark.django_db
def test_no_push_for_a_challenge_answered_before_it_went(push_service, host, friend):
    device = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(friend, device)
    challenge = send(host, friend)
    challenges.challenge_decline(challenge_id=challenge.pk, actor=actor(friend))
    services.send_due()
    assert push_service.received_at(device.endpoint) == []
    assert Notification.objects.get(kind=Notification.Kind.CHALLENGE).state == SKIPPED


@pytest.mark.django_db
def test_a_friend_with_a_page_open_is_not_away_no_push(push_service, host, friend):
    device = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(friend, device)
    presence.notice_socket_opened(
        user_id=friend.pk, identity=f"user:{friend.pk}", channel_name="femke-tab", language="en"
    )
    send(host, friend)
    services.send_due()
    assert push_service.received_at(device.endpoint) == []
    assert Notification.objects.get(kind=Notification.Kind.CHALLENGE).state == SKIPPED


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_open_page_is_told_at_once_and_asks_for_its_inbox():
    await get_channel_layer().flush()
    hana, femke = await database_sync_to_async(
        lambda: (UserFactory(username="hana"), UserFactory(username="femke"))
    )()
    await database_sync_to_async(befriend)(hana, femke)
    page, connected, _code = await open_notice_socket(femke)
    assert connected
    challenge = await sync_to_async(send)(hana, femke)
    frames = [await page.receive_from(timeout=5) for _ in range(2)]
    notice = next(f for f in frames if "notice" in f)
    assert "hana challenges you to a game: Live, 60 s a turn." in notice
    assert f'href="/challenges/{challenge.pk}/"' in notice and ">Answer</a>" in notice
    assert any('id="waiting-ping"' in f and 'hx-get="/games/waiting/"' in f for f in frames)
    await page.disconnect()
