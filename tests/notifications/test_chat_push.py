"""A line said at a correspondence game's table reaches its other players on their devices when they are
away (issue 45): one push per conversation, in each device's language, naming the game and not the
line; none to a player with a page of the site open, none for a reaction, none to a person the sender
blocked, none in a live game."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Block
from chat import services as chat
from dicegame.models import Game
from live import presence
from notifications import services
from notifications.models import Notification
from tests.support.chat import seasoned, table
from tests.support.factories import befriend
from tests.support.notifications import subscribe
from tests.support.push_service import BrowserSubscription

pytestmark = pytest.mark.django_db
CHAT = Notification.Kind.CHAT


@pytest.fixture
def game():
    ann, bob = seasoned("ann"), seasoned("bob")
    befriend(ann, bob)
    return table(ann, bob, pace=Game.Pace.CORRESPONDENCE)


def people(game):
    return [p.user for p in game.players.order_by("seat")]


def say(user, game, text, kind="text"):
    return chat.line_post(game_id=game.pk, user=user, kind=kind, text=text)


def test_an_away_player_gets_one_push_per_conversation_in_the_devices_language(push_service, game):
    ann, bob = people(game)
    laptop = BrowserSubscription(push_service.endpoint("laptop"))
    phone = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(bob, laptop)
    subscribe(bob, phone, language="nl")
    say(ann, game, "your move, slowpoke")
    say(ann, game, "hello?")

    assert services.send_due() == 1

    [to_laptop] = push_service.received_at(laptop.endpoint)
    assert laptop.decrypt(to_laptop.body) == {
        "title": "Penta: a line for you",
        "body": "A line waits in your game with ann.",
        "url": reverse("dicegame:game", args=[game.pk]),
        "tag": f"chat-{game.pk}",
    }
    [to_phone] = push_service.received_at(phone.endpoint)
    assert phone.decrypt(to_phone.body)["title"] == "Penta: een regel voor jou"
    # The line itself is not on a lock screen.
    assert "slowpoke" not in str(laptop.decrypt(to_laptop.body))
    assert Notification.objects.filter(kind=CHAT).count() == 1
    assert services.send_due() == 0 and len(push_service.received_at(laptop.endpoint)) == 1


def test_a_player_on_the_site_is_not_away_no_push(push_service, game):
    ann, bob = people(game)
    device = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(bob, device)
    presence.notice_socket_opened(
        user_id=bob.pk, identity=f"user:{bob.pk}", channel_name="bob-tab", language="en"
    )
    say(ann, game, "your move")
    services.send_due()
    assert push_service.received_at(device.endpoint) == []
    assert Notification.objects.get(kind=CHAT).state == Notification.State.SKIPPED


def test_no_push_for_a_reaction_nor_to_a_person_the_sender_blocked(push_service, game):
    ann, bob = people(game)
    device = BrowserSubscription(push_service.endpoint("phone"))
    subscribe(bob, device)
    say(ann, game, "fire", kind="reaction")
    assert not Notification.objects.filter(kind=CHAT).exists()
    Block.objects.create(blocker=bob, blocked=ann)
    say(ann, game, "answer me")
    assert not Notification.objects.filter(kind=CHAT).exists()
    services.send_due()
    assert push_service.received_at(device.endpoint) == []


def test_no_push_for_a_line_in_a_live_game(push_service):
    ann, bob = seasoned("ann"), seasoned("bob")
    befriend(ann, bob)
    game = table(ann, bob, pace=Game.Pace.LIVE)
    subscribe(bob, BrowserSubscription(push_service.endpoint("phone")))
    say(ann, game, "nice one")
    assert not Notification.objects.filter(kind=CHAT).exists()
