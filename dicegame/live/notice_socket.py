"""The notification socket every logged-in page opens (``ws/notifications/``).

It carries live notices (friend requests, game invitations) to the player, and is how the site
knows who is online (dicegame.live.presence). From the page it accepts one message only, the heartbeat
``{"type": "ping"}``; anything else is answered with an error notice and changes nothing.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from dicegame.live import presence
from dicegame.live.notices import NOTICE_TEMPLATE, user_group

# Closed with this code (after the handshake, so the browser sees it and htmx does not reconnect).
CLOSE_NOT_LOGGED_IN = 4401
MAX_MESSAGE_BYTES = 4096


def _language(scope) -> str:
    """The page's language for error notices: the language cookie, else Accept-Language."""
    supported = {code for code, _name in settings.LANGUAGES}
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")
    if cookie in supported:
        return cookie
    for name, value in scope.get("headers") or []:
        if name == b"accept-language":
            for code, _q in translation.trans_real.parse_accept_lang_header(value.decode("latin-1")):
                try:
                    return translation.get_supported_language_variant(code)
                except LookupError:
                    continue
    return settings.LANGUAGE_CODE


class NotificationConsumer(AsyncWebsocketConsumer):
    user_id: int | None = None
    group: str | None = None

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        self.user_id = user.pk
        self.group = user_group(user.pk)
        self.language = _language(self.scope)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await database_sync_to_async(presence.presence_touch)(self.user_id)

    async def disconnect(self, code):
        if self.group is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await database_sync_to_async(presence.presence_leave)(self.user_id)
        # The player's other open sockets (other tabs, other processes) mark them online again.
        await self.channel_layer.group_send(self.group, {"type": "presence.check"})

    async def receive(self, text_data=None, bytes_data=None):
        if self.group is None:
            return
        if text_data is None:
            await self._error(_("This socket accepts text messages only."))
            return
        if len(text_data) > MAX_MESSAGE_BYTES or len(text_data.encode()) > MAX_MESSAGE_BYTES:
            await self._error(_("That message is too long."))
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self._error(_("That message is not valid JSON."))
            return
        if not isinstance(message, dict) or message.get("type") != "ping":
            await self._error(_("Unknown message: only a ping is expected here."))
            return
        await database_sync_to_async(presence.presence_heartbeat)(self.user_id)

    async def _error(self, text) -> None:
        # ``text`` is lazy: translated here, into the page's language.
        with translation.override(self.language):
            html = render_to_string(NOTICE_TEMPLATE, {"text": text, "error": True})
        await self.send(text_data=html)

    # -- channel-layer events sent to the group user_<id> ----------------------------------------------

    async def notify(self, event):
        """A notice for this player (dicegame.live.notices.notify_user): passed to the page as it is."""
        await self.send(text_data=event["html"])

    async def presence_check(self, event):
        """Another socket of this player closed: this one is still open, so the player is online."""
        await database_sync_to_async(presence.presence_touch)(self.user_id)
