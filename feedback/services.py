"""Submitting a problem report: the context checked, the rate limits, the row.

The limits count submissions in the Django cache (Redis in production, so every process agrees), per
person (a user, or a guest by session key) and per client address, in a fixed window. A refused report
is not stored and not counted."""

from __future__ import annotations

import contextlib
import ipaddress
import re
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from dicegame import events
from dicegame.actors import Actor
from dicegame.models import Game
from dicegame.play.selectors import game_visible
from feedback.models import Report

PAGE_MAX_LENGTH = 300
USER_AGENT_MAX_LENGTH = 300
_ID_RE = re.compile(r"[0-9]{1,10}")
_INT_LIMIT = 2**31 - 1


class ReportRefused(Exception):
    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Context:
    """Where the reporter was: filled in by the server, every part checked."""

    page: str = ""
    game_id: int | None = None
    game_version: int | None = None
    language: str = ""
    user_agent: str = ""


def clean_page(raw: str) -> str:
    """A path on this site (`/games/12/`), or nothing: never another site's address."""
    raw = (raw or "").strip()
    if not raw.startswith("/") or raw.startswith("//") or "\\" in raw or any(ord(c) < 32 for c in raw):
        return ""
    return raw[:PAGE_MAX_LENGTH]


def clean_number(raw: str, *, minimum: int = 1) -> int | None:
    raw = (raw or "").strip()
    if _ID_RE.fullmatch(raw) and minimum <= (number := int(raw)) <= _INT_LIMIT:
        return number
    return None


def clean_address(raw: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address(raw or ""))
    except ValueError:
        return None


def report_context(
    *, actor: Actor, page: str, game: str, version: str, language: str, user_agent: str
) -> Context:
    """The context from the link and the request. A game the actor may not see is dropped (with its
    version): the link is the reporter's to change, so it is a hint, not a fact."""

    game_id = clean_number(game)
    if game_id is not None:
        found = Game.objects.filter(pk=game_id).first()
        if found is None or not game_visible(game=found, actor=actor):
            game_id = None
    version_number = clean_number(version, minimum=0) if game_id is not None else None
    return Context(
        page=clean_page(page),
        game_id=game_id,
        game_version=version_number,
        language=(language or "")[:16],
        user_agent=(user_agent or "")[:USER_AGENT_MAX_LENGTH],
    )


def _counters(actor: Actor, address: str | None) -> list[tuple[str, int]]:
    window = settings.PENTA_REPORT_WINDOW_SECONDS
    counters = []
    if actor.user_id is not None:
        counters.append((f"penta:reports:user:{actor.user_id}:{window}", settings.PENTA_REPORTS_PER_PERSON))
    elif actor.guest_key:
        counters.append(
            (f"penta:reports:guest:{actor.guest_key}:{window}", settings.PENTA_REPORTS_PER_PERSON)
        )
    if address:
        counters.append((f"penta:reports:addr:{address}:{window}", settings.PENTA_REPORTS_PER_ADDRESS))
    return counters


def _take(key: str, limit: int) -> bool:
    """Count one report against `key` and say whether it is within `limit`, in one atomic step (incr in
    Redis or the memory cache): reports sent at once can no longer all read the old count and pass (11
    were stored against a limit of 5). A refused one gives its count back."""
    cache.add(key, 0, timeout=settings.PENTA_REPORT_WINDOW_SECONDS)
    try:
        n = cache.incr(key)
    except ValueError:  # expired between the two calls: a new window
        cache.add(key, 1, timeout=settings.PENTA_REPORT_WINDOW_SECONDS)
        n = 1
    if n > limit:
        _give_back(key)
        return False
    return True


def _give_back(key: str) -> None:
    with contextlib.suppress(ValueError):  # the window ended meanwhile: nothing to give back
        cache.decr(key)


def report_submit(*, actor: Actor, address: str | None, message: str, email: str, context: Context) -> Report:
    """Store a report, unless the person or the address has sent too many lately (429)."""
    counters = _counters(actor, address)
    taken = []
    for key, limit in counters:
        if not _take(key, limit):
            for earlier in taken:
                _give_back(earlier)
            break
        taken.append(key)
    if len(taken) < len(counters):
        minutes = max(1, settings.PENTA_REPORT_WINDOW_SECONDS // 60)
        raise ReportRefused(
            _(
                "You have sent several reports in a short time: thank you! Please wait up to %(n)d "
                "minutes before sending another."
            )
            % {"n": minutes},
            status=429,
        )
    report = Report.objects.create(
        message=message,
        email=email if actor.user_id is None else "",
        user_id=actor.user_id,
        guest_key=actor.guest_key if actor.user_id is None else "",
        client_address=address or None,
        page=context.page,
        game_id=context.game_id,
        game_version=context.game_version,
        language=context.language,
        user_agent=context.user_agent,
    )
    return report


def on_account_erased(event: events.AccountErased) -> None:
    """An erased account's problem reports stay for what they say about the site, without who sent them
    (their account, address and browser)."""
    Report.objects.filter(user_id=event.user_id).update(
        user=None, email="", guest_key="", client_address=None, user_agent=""
    )
