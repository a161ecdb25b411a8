"""Notifications' writes: what play tells us is queued (`on_turn_started`, inside play's transaction), and
the game clock's sweep sends what is due (`send_due`) and queues the day's digests (`queue_digests`);
a person's address (`mail_address_set`, `mail_confirm`, ...) and devices (`push_subscribe`, kept in
`subscriptions`)."""

from __future__ import annotations

import email.policy
import functools
import logging
import smtplib
import time
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import courier
from core.times import time_left
from dicegame import events
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play.selectors import games_waiting_for
from dicegame.rules import days
from dicegame.rules.turn import REMINDER_SHARE
from notifications import delivery, notices, people, pushing, senders
from notifications.addresses import clean_address, confirmation_take
from notifications.models import MailSettings, Notification

# A person's devices: kept in `subscriptions`, called through here as ever.
from notifications.subscriptions import DEVICES_MAX as DEVICES_MAX
from notifications.subscriptions import push_subscribe as push_subscribe
from notifications.subscriptions import push_unsubscribe as push_unsubscribe

logger = logging.getLogger(__name__)

SEND_EVERY_SECONDS = 1.0
DIGEST_EVERY_SECONDS = 60.0
SEND_BATCH = 100  # notifications one sweep takes on (at a time)
REFILL_SECONDS = 60.0  # how long a sweep of pushes keeps taking on what comes due
# A sender that took a notification and died leaves it to another after this (a live one renews it).
CLAIM_SECONDS = 120
# The pause after each transient failure in a row; after the last, the notification is given up.
RETRY_SECONDS = delivery.RETRY_SECONDS
DIGEST_AFTER = timedelta(hours=1)  # a game waiting this long goes in the day's digest
CONFIRMATIONS_A_DAY = 3  # confirmation mails one person may ask for in a day (they go to any address)
PUSH_KINDS = delivery.PUSHED
MAIL_KINDS = (Notification.Kind.DIGEST, Notification.Kind.CONFIRM, Notification.Kind.RESET)
CONFIRM_SALT = "notifications.confirm"
UNSUBSCRIBE_SALT = "notifications.unsubscribe"
CONFIRM_MAX_AGE = 3 * 24 * 3600


@functools.cache
def waiting_ping() -> str:
    """The element each page's notice socket receives when the games waiting for its person may have
    changed: the page asks for its own count and list (a request of that page's, off every action's
    path, in its own language)."""
    url = reverse("dicegame:waiting")
    return (
        f'<div id="waiting-ping" hidden hx-swap-oob="true" hx-get="{url}" hx-trigger="load" '
        'hx-swap="none"></div>'
    )


# -- what play tells us (inside its transaction) -------------------------------------------------------


def on_turn_started(event: events.TurnStarted) -> None:
    game, turn = event.game, event.turn
    if game.kind != Game.Kind.FRIENDS:
        return
    seats = game.seats or list(game.players.all())
    transaction.on_commit(partial(ping_waiting_lists, _people(game, seats)))
    player = turn.player
    if player.computer_plays or player.user_id is None or any(p.challenged for p in seats):
        # (A game whose challenge waits for its answer has no clock: the challenge has its own push.)
        return
    now = timezone.now()
    rows = []
    if not player.connected:
        # A player whose seat's screen is open sees the turn on the board (the sweep would skip it: one
        # row written and read again for every turn of every live game, for nothing).
        rows.append(
            Notification(
                user_id=player.user_id,
                kind=Notification.Kind.YOUR_TURN,
                game=game,
                turn_number=turn.number,
                due_at=now,
            )
        )
    if game.is_correspondence and turn.deadline_at is not None:
        remind_at = turn.deadline_at - timedelta(seconds=game.move_seconds * REMINDER_SHARE)
        rows.append(
            Notification(
                user_id=player.user_id,
                kind=Notification.Kind.REMINDER,
                game=game,
                turn_number=turn.number,
                due_at=remind_at,
            )
        )
    # The unique (person, game, turn, kind): a second start of the same turn queues nothing again.
    if rows:
        Notification.objects.bulk_create(rows, ignore_conflicts=True)


def on_inbox_changed(event: events.InboxChanged) -> None:
    """What waits for these people changed (`events.InboxChanged`): their pages ask again, after the
    commit."""
    if event.user_ids:
        transaction.on_commit(partial(ping_waiting_lists, list(event.user_ids)))


def on_game_finished(event: events.GameFinished) -> None:
    if event.game.kind == Game.Kind.FRIENDS:
        transaction.on_commit(partial(ping_waiting_lists, _people(event.game, event.players)))


def _people(game: Game, players: list[Player] | None = None) -> list[int]:
    """The user ids seated in the game, from the seats play holds (a query only when it holds none)."""
    seats = players or game.seats or list(game.players.all())
    return [p.user_id for p in seats if p.user_id is not None]


def ping_waiting_lists(user_ids: list[int]) -> None:
    """Their open pages refresh the games waiting for them (after the commit, through the courier)."""
    messages = [
        ("group", notices.user_group(uid), {"type": "notify", "html": waiting_ping()}) for uid in user_ids
    ]
    try:
        courier.dispatch(messages)
    except Exception:  # the move is saved; a page that missed the ping refreshes its list when next loaded
        logger.exception("could not ping the waiting lists of users %s", user_ids)


# -- the sweep: sending what is due --------------------------------------------------------------------


def send_due(now=None) -> int:
    """Send the notifications that are due: the mails, then the pushes (at most SEND_BATCH of each);
    returns how many were sent. The clock runs the two in loops of their own (`send_mail_due`,
    `send_push_due`), so that a push service never holds up a mail."""
    now = now or timezone.now()
    return send_mail_due(now) + send_push_due(now)


def send_mail_due(now=None) -> int:
    """Send the due mails (digests, confirmations, password resets), one after another; returns how many
    were sent."""
    now = now or timezone.now()
    sent = 0
    for notification in _claim(now, MAIL_KINDS):
        try:
            sent += _send(notification, now)
        except Exception:  # one notification's bug must not stop the others
            logger.exception("notification %s not sent", notification.pk)
            delivery.retry(notification, now, "unexpected error")
    return sent


def send_push_due(now=None) -> int:
    """Push the due turns to the people's devices, side by side within the senders' bounds (`senders`),
    each push within PENTA_PUSH_TIMEOUT_SECONDS; returns how many notifications reached a device.
    While slow pushes are under way, what comes due meanwhile is taken on too (every
    SEND_EVERY_SECONDS, for up to REFILL_SECONDS): it does not wait for the slowest of them.

    Each push is written down as soon as it ends (`pushing.record`), and the claim on the notifications
    still under way is renewed every quarter of CLAIM_SECONDS meanwhile: however long slow devices
    take, no other sender takes a notification while this one still works on it, and none pushes
    again to a device already reached."""
    now = now or timezone.now()
    started = time.monotonic()
    under_way: dict[int, pushing.TurnPush] = {}
    sent = 0

    def take_due(*, first: bool = False) -> list[senders.Job]:
        nonlocal sent
        at = now if first else now + timedelta(seconds=time.monotonic() - started)
        jobs = []
        for notification in _claim(at, PUSH_KINDS):
            try:
                pushes = pushing.prepare(notification, at)
                if pushes is None:
                    delivery.done(notification, Notification.State.SKIPPED, at)
                elif not pushes.devices:
                    sent += _pushed(pushes)
                else:
                    under_way[notification.pk] = pushes
                    jobs.extend(pushes.jobs)
            except Exception:  # one notification's bug must not stop the others
                logger.exception("notification %s not sent", notification.pk)
                delivery.retry(notification, at, "unexpected error")
        return jobs

    def on_done(job: senders.Job, outcome) -> None:
        nonlocal sent
        pushes, device = job.tag
        notification = pushes.notification
        if notification.pk not in under_way:
            return  # failed already (below)
        try:
            with transaction.atomic():
                pushing.record(pushes, device, outcome)
                if pushes.left == 0:
                    del under_way[notification.pk]
                    sent += _pushed(pushes)
        except Exception:
            logger.exception("notification %s: push to device %s not recorded", notification.pk, device.pk)
            under_way.pop(notification.pk, None)
            delivery.retry(notification, pushes.now, "unexpected error")

    def keep_alive() -> None:
        until = now + timedelta(seconds=time.monotonic() - started + CLAIM_SECONDS)
        Notification.objects.filter(pk__in=list(under_way), state=Notification.State.PENDING).update(
            claimed_until=until
        )

    senders.run(
        take_due(first=True),
        on_done=on_done,
        keep_alive=keep_alive,
        every=CLAIM_SECONDS / 4,
        more=take_due,
        more_every=SEND_EVERY_SECONDS,
        more_for=REFILL_SECONDS,
    )
    return sent


def _pushed(pushes: pushing.TurnPush) -> int:
    """A notification whose pushes have all ended: tried again later if one failed."""
    if pushes.errors:
        delivery.retry(pushes.notification, pushes.now, "; ".join(pushes.errors))
        return 0
    # Sent: pushed to a device. Without one (none, or every one gone) only the open pages were told.
    state = Notification.State.SENT if pushes.delivered else Notification.State.SKIPPED
    delivery.done(pushes.notification, state, pushes.now)
    return 1 if pushes.delivered else 0


def _claim(now, kinds) -> list[Notification]:
    """Take the due notifications of these kinds for this sender: other senders (web processes,
    run_timers) skip them while the claim lasts, so each is sent by one."""
    with transaction.atomic():
        due = (
            Notification.objects.select_for_update(skip_locked=True)
            .filter(state=Notification.State.PENDING, due_at__lte=now, kind__in=kinds)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .order_by("due_at", "pk")
        )
        ids = list(due.values_list("pk", flat=True)[:SEND_BATCH])
        Notification.objects.filter(pk__in=ids).update(claimed_until=now + timedelta(seconds=CLAIM_SECONDS))
    return list(
        Notification.objects.filter(pk__in=ids).select_related("user", "game").order_by("due_at", "pk")
    )


def _send(notification: Notification, now) -> int:
    if notification.kind == Notification.Kind.DIGEST:
        return _send_mail(notification, now, _digest_mail)
    if notification.kind == Notification.Kind.RESET:
        return _send_mail(notification, now, people.reset_mail)
    return _send_mail(notification, now, _confirmation_mail)


def _names(opponents: list[str]) -> str:
    return ", ".join(opponents)


def _time_left(turn: Turn, now) -> str:
    return time_left(turn.deadline_at, now, depth=1) if turn.deadline_at else ""


# -- e-mail ---------------------------------------------------------------------------------------------


def site_url(path: str) -> str:
    return settings.PENTA_SITE_URL.rstrip("/") + path


def unsubscribe_url(user_id: int) -> str:
    token = signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_SALT)
    return site_url(reverse("notifications:unsubscribe", args=[token]))


def _send_mail(notification: Notification, now, compose) -> int:
    message = compose(notification, now)
    if message is None:
        delivery.done(notification, Notification.State.SKIPPED, now)
        return 0
    try:
        message.send()
    except smtplib.SMTPRecipientsRefused as exc:  # this address will not take it: no point retrying
        Notification.objects.filter(pk=notification.pk).update(
            state=Notification.State.FAILED, error=str(exc)[:300], claimed_until=None
        )
        delivery.count(notification, Notification.State.FAILED)
        return 0
    except (smtplib.SMTPException, OSError) as exc:  # the server is away or busy: later
        delivery.retry(notification, now, f"{type(exc).__name__}: {exc}")
        return 0
    delivery.done(notification, Notification.State.SENT, now)
    return 1


class _Mail(EmailMultiAlternatives):
    """A mail whose header lines may run to RFC 5322's 998 characters: folded at 78 (the SMTP backend's
    policy), the long unsubscribe link became RFC 2047 encoded-words, which List-Unsubscribe does not
    allow (RFC 2369), and mail programs offered no unsubscribe."""

    def message(self, *, policy=email.policy.default):
        return super().message(policy=policy.clone(max_line_length=998))


def _mail(subject: str, template: str, context: dict, to: str, user_id: int) -> EmailMultiAlternatives:
    unsubscribe = unsubscribe_url(user_id)
    context = {**context, "unsubscribe_url": unsubscribe}
    message = _Mail(
        subject=subject,
        body=render_to_string(f"notifications/email/{template}.txt", context),
        to=[to],
        # RFC 8058: a mail program's one-click unsubscribe (a POST to the same link).
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(render_to_string(f"notifications/email/{template}.html", context), "text/html")
    return message


def _digest_mail(notification: Notification, now) -> EmailMultiAlternatives | None:
    mail = MailSettings.objects.filter(user_id=notification.user_id).first()
    if mail is None or not mail.sends_digest:
        return None
    waiting = games_waiting_for(user_id=notification.user_id)
    if not waiting:
        return None
    with translation.override(mail.language):
        games = [
            {
                "names": _names([p.display_name for p in w.opponents]),
                "left": _time_left(w.turn, now),
                "url": site_url(reverse("dicegame:game", args=[w.game.pk])),
            }
            for w in waiting
        ]
        subject = ngettext(
            "Penta: a game waits for your move", "Penta: %(n)d games wait for your move", len(games)
        ) % {"n": len(games)}
        return _mail(
            subject, "digest", {"games": games, "user": notification.user}, mail.address, mail.user_id
        )


def _confirmation_mail(notification: Notification, now) -> EmailMultiAlternatives | None:
    mail = MailSettings.objects.filter(user_id=notification.user_id).first()
    if mail is None or mail.address != notification.address or mail.confirmed_at is not None:
        return None  # changed or confirmed meanwhile
    token = signing.dumps({"u": mail.user_id, "a": mail.address}, salt=CONFIRM_SALT)
    with translation.override(mail.language):
        context = {"confirm_url": site_url(reverse("notifications:confirm", args=[token]))}
        return _mail(_("Penta: confirm your address"), "confirm", context, mail.address, mail.user_id)


def queue_digests(now=None) -> int:
    """Queue today's digest for every person with a confirmed address who opted in and has a game that
    has waited for their move for DIGEST_AFTER (at most one a day: the unique person and day)."""
    now = now or timezone.now()
    people = set(
        Turn.objects.filter(
            completed_at__isnull=True,
            started_at__lte=now - DIGEST_AFTER,
            player__stand_in=False,
            player__left_at__isnull=True,
            player__user__mail__digest=True,
            player__user__mail__confirmed_at__isnull=False,
            game__status=Game.Status.ACTIVE,
            game__kind=Game.Kind.FRIENDS,
        ).values_list("player__user_id", flat=True)
    )
    today = days.today(now)
    rows = [Notification(user_id=u, kind=Notification.Kind.DIGEST, day=today, due_at=now) for u in people]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    return 0  # no game changed


# -- a person's devices and address ----------------------------------------------------------------------


@transaction.atomic
def mail_address_set(
    *, user, address: str, digest: bool, language: str, client: str | None = None
) -> MailSettings:
    """The person's address for the digest, and whether they want it. A new address waits for its
    confirmation (a signed link sent to it, off the request path), within the caps of notifications.
    addresses (`client`: accounts.throttle.client_address). A refused one (400, 429) changes nothing."""
    address = clean_address(address, digest)
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    mail, _created = MailSettings.objects.get_or_create(user=user)
    changed = address != mail.address
    # A new address, or the same one still unconfirmed saved again (the last link lost): a link goes.
    confirm = bool(address) and (changed or mail.confirmed_at is None)
    if confirm:
        confirmation_take(user_id=user.pk, address=address, client=client, per_person=CONFIRMATIONS_A_DAY)
    mail.address, mail.digest, mail.language = address, digest, language
    if changed:
        mail.confirmed_at = None
    mail.save()
    if confirm:
        Notification.objects.create(
            user=user, kind=Notification.Kind.CONFIRM, address=address, due_at=timezone.now()
        )
    return mail


def mail_confirm(*, token: str) -> MailSettings:
    """The link sent to the address: the address is confirmed (once; a stale link answers 400)."""
    try:
        data = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except signing.BadSignature:
        raise GameActionError(_("This confirmation link is not valid or has expired."), status=400) from None
    with transaction.atomic():
        mail = MailSettings.objects.select_for_update().filter(user_id=data["u"]).first()
        if mail is None or mail.address != data["a"]:
            raise GameActionError(_("This confirmation link is for an address no longer in use."), status=400)
        if mail.confirmed_at is None:
            mail.confirmed_at = timezone.now()
            mail.save(update_fields=["confirmed_at"])
    return mail


def mail_unsubscribe(*, token: str) -> int:
    """The link in every mail: no more digests for that person (no login needed). Returns the user id."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        raise GameActionError(_("This unsubscribe link is not valid."), status=400) from None
    MailSettings.objects.filter(user_id=data["u"]).update(digest=False)
    return data["u"]
