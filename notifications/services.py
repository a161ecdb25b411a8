"""Notifications' writes: what play tells us is queued (`on_turn_started`, inside play's transaction), and
the game clock's sweep sends what is due (`send_due`) and queues the day's digests (`queue_digests`);
a person's devices and address (`push_subscribe`, `mail_address_set`, `mail_confirm`, ...)."""

from __future__ import annotations

import base64
import binascii
import email.policy
import functools
import logging
import smtplib
from datetime import timedelta
from functools import partial
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
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

from core import courier, metrics
from core.times import time_left
from dicegame import events
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play.selectors import games_waiting_for
from dicegame.rules import days
from dicegame.rules.turn import REMINDER_SHARE
from notifications import notices, push
from notifications.models import MailSettings, Notification, PushDelivery, PushSubscription

logger = logging.getLogger(__name__)

SEND_EVERY_SECONDS = 1.0
DIGEST_EVERY_SECONDS = 60.0
SEND_BATCH = 100  # notifications one sweep takes on
CLAIM_SECONDS = 120  # a sender that took a notification and died leaves it to another after this
# The pause after each transient failure in a row; after the last, the notification is given up.
RETRY_SECONDS = (30, 120, 600, 3600)
DIGEST_AFTER = timedelta(hours=1)  # a game waiting this long goes in the day's digest
CONFIRMATIONS_A_DAY = 3  # confirmation mails one person may ask for in a day (they go to any address)
DEVICES_MAX = 10
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
    transaction.on_commit(partial(ping_waiting_lists, _people(game)))
    player = turn.player
    if player.computer_plays or player.user_id is None:
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
    """Send the notifications that are due (at most SEND_BATCH); returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    for notification in _claim(now):
        try:
            sent += _send(notification, now)
        except Exception:  # one notification's bug must not stop the others
            logger.exception("notification %s not sent", notification.pk)
            _retry(notification, now, "unexpected error")
    return sent


def _claim(now) -> list[Notification]:
    """Take the due notifications for this sender: other senders (web processes, run_timers) skip them
    while the claim lasts, so each is sent by one."""
    with transaction.atomic():
        due = (
            Notification.objects.select_for_update(skip_locked=True)
            .filter(state=Notification.State.PENDING, due_at__lte=now)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .order_by("due_at", "pk")
        )
        ids = list(due.values_list("pk", flat=True)[:SEND_BATCH])
        Notification.objects.filter(pk__in=ids).update(claimed_until=now + timedelta(seconds=CLAIM_SECONDS))
    return list(
        Notification.objects.filter(pk__in=ids).select_related("user", "game").order_by("due_at", "pk")
    )


def _done(notification: Notification, state: str, now) -> None:
    Notification.objects.filter(pk=notification.pk).update(state=state, sent_at=now, claimed_until=None)
    _count(notification, state)


def _count(notification: Notification, outcome: str) -> None:
    turn = notification.kind in (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)
    metrics.NOTIFICATIONS.labels("push" if turn else "mail", outcome).inc()


def _retry(notification: Notification, now, error: str) -> None:
    attempts = notification.attempts + 1
    if attempts > len(RETRY_SECONDS):
        Notification.objects.filter(pk=notification.pk).update(
            state=Notification.State.FAILED, attempts=attempts, error=error[:300], claimed_until=None
        )
        logger.warning("notification %s given up after %d attempts: %s", notification.pk, attempts, error)
        _count(notification, Notification.State.FAILED)
        return
    _count(notification, "retry")
    Notification.objects.filter(pk=notification.pk).update(
        attempts=attempts,
        due_at=now + timedelta(seconds=RETRY_SECONDS[attempts - 1]),
        error=error[:300],
        claimed_until=None,
    )


def _send(notification: Notification, now) -> int:
    kind = notification.kind
    if kind in (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER):
        return _send_turn(notification, now)
    if kind == Notification.Kind.DIGEST:
        return _send_mail(notification, now, _digest_mail)
    return _send_mail(notification, now, _confirmation_mail)


def _send_turn(notification: Notification, now) -> int:
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
        _done(notification, Notification.State.SKIPPED, now)
        return 0
    opponents = [p.display_name for p in game.players.exclude(pk=seat.pk).order_by("seat")]
    if notification.attempts == 0:
        # On the site's other open pages (the live notice, in each page's language); once.
        notices.notify_user(notification.user_id, partial(_site_notice, notification, turn, opponents, now))
    errors, reached, gone = [], [], []
    delivered = set(notification.deliveries.values_list("subscription_id", flat=True))
    for device in PushSubscription.objects.filter(user_id=notification.user_id).exclude(pk__in=delivered):
        with translation.override(device.language):
            payload = _push_payload(notification, turn, opponents, now)
        ttl = max(60, int((turn.deadline_at - now).total_seconds())) if turn.deadline_at else 24 * 3600
        outcome = push.send(device, payload, ttl=ttl)
        if outcome.gone:
            gone.append(device.pk)
        elif outcome.delivered:
            reached.append(device.pk)
        else:
            errors.append(outcome.error)
    # What the pushes did, written at once (one commit, not one per device). A sender that dies before
    # it sends again when its claim lapses: the device shows one notification per game (its tag).
    with transaction.atomic():
        PushSubscription.objects.filter(pk__in=gone).delete()
        PushDelivery.objects.bulk_create(
            [PushDelivery(notification=notification, subscription_id=pk) for pk in reached],
            ignore_conflicts=True,
        )
        PushSubscription.objects.filter(pk__in=reached).update(last_sent_at=now)
        delivered.update(reached)
        if errors:
            _retry(notification, now, "; ".join(errors))
            return 0
        # Sent: pushed to a device. Without one (none, or every one gone) only the open pages were told.
        _done(notification, Notification.State.SENT if delivered else Notification.State.SKIPPED, now)
    return 1 if delivered else 0


def _names(opponents: list[str]) -> str:
    return ", ".join(opponents)


def _time_left(turn: Turn, now) -> str:
    return time_left(turn.deadline_at, now, depth=1) if turn.deadline_at else ""


def _turn_text(notification: Notification, turn: Turn, opponents: list[str], now) -> str:
    values = {"names": _names(opponents), "left": _time_left(turn, now)}
    if notification.kind == Notification.Kind.REMINDER:
        return _("Your move against %(names)s: only %(left)s left.") % values
    if turn.deadline_at is not None:
        return _("Your turn against %(names)s (%(left)s left).") % values
    return _("Your turn against %(names)s.") % values


def _site_notice(notification: Notification, turn: Turn, opponents: list[str], now) -> str:
    url = reverse("dicegame:game", args=[notification.game_id])
    return notices.notice_html(_turn_text(notification, turn, opponents, now), url, _("Play"))


def _push_payload(notification: Notification, turn: Turn, opponents: list[str], now) -> dict:
    return {
        "title": _("Penta: your turn")
        if notification.kind == Notification.Kind.YOUR_TURN
        else _("Penta: time"),
        "body": _turn_text(notification, turn, opponents, now),
        "url": reverse("dicegame:game", args=[notification.game_id]),
        # One notification on the device per game: a newer one replaces it.
        "tag": f"game-{notification.game_id}",
    }


# -- e-mail ---------------------------------------------------------------------------------------------


def site_url(path: str) -> str:
    return settings.PENTA_SITE_URL.rstrip("/") + path


def unsubscribe_url(user_id: int) -> str:
    token = signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_SALT)
    return site_url(reverse("notifications:unsubscribe", args=[token]))


def _send_mail(notification: Notification, now, compose) -> int:
    message = compose(notification, now)
    if message is None:
        _done(notification, Notification.State.SKIPPED, now)
        return 0
    try:
        message.send()
    except smtplib.SMTPRecipientsRefused as exc:  # this address will not take it: no point retrying
        Notification.objects.filter(pk=notification.pk).update(
            state=Notification.State.FAILED, error=str(exc)[:300], claimed_until=None
        )
        _count(notification, Notification.State.FAILED)
        return 0
    except (smtplib.SMTPException, OSError) as exc:  # the server is away or busy: later
        _retry(notification, now, f"{type(exc).__name__}: {exc}")
        return 0
    _done(notification, Notification.State.SENT, now)
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
        context = {"confirm_url": site_url(reverse("notifications:confirm", args=[token])), "user": mail.user}
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


def _key_bytes(value: str, size: int, refusal: str) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise GameActionError(refusal, status=400)
    return raw


def _check_device_key(p256dh: str) -> None:
    """The browser's key is a point of P-256: nothing could ever be encrypted to anything else."""
    refusal = _("This device's key is not valid.")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _key_bytes(p256dh, 65, refusal))
    except ValueError:
        raise GameActionError(refusal, status=400) from None


def push_subscribe(
    *, user, endpoint: str, p256dh: str, auth: str, label: str, language: str
) -> PushSubscription:
    """A device of the person (its browser's push endpoint and keys); the same device again updates it.
    One device belongs to one person: a shared browser follows whoever subscribed last."""
    parts = urlsplit(endpoint or "")
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if not parts.hostname or not (
        parts.scheme == "https" or (settings.PENTA_PUSH_ALLOW_LOOPBACK and loopback)
    ):
        raise GameActionError(_("This device's push address is not valid."), status=400)
    _check_device_key(p256dh)
    _key_bytes(auth, 16, _("This device's secret is not valid."))
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
        existing = PushSubscription.objects.filter(endpoint=endpoint).first()
        if existing is None and PushSubscription.objects.filter(user=user).count() >= DEVICES_MAX:
            raise GameActionError(
                _("At most %(n)d devices get notifications: remove one first.") % {"n": DEVICES_MAX},
                status=409,
            )
        device, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": user,
                "p256dh": p256dh,
                "auth": auth,
                "label": label[:200],
                "language": language,
            },
        )
    return device


def push_unsubscribe(*, user, device_id: int) -> None:
    deleted, _rows = PushSubscription.objects.filter(user=user, pk=device_id).delete()
    if not deleted:
        raise GameActionError(_("There is no such device."), status=404)


@transaction.atomic
def mail_address_set(*, user, address: str, digest: bool, language: str) -> MailSettings:
    """The person's address for the digest, and whether they want it. A new address waits for its
    confirmation (a signed link sent to it, off the request path)."""
    address = (address or "").strip()
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    mail, _created = MailSettings.objects.get_or_create(user=user)
    changed = address != mail.address
    # A new address, or the same one still unconfirmed saved again (the last link lost): a link goes.
    confirm = bool(address) and (changed or mail.confirmed_at is None)
    if confirm:
        recent = Notification.objects.filter(
            user=user, kind=Notification.Kind.CONFIRM, created_at__gte=timezone.now() - timedelta(days=1)
        ).count()
        if recent >= CONFIRMATIONS_A_DAY:
            raise GameActionError(
                _("Too many confirmation mails today: try again tomorrow, or use the last one sent."),
                status=429,
            )
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
