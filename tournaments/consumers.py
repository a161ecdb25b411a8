"""`ws/tournaments/<id>/`: the socket of an open tournament page. It checks the right to see the
tournament (the page's rule), joins its group (and, for an entrant who has finished the round in play,
that round's group), and forwards the standings the clock renders after each change, in the page's
language, without touching the database. It takes nothing from the page: a page that sends anyway is
closed after a few messages (the server pings the socket itself)."""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation

from tournaments import selectors

CLOSE_NOT_ALLOWED = 4404
CLOSE_TOO_MANY = 4429
MAX_MESSAGES = 16  # a page sends none: beyond a few, the socket is closed


def _language(code: str) -> str:
    try:
        return translation.get_supported_language_variant(code) if code else settings.LANGUAGE_CODE
    except LookupError:
        return settings.LANGUAGE_CODE


class TournamentConsumer(AsyncWebsocketConsumer):
    joined: tuple[str, ...] = ()
    received = 0
    language = settings.LANGUAGE_CODE

    async def connect(self):
        await self.accept()
        tournament_id = self.scope["url_route"]["kwargs"]["tournament_id"]
        user = self.scope.get("user")
        user_id = user.pk if user is not None and user.is_authenticated else None
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        # The page names its language (the one it was rendered in) and the link's token, if it came by it.
        self.language = _language((query.get("lang") or [""])[0])
        token = (query.get("t") or [""])[0]
        groups = await database_sync_to_async(selectors.socket_groups)(
            tournament_id=tournament_id, user_id=user_id, token=token
        )
        if groups is None:
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.joined = tuple(groups)

    async def disconnect(self, code):
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = ()

    async def receive(self, text_data=None, bytes_data=None):
        self.received += 1
        if self.received > MAX_MESSAGES:
            await self.close(code=CLOSE_TOO_MANY)

    async def standings(self, event):
        """The standings (or the round's results so far), rendered once per language by the clock."""
        by_language = event["by_language"]
        await self.send(text_data=by_language.get(self.language) or by_language[settings.LANGUAGE_CODE])
