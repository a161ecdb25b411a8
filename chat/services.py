"""Saying something at a game's table: a line checked, kept and pushed to the screens that may see it;
a line reported; staff's time-outs and hidden lines; an erased account's lines forgotten.

Every refusal is a ChatRefused with the message the sender's page shows and its status, and stores
nothing. The rate limit and the duplicate rule are checked and the line written under one lock (the
sender's user row), so concurrent lines cannot get past either."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from functools import partial
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import hidden_from
from chat import phrases, selectors
from chat.models import MAX_LINE, ChatLine, ChatPanic, ChatReport, ChatTimeout
from chat.selectors import (
    chat_refusal,
    free_text_allowed,
    humans,
    line_frame_event,
    room_of,
)
from core import courier
from core.courier import game_group
from dicegame import events
from dicegame.models import Game

# At most RATE_LINES lines by one person in one game in RATE_SECONDS; the same line again within
# REPEAT_SECONDS is dropped.
RATE_LINES = 5
RATE_SECONDS = 10
REPEAT_SECONDS = 60
# Lines shown around a reported line, for staff.
REPORT_CONTEXT = 10
# A correspondence game's players are told of a waiting line at most once per this many seconds of talk.
NOTIFY_QUIET = 30 * 60

# Panic mode is for a raid, not a way of running the site: at most a week at a time.
PANIC_MAX_HOURS = 7 * 24

TIMEOUTS = {
    "15m": dt.timedelta(minutes=15),
    "24h": dt.timedelta(hours=24),
    "ever": None,
}

# Explicit direction marks that could turn the rest of a page around; a line of nothing but them (and
# spaces) is empty.
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"))
_LINK = re.compile(
    r"(?i)\b(?:https?://|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|nl|de|be|co|uk|ru|info|"
    r"biz|xyz|ly|gg|me|app|dev|site|online|link|top|club)\b(?:/\S*)?"
)


class ChatRefused(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def _own_host(url: str) -> bool:
    own = {urlsplit(settings.PENTA_SITE_URL).hostname or ""}
    own.update(h.lstrip(".") for h in settings.ALLOWED_HOSTS if h not in ("*", ""))
    target = url if "://" in url else "http://" + url
    try:
        host = urlsplit(target).hostname or ""
    except ValueError:
        return False
    return host in own


def clean_text(raw: object) -> str:
    """The line as it may be kept, or ChatRefused: links to other sites are removed (Penta's own pages
    stay), direction overrides go."""
    if not isinstance(raw, str):
        raise ChatRefused(_("Say something first."))
    if "\x00" in raw:
        raise ChatRefused(_("That line has characters that cannot be sent."))
    if len(raw) > MAX_LINE:
        raise ChatRefused(_("A line has at most %(n)d characters.") % {"n": MAX_LINE})
    text = raw.translate(_BIDI)
    text = "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cs"))
    text = " ".join(text.split())
    # Nothing but invisible format characters (zero-width spaces, joiners) says nothing either.
    if not text or all(unicodedata.category(c) == "Cf" or c == " " for c in text):
        raise ChatRefused(_("Say something first."))
    stripped = _LINK.sub(lambda m: m.group(0) if _own_host(m.group(0)) else "", text)
    stripped = " ".join(stripped.split())
    if not stripped:
        raise ChatRefused(_("Links to other sites are not allowed in chat."))
    return stripped


def _checked(kind: str, raw: object) -> str:
    if kind == ChatLine.Kind.TEXT:
        return clean_text(raw)
    known = phrases.PHRASES if kind == ChatLine.Kind.PHRASE else phrases.REACTIONS
    if kind not in (ChatLine.Kind.PHRASE, ChatLine.Kind.REACTION) or raw not in known:
        raise ChatRefused(_("There is no such quick phrase or reaction."))
    return raw


def line_post(
    *, game_id: int, user, kind: str, text: object, table: selectors.Table | None = None
) -> ChatLine:
    """The person says something at the game's table: to the players if they play it, else to its
    spectators. Pushed to the game's screens once it commits. `table`: the game as read for this
    person's last line (chat.selectors.table_settled), else it is read now."""
    if user is None or not user.is_authenticated:
        raise ChatRefused(_("Log in to chat."), 403)
    if table is None:
        table = selectors.table(game_id)
    if table is None:
        raise ChatRefused(_("There is no such game."), 404)
    value = _checked(kind, text)
    room = room_of(table=table, user=user)
    now = timezone.now()
    try:
        with transaction.atomic():
            # One lock per sender, taken with what the rules ask of them: the count and the last lines
            # are read, in the statement after it, and the line written under it.
            who = selectors.speaker(user.pk, text=kind == ChatLine.Kind.TEXT, lock=True)
            refusal = chat_refusal(table=table, user_id=user.pk, room=room, kind=kind, who=who)
            if refusal is not None:
                raise ChatRefused(*refusal)
            if (
                kind == ChatLine.Kind.TEXT
                and room == ChatLine.Room.PLAYERS
                and not free_text_allowed(table, user.pk)
            ):
                raise ChatRefused(
                    _(
                        "Between players who are not friends, only quick phrases and reactions, unless "
                        "both allow chat with strangers."
                    ),
                    403,
                )
            recent = selectors.said_lately(
                game_id=table.pk,
                user_id=user.pk,
                since=now - dt.timedelta(seconds=REPEAT_SECONDS),
                rate_since=now - dt.timedelta(seconds=RATE_SECONDS),
            )
            if sum(1 for r in recent if r[2]) >= RATE_LINES:
                raise ChatRefused(_("Slow down: wait a few seconds before the next line."), 429)
            if kind == ChatLine.Kind.TEXT and any(
                r[0] == kind and r[1].casefold() == value.casefold() for r in recent
            ):
                raise ChatRefused(_("You just said that."), 409)
            line = ChatLine.objects.create(
                game_id=table.pk, sender_id=user.pk, room=room, kind=kind, text=value, created_at=now
            )
            event = line_frame_event(line, sender_name=user.get_username(), table=table)
            transaction.on_commit(lambda: courier.dispatch([("group", game_group(table.pk), event)]))
            # A reaction is shown for a moment at the seat: nothing of it waits to be read.
            if (
                room == ChatLine.Room.PLAYERS
                and table.pace == Game.Pace.CORRESPONDENCE
                and kind != ChatLine.Kind.REACTION
            ):
                _notify_waiting(table=table, line=line, name=user.get_username())
    except IntegrityError:
        # The game went (a socket's kept read of it outlived it): nothing was written.
        raise ChatRefused(_("There is no such game."), 404) from None
    return line


def _notify_waiting(*, table: selectors.Table, line: ChatLine, name: str) -> None:
    """A line waits in a correspondence game: the other players are told, as of a turn (a live notice
    on their open pages, a push on their devices when away), once per NOTIFY_QUIET of talk (a
    conversation of many lines makes one notice, not one per line)."""
    quiet_since = line.created_at - dt.timedelta(seconds=NOTIFY_QUIET)
    earlier = ChatLine.objects.filter(
        game_id=table.pk, room=ChatLine.Room.PLAYERS, created_at__gte=quiet_since
    ).exclude(pk=line.pk)
    if earlier.exists():
        return
    told = sorted(set(humans(table)) - {line.sender_id} - hidden_from(line.sender_id))
    for user_id in told:
        events.publish(events.PersonNotified(user_id, partial(_waiting_notice, name, table.pk)))
    if told:
        events.publish(events.ChatLineWaiting(table.pk, tuple(told)))


def _waiting_notice(name: str, game_id: int) -> events.Notice:
    return events.Notice(
        text=_("%(name)s wrote in your game.") % {"name": name},
        link=reverse("dicegame:game", args=[game_id]),
        link_text=_("Read it"),
    )


def line_report(*, line_id: int, user) -> ChatReport:
    """One tap: the line and the lines around it go to staff's queue (once per reporter and line)."""
    from chat.selectors import line_for_viewer, report_context

    line = line_for_viewer(line_id=line_id, user=user)
    if line is None:
        raise ChatRefused(_("There is no such line."), 404)
    if line.sender_id == user.pk:
        raise ChatRefused(_("You cannot report your own line."), 400)
    try:
        with transaction.atomic():
            return ChatReport.objects.create(
                line=line,
                reporter_id=user.pk,
                context=report_context(line, REPORT_CONTEXT),
                created_at=timezone.now(),
            )
    except IntegrityError:
        raise ChatRefused(_("You already reported this line."), 409) from None


def timeout_set(*, user_id: int, length: str, reason: str, by=None) -> ChatTimeout:
    if length not in TIMEOUTS:
        raise ChatRefused(_("There is no such time-out."))
    reason = (reason or "").strip()
    if not reason:
        raise ChatRefused(_("Give a reason for the time-out."))
    span = TIMEOUTS[length]
    now = timezone.now()
    return ChatTimeout.objects.create(
        user_id=user_id,
        until=None if span is None else now + span,
        reason=reason[:200],
        by=by,
        created_at=now,
    )


def panic_start(*, hours: float, reason: str, by=None) -> ChatPanic:
    """Panic mode from now for `hours` (chat.models.ChatPanic); a panic already on is not cut short."""
    reason = (reason or "").strip()
    if not reason:
        raise ChatRefused(_("Give a reason for the panic mode."))
    if not 1 / 60 <= hours <= PANIC_MAX_HOURS:
        raise ChatRefused(_("Panic mode lasts from a minute to %(n)d hours.") % {"n": PANIC_MAX_HOURS})
    now = timezone.now()
    return ChatPanic.objects.create(
        started_at=now, until=now + dt.timedelta(hours=hours), reason=reason[:200], by=by
    )


def panic_end() -> int:
    """Every panic on now ends now."""
    now = timezone.now()
    return selectors.panics_on(now).update(until=now)


def lines_hide(line_ids) -> int:
    return ChatLine.objects.filter(pk__in=list(line_ids)).update(hidden=True)


def on_account_erased(event) -> None:
    """An erased person's lines go: their text is nobody's to keep, and the reports they made lose them."""
    ChatLine.objects.filter(sender_id=event.user_id).delete()
    ChatReport.objects.filter(reporter_id=event.user_id).update(reporter=None)
    ChatTimeout.objects.filter(user_id=event.user_id).delete()


def chat_settings_set(*, user_id: int, reactions: bool, strangers: bool) -> None:
    Profile.objects.update_or_create(
        user_id=user_id, defaults={"chat_reactions": reactions, "chat_strangers": strangers}
    )
