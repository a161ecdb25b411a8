"""Live notices to one player, on every page they have open (the ``user_<id>`` channel-layer group).

Every logged-in page holds a notification socket (``NotificationConsumer``); whatever HTML is sent
here is passed to the page as it is, where the htmx ws extension swaps it in by element id. Use
``notice_html`` for a notice appended to the page's notification area.

    notify_user(user_id, notice_html(_("Ann invites you to a game."), "/games/7/", _("Open")))

``notify_user`` is for synchronous code (views, services, ``transaction.on_commit`` callbacks);
in async code (a consumer) await ``anotify_user``. A failing channel layer is logged and ignored:
a notice is a courtesy, never a reason to fail the request that caused it.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

logger = logging.getLogger("dicegame")

NOTICE_TEMPLATE = "accounts/friends.html#notice"


def user_group(user_id: int) -> str:
    return f"user_{user_id}"


def _event(html: str) -> dict:
    return {"type": "notify", "html": str(html)}


def notify_user(user_id: int, html: str) -> None:
    """Send ``html`` to every notification socket of the user (none open: nothing happens)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), _event(html))
    except Exception:
        logger.exception("could not send a notice to user %s", user_id)


async def anotify_user(user_id: int, html: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(user_group(user_id), _event(html))
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
