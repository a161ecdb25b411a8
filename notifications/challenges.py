"""A challenge's push: the person challenged hears of it on their devices when they are away. (With a
page of the site open they are not away: the live notice reached it, as play published it.)

Queued inside the transaction that sent the challenge (`on_challenge_sent`), pushed by the clock's sweep
apart (`services.send_push_due`, through `pushing`), once, and not at all if the challenge was
answered, called off or expired first."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame import events
from dicegame.offers import Challenge
from notifications.models import Notification

# Whether a person has a page of the site open now: the sockets' app (`live`) knows and tells us in its
# AppConfig.ready, as it sits above this one. Without it everyone counts as away.
_online: list[Callable[[int], bool]] = []


def register_online_check(check: Callable[[int], bool]) -> None:
    if check not in _online:
        _online.append(check)


def is_online(user_id: int) -> bool:
    return any(check(user_id) for check in _online)


def on_challenge_sent(event: events.ChallengeSent) -> None:
    challenge = event.challenge
    Notification.objects.bulk_create(
        [
            Notification(
                user_id=challenge.to_user_id,
                kind=Notification.Kind.CHALLENGE,
                challenge=challenge,
                due_at=timezone.now(),
            )
        ],
        ignore_conflicts=True,
    )


def what_to_push(notification: Notification, now) -> tuple[Callable[[], dict], int] | None:
    """What a due challenge's notification pushes (made in the active language) and for how long the
    push service may keep it; None when it needs no push any more (answered, called off, expired, or
    the person has a page of the site open)."""
    challenge = Challenge.objects.filter(pk=notification.challenge_id).select_related("from_user").first()
    if (
        challenge is None
        or not challenge.is_pending
        or challenge.expires_at <= now
        or is_online(notification.user_id)
    ):
        return None
    return partial(_payload, challenge), max(60, int((challenge.expires_at - now).total_seconds()))


def _payload(challenge: Challenge) -> dict:
    values = {"name": challenge.from_user.get_username(), "pace": challenge.pace_label}
    if challenge.rematch_of_id:
        body = _("%(name)s offers you a rematch.") % values
    elif challenge.rated:
        body = _("%(name)s challenges you to a rated game: %(pace)s.") % values
    else:
        body = _("%(name)s challenges you to a game: %(pace)s.") % values
    return {
        "title": _("Penta: a challenge"),
        "body": body,
        "url": reverse("dicegame:challenge", args=[challenge.pk]),
        # One notification on the device per challenge.
        "tag": f"challenge-{challenge.pk}",
    }
