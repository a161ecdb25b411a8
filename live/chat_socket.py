"""Chat on the game socket (chat): a line said through it, and a line said anywhere forwarded to this
screen, rendered for its viewer. Mixed into live.consumers.GameConsumer.

A consumer handles its messages one at a time, so chat's work waiting on the database (a line's write,
the viewer's blocks read at the first line shown) would hold up the moves pushed to the screen behind
it (with a line every five actions, the moves' p99 grew by half: docs/performance.md). That work goes on
the socket's chat lane instead: one task per socket, in the order it was handed over, beside the socket's
game messages."""

from __future__ import annotations

import asyncio
import collections
import logging
import time

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from chat import phrases
from chat import selectors as chat_selectors
from chat import services as chat_services
from live import limits

logger = logging.getLogger(__name__)

# Chat work a socket may have waiting (lines to show, its own lines to write): a screen that far behind
# drops the next rather than holding them in memory. A sender gets at most chat_services.RATE_LINES
# lines through its own socket's budget, so this takes many senders at once.
CHAT_BACKLOG = 200


class ChatSocket:
    # Who is hidden from this viewer, and whether they see reactions and phrases (chat_line).
    chat_viewer: tuple[frozenset[int], bool] | None = None
    # When this socket's last lines were said, and when it was last told a line was refused (_say).
    said: collections.deque | None = None
    chat_told = 0.0
    # The game with its players, kept once they are settled (chat.selectors.table_settled).
    chat_table = None
    # The chat lane: its queue of work and the task doing it (started with the first).
    chat_queue: asyncio.Queue | None = None
    chat_worker: asyncio.Task | None = None
    chat_stopped = False

    def chat_later(self, job, *args) -> None:
        """`job(*args)` (a coroutine function) after the socket's earlier chat work, off its messages."""
        if self.chat_stopped:  # a line still on its way to a socket that has closed
            return
        if self.chat_worker is None:
            self.chat_queue = asyncio.Queue(maxsize=CHAT_BACKLOG)
            self.chat_worker = asyncio.get_running_loop().create_task(self._chat_work())
        try:
            self.chat_queue.put_nowait((job, args))
        except asyncio.QueueFull:
            logger.warning("chat lane full: a line dropped for one screen")

    async def _chat_work(self) -> None:
        while True:
            job, args = await self.chat_queue.get()
            try:
                await job(*args)
            except Exception:  # one line's failure must not end the lane for the lines behind it
                logger.exception("chat work failed")

    def chat_stop(self) -> None:
        self.chat_stopped = True
        if self.chat_worker is not None:
            self.chat_worker.cancel()
            self.chat_worker = None

    async def _say(self, message: dict) -> None:
        """A line at the table. The socket's own budget is checked before any database work, so a flood
        of lines costs a few comparisons each and reaches nobody; a refusal is told to this screen only,
        the "slow down" at most once a second."""
        now = time.monotonic()
        if self.said is None:
            self.said = collections.deque()
        while self.said and self.said[0] <= now - chat_services.RATE_SECONDS:
            self.said.popleft()
        if len(self.said) >= chat_services.RATE_LINES:
            await self._tell_refusal((_("Slow down: wait a few seconds before the next line."), 429), message)
            return
        self.said.append(now)
        self.chat_later(self._say_written, message)

    async def _say_written(self, message: dict) -> None:
        refusal = await database_sync_to_async(self._say_now)(message)
        if refusal is not None:
            await self._tell_refusal(refusal, message)

    async def _tell_refusal(self, refusal: tuple[str, int], message: dict) -> None:
        now = time.monotonic()
        if refusal[1] == 429:
            if now - self.chat_told < limits.ERROR_FRAME_INTERVAL:
                return
            self.chat_told = now
        await self.send_error(refusal[0], status=refusal[1], answer_id=message.get("id"))

    def _say_now(self, message: dict) -> tuple[str, int] | None:
        # The person as the socket was opened for (channels' auth resolved them then), and the game as read
        # for their last line, once its players are settled: a line of a player costs its lock, its
        # checks and its row, not a read of the game every time.
        user = self.scope.get("user")
        table = self.chat_table
        if table is None:
            table = chat_selectors.table(self.game_id)
            if table is not None and chat_selectors.table_settled(table, self.actor.user_id):
                self.chat_table = table
        with translation.override(self.language):
            try:
                chat_services.line_post(
                    game_id=self.game_id, user=user, kind=message["kind"], text=message["text"], table=table
                )
            except chat_services.ChatRefused as exc:
                return exc.message, exc.status
        return None

    async def chat_line(self, event):
        self.chat_later(self._chat_line_shown, event)

    async def _chat_line_shown(self, event):
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
