"""The push side of the sweep, device by device: what a due "your turn", reminder or challenge sends to
each of the person's devices (`prepare`), and what each push did, written as soon as it is known
(`record`): the delivery, so that no later sender pushes that device again, or the device's failure,
counted against its failure budget.

The failure budget: a device whose pushes have failed FAILURES_TO_DROP times in a row, over at least
FAILING_FOR, is dropped (the person adds it again from the settings page). A success starts the count
afresh. Both must hold: a push service that is down for an afternoon costs nobody a device, and an
endpoint that never answers, or answers slowly, or leads nowhere allowed, stops costing a sender."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

from django.db.models import F
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import override

from dicegame.models import Turn
from notifications import challenges, chatlines, notices, push, senders
from notifications.models import Notification, PushDelivery, PushSubscription

logger = logging.getLogger(__name__)

FAILURES_TO_DROP = 10
FAILING_FOR = timedelta(days=1)


@dataclass(eq=False)
class TurnPush:
    """One notification's pushes under way (a turn's, a reminder's or a challenge's)."""

    notification: Notification
    now: object  # the sweep's time when it was taken on (a datetime)
    devices: list[PushSubscription]  # not yet reached
    delivered: bool  # to at least one device (in this attempt or an earlier one)
    jobs: list[senders.Job] = field(default_factory=list)
    left: int = 0
    errors: list[str] = field(default_factory=list)


def prepare(notification: Notification, now) -> TurnPush | None:
    """The pushes of a due notification to each of the person's devices not reached yet, or None when
    it no longer needs telling (a turn played, left, the computer's, or its player on the game's page; a
    challenge answered, called off, expired, or its person on the site; a chat line's reader on the
    site)."""
    if notification.kind == Notification.Kind.CHALLENGE:
        told = challenges.what_to_push(notification, now)
    elif notification.kind == Notification.Kind.CHAT:
        told = chatlines.what_to_push(notification, now)
    else:
        told = _turn(notification, now)
    if told is None:
        return None
    payload, ttl = told
    delivered = set(notification.deliveries.values_list("subscription_id", flat=True))
    devices = list(PushSubscription.objects.filter(user_id=notification.user_id).exclude(pk__in=delivered))
    pushes = TurnPush(notification, now, devices, delivered=bool(delivered), left=len(devices))
    for device in devices:
        with override(device.language):
            message = push.prepare(device, payload(), ttl=ttl)
        # Encrypted and signed here; only the network waits in a sender.
        work = (
            partial(_known, message) if isinstance(message, push.Outcome) else partial(push.deliver, message)
        )
        job = senders.Job(person=notification.user_id, device=device.pk, work=work, tag=(pushes, device))
        pushes.jobs.append(job)
    return pushes


def _turn(notification: Notification, now) -> tuple[Callable[[], dict], int] | None:
    """What a due "your turn" or reminder pushes (made in the active language) and for how long the
    push service may keep it. On its first attempt the person's other open pages are told too."""
    game = notification.game
    turn = (
        Turn.objects.filter(game=game, number=notification.turn_number, completed_at__isnull=True)
        .select_related("player")
        .first()
    )
    seat = turn.player if turn is not None else None
    if (
        not game.is_active
        or seat is None
        or seat.user_id != notification.user_id
        or seat.computer_plays
        # On the game's page already: the board says it.
        or seat.connected
    ):
        return None
    opponents = [p.display_name for p in game.players.exclude(pk=seat.pk).order_by("seat")]
    if notification.attempts == 0:
        # On the site's other open pages (the live notice, in each page's language); once.
        notices.notify_user(notification.user_id, partial(_site_notice, notification, turn, opponents, now))
    ttl = max(60, int((turn.deadline_at - now).total_seconds())) if turn.deadline_at else 24 * 3600
    return partial(_push_payload, notification, turn, opponents, now), ttl


def _known(outcome: push.Outcome) -> push.Outcome:
    return outcome


def record(pushes: TurnPush, device: PushSubscription, outcome) -> None:
    """What one push did (inside the caller's transaction)."""
    now = pushes.now
    pushes.left -= 1
    if not isinstance(outcome, push.Outcome):  # a bug of the job's: a failure of this device
        outcome = push.Outcome(error=f"push failed: {type(outcome).__name__}")
    if outcome.delivered:
        PushDelivery.objects.bulk_create(
            [PushDelivery(notification=pushes.notification, subscription=device)], ignore_conflicts=True
        )
        PushSubscription.objects.filter(pk=device.pk).update(last_sent_at=now, failures=0, failing_since=None)
        pushes.delivered = True
    elif outcome.gone:
        PushSubscription.objects.filter(pk=device.pk).delete()
    else:
        pushes.errors.append(outcome.error)
        _failed(device, now)


def _failed(device: PushSubscription, now) -> None:
    PushSubscription.objects.filter(pk=device.pk).update(
        failures=F("failures") + 1, failing_since=Coalesce(F("failing_since"), now)
    )
    spent = PushSubscription.objects.filter(
        pk=device.pk, failures__gte=FAILURES_TO_DROP, failing_since__lte=now - FAILING_FOR
    )
    if spent.delete()[0]:
        logger.warning("device %s of user %s dropped: its pushes kept failing", device.pk, device.user_id)


# -- what a push says ---------------------------------------------------------------------------------


def _time_left(turn: Turn, now) -> str:
    return timeuntil(turn.deadline_at, now, depth=1) if turn.deadline_at else ""


def turn_text(notification: Notification, turn: Turn, opponents: list[str], now) -> str:
    values = {"names": ", ".join(opponents), "left": _time_left(turn, now)}
    if notification.kind == Notification.Kind.REMINDER:
        return _("Your move against %(names)s: only %(left)s left.") % values
    if turn.deadline_at is not None:
        return _("Your turn against %(names)s (%(left)s left).") % values
    return _("Your turn against %(names)s.") % values


def _site_notice(notification: Notification, turn: Turn, opponents: list[str], now) -> str:
    url = reverse("dicegame:game", args=[notification.game_id])
    return notices.notice_html(turn_text(notification, turn, opponents, now), url, _("Play"))


def _push_payload(notification: Notification, turn: Turn, opponents: list[str], now) -> dict:
    return {
        "title": _("Penta: your turn")
        if notification.kind == Notification.Kind.YOUR_TURN
        else _("Penta: time"),
        "body": turn_text(notification, turn, opponents, now),
        "url": reverse("dicegame:game", args=[notification.game_id]),
        # One notification on the device per game: a newer one replaces it.
        "tag": f"game-{notification.game_id}",
    }
