"""Chat on the game socket (chat): a line said through it, and a line said anywhere forwarded to this
screen, rendered for its viewer. Mixed into live.consumers.GameConsumer."""

from __future__ import annotations

import collections
import time

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from chat import phrases
from chat import selectors as chat_selectors
from chat import services as chat_services
from live import limits


class ChatSocket:
    # Who is hidden from this viewer, and whether they see reactions and phrases (chat_line).
    chat_viewer: tuple[frozenset[int], bool] | None = None
    # When this socket's last lines were said, and when it was last told a line was refused (_say).
    said: collections.deque | None = None
    chat_told = 0.0

    async def _say(self, message: dict) -> None:
        """A line at the table. The socket's own budget is checked before any database work, so a flood
        of lines costs a few comparisons each and reaches nobody; a refusal is told to this screen only,
        the "slow down" at most once a second."""
        now = time.monotonic()
        if self.said is None:
            self.said = collections.deque()
        while self.said and self.said[0] <= now - chat_services.RATE_SECONDS:
            self.said.popleft()
        refusal: tuple[str, int] | None = None
        if len(self.said) >= chat_services.RATE_LINES:
            refusal = (_("Slow down: wait a few seconds before the next line."), 429)
        else:
            self.said.append(now)
            refusal = await database_sync_to_async(self._say_now)(message)
        if refusal is None or (refusal[1] == 429 and now - self.chat_told < limits.ERROR_FRAME_INTERVAL):
            return
        if refusal[1] == 429:
            self.chat_told = now
        await self.send_error(refusal[0], status=refusal[1], answer_id=message.get("id"))

    def _say_now(self, message: dict) -> tuple[str, int] | None:
        user = get_user_model().objects.filter(pk=self.actor.user_id).first() if self.actor.user_id else None
        with translation.override(self.language):
            try:
                chat_services.line_post(
                    game_id=self.game_id, user=user, kind=message["kind"], text=message["text"]
                )
            except chat_services.ChatRefused as exc:
                return exc.message, exc.status
        return None

    async def chat_line(self, event):
        """A line said at the table (chat.services): shown unless this screen may not read its room (the
        players' lines reach the seats; the spectators' reach the seats only when the game is not rated and
        in play), its sender and this viewer are kept apart by a block, or this viewer turned reactions
        and phrases off. The viewer's blocks are read once, at the first line."""
        if self.opened is None:
            return
        seat = self.opened.seat_id is not None
        if (event["room"] == "players" and not seat) or (
            event["room"] == "spectators" and seat and event["players_blind"]
        ):
            return
        if self.chat_viewer is None:
            self.chat_viewer = await database_sync_to_async(chat_selectors.chat_viewer)(self.actor.user_id)
        hidden, reactions = self.chat_viewer
        if event["sender_id"] in hidden or (event["kind"] != "text" and not reactions):
            return
        with translation.override(self.language):
            html = render_to_string(
                "chat/push.html",
                {
                    "room": event["room"],
                    "line_id": event["line_id"],
                    "kind": event["kind"],
                    "name": event["name"],
                    "seat": event["seat"],
                    "text": phrases.shown(event["kind"], event["text"]),
                    "reportable": self.actor.user_id is not None and self.actor.user_id != event["sender_id"],
                },
            )
        await self.send(text_data=html)
