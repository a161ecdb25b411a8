"""A chat line's push: a player of a correspondence game hears on their devices that a line waits at its
table, when they are away. (With a page of the site open they are not away: the live notice reached it,
as chat published it.)

Queued inside the transaction that kept the line (`on_chat_line_waiting`), at most one waiting per
person and game (a conversation makes one push), and pushed by the clock's sweep apart
(`services.send_push_due`, through `pushing`). The push names the game's other players, not the line:
a line staff hide, or a sender the reader blocks later, is never on a lock screen."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame import events
from dicegame.models import Game
from notifications.challenges import is_online
from notifications.models import Notification

# A push service may keep the push this long while the device is off: a line that waited longer is
# read on the game's page anyway.
KEEP_SECONDS = 24 * 3600


def on_chat_line_waiting(event: events.ChatLineWaiting) -> None:
    now = timezone.now()
    Notification.objects.bulk_create(
        [
            Notification(user_id=user_id, kind=Notification.Kind.CHAT, game_id=event.game_id, due_at=now)
            for user_id in event.user_ids
        ],
        ignore_conflicts=True,
    )


def what_to_push(notification: Notification, now) -> tuple[Callable[[], dict], int] | None:
    """What a waiting line's notification pushes (made in the active language) and for how long; None
    when it needs no push (the person is on the site, or no longer sits at the game)."""
    game = notification.game
    players = list(game.players.order_by("seat")) if game is not None else []
    if is_online(notification.user_id) or all(p.user_id != notification.user_id for p in players):
        return None
    others = [p.display_name for p in players if p.user_id != notification.user_id]
    return partial(_payload, game, others), KEEP_SECONDS


def _payload(game: Game, others: list[str]) -> dict:
    return {
        "title": _("Penta: a line for you"),
        "body": _("A line waits in your game with %(names)s.") % {"names": ", ".join(others)},
        "url": reverse("dicegame:game", args=[game.pk]),
        # One notification on the device per game's conversation.
        "tag": f"chat-{game.pk}",
    }
