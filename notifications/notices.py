"""Live notices to one player, on every page they have open (the ``user_<id>`` channel-layer group).

Play and the other apps do not call this module: they publish ``events.PersonNotified`` inside their
transaction, and ``on_person_notified`` sends it after the commit.

Every logged-in page holds a notification socket (``live.consumers.NotificationConsumer``); whatever
HTML is sent here is passed to the page as it is, where the htmx ws extension swaps it in by element id. Use
``notice_html`` for a notice appended to the page's notification area.

    notify_user(user_id, lambda: notice_html(_("Ann invites you to a game."), "/games/7/", _("Open")))

Pass a function that renders the notice, not the HTML: it is called once in each of the site's
languages, and every socket shows the one in its page's language (the recipient's, not the sender's).

``notify_user`` is for synchronous code (views, services, ``transaction.on_commit`` callbacks);
in async code (a consumer) await ``anotify_user``. A failing channel layer is logged and ignored:
a notice is a courtesy, never a reason to fail the request that caused it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from dicegame import events

logger = logging.getLogger(__name__)

NOTICE_TEMPLATE = "accounts/friends.html#notice"


def user_group(user_id: int) -> str:
    return f"user_{user_id}"


Notice = str | Callable[[], str]


def _event(notice: Notice) -> dict:
    """The layer's event: the HTML in every language (`by_language`), `html` in the default one. A
    string is sent as it is, to every page."""
    if not callable(notice):
        return {"type": "notify", "html": str(notice)}
    by_language = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            by_language[code] = str(notice())
    return {"type": "notify", "html": by_language[settings.LANGUAGE_CODE], "by_language": by_language}


def event_html(event: dict, language: str) -> str:
    """What a socket in `language` shows of a notify event."""
    return event.get("by_language", {}).get(language, event["html"])


def notify_user(user_id: int, notice: Notice) -> None:
    """Send the notice to every notification socket of the user (none open: nothing happens)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), _event(notice))
    except Exception:
        logger.exception("could not send a notice to user %s", user_id)


async def anotify_user(user_id: int, notice: Notice) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(user_group(user_id), _event(notice))
    except Exception:
        logger.exception("could not send a notice to user %s", user_id)


def notice_html(
    text: str, link: str | None = None, link_text: str | None = None, *, error: bool = False
) -> str:
    """``<div id="notifications" hx-swap-oob="beforeend"><p class="notice">text <a>…</a></p></div>``.

    ``text``, ``link`` and ``link_text`` are escaped; the link is left out when ``link`` is empty.
    With ``error=True`` the notice is an alert (``class="notice error" role="alert"``).
    """
    context = {"text": text, "link": link, "link_text": link_text or link, "error": error}
    return render_to_string(NOTICE_TEMPLATE, context)


def on_person_notified(event: events.PersonNotified) -> None:
    """What play and the apps announce for a person (`events.PersonNotified`): sent after the commit."""

    def render() -> str:
        said = event.notice()
        return notice_html(said.text, said.link or None, said.link_text or None)

    transaction.on_commit(partial(notify_user, event.user_id, render))
