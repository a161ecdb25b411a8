"""The sockets: the game socket of every live game screen, and the notification socket of every
logged-in page.

Thin. The game socket checks the right to see the game (`selectors.game_visible`, the same rule as
the page), registers the screen (`live.presence`), and then forwards the pushes rendered after each
change (`live.pushes`) without touching the database; it reads the database only to draw a whole board
(on opening, when the screen missed a version, on the page's "sync"). A page with this socket open sends
its actions on it (docs/live-play.md): the same fields as the POST, through the same play services as
the HTTP views, the actor taken from the session as there; the screen's new board comes with the push,
and the answer (`answers`) echoes the action's id with what the POST's answer adds (a refusal: its 409
answer). Every message is rate limited (`limits`) and checked by type (`protocol`) before anything acts
on it; a refused one gets an error frame and changes nothing.

Close codes (the page does not reconnect after these): 4401 log in first, 4404 not your game,
4409 another tab took the seat, 4429 too many messages, 4430 too many open screens.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from core import metrics
from dicegame import play
from dicegame.actors import GUEST_SESSION_KEY, Actor
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.play import lobby, rooms, selectors
from dicegame.screen import regions
from dicegame.screen.state import board_state
from dicegame.screen.view import viewer_seat
from live import answers, limits, presence, protocol, pushes
from live.chat_socket import ChatSocket
from live.db_threads import in_db_thread
from notifications.notices import NOTICE_TEMPLATE, event_html, user_group
from winprob import live as winprob_live

# How a game page's action frame begins (its object has `action` first): such a frame waits for its
# rate limit's token instead of being dropped (`limits`), read no further.
ACTION_FRAME = re.compile(r'\{\s*"action"\s*:\s*"(?:roll|hold|choose|confirm|hurry|take_back)"')
CLOSE_LOGIN_REQUIRED = 4401
CLOSE_NOT_ALLOWED = 4404
CLOSE_TAKEN_OVER = 4409


def actor_from_scope(scope) -> Actor:
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return Actor(user_id=user.pk, name=user.get_username())
    session = scope.get("session")
    key = session.get(GUEST_SESSION_KEY, "") if session is not None else ""
    return Actor(guest_key=key, name=str(_("Guest")))


def scope_language(scope) -> str:
    """The page's language, found as the page's own was (LocaleMiddleware's
    `get_language_from_request`): the language cookie, else Accept-Language, else the default."""
    request = HttpRequest()
    request.COOKIES = scope.get("cookies") or {}
    accepted = [
        value.decode("latin-1") for name, value in scope.get("headers") or [] if name == b"accept-language"
    ]
    if accepted:
        request.META["HTTP_ACCEPT_LANGUAGE"] = ",".join(accepted)  # as Django's ASGI request joins them
    return translation.get_language_from_request(request)


def _turn_action(name):
    def run(game_id: int, actor: Actor, msg: dict):
        turn, roll = msg["turn"], msg["roll"]
        if name == "roll":
            return play.turn_roll(game_id=game_id, actor=actor, turn=turn, roll=roll)
        if name == "hold":
            return play.turn_toggle_hold(game_id=game_id, actor=actor, turn=turn, roll=roll, die=msg["die"])
        if name == "choose":
            # A zero is asked about first unless the question was answered yes, as for the POST.
            return play.turn_choose_box(
                game_id=game_id,
                actor=actor,
                turn=turn,
                roll=roll,
                box=msg["box"],
                confirm_zero=bool(msg["confirm_zero"]),
                write=bool(msg["write"]),
            )
        return play.turn_confirm(game_id=game_id, actor=actor, turn=turn, roll=roll)

    return run


ACTIONS = {
    "roll": _turn_action("roll"),
    "hold": _turn_action("hold"),
    "choose": _turn_action("choose"),
    "confirm": _turn_action("confirm"),
    "hurry": lambda game_id, actor, msg: play.game_hurry(game_id=game_id, actor=actor),
    "take_back": lambda game_id, actor, msg: rooms.seat_take_back(game_id=game_id, actor=actor),
}


class _LimitedSocket(AsyncWebsocketConsumer):
    """What both sockets share: the language, the limits, and error frames."""

    language = settings.LANGUAGE_CODE
    limiter: limits.SocketLimiter | None = None
    # Set once this side closes the socket, or a send finds it closing: whatever is still queued (a
    # flood's backlog, a push) is dropped. A send then would raise in daphne ("Attempt to send on a
    # closed protocol"), end the consumer before its disconnect handler runs, and leave its Connection
    # row (counted against the caps) and a seat marked connected behind until the process dies.
    closing = False

    async def send(self, text_data=None, bytes_data=None, close=False):
        if self.closing:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:  # the other side is closing: the disconnect comes next
            self.closing = True

    async def close(self, code=None, reason=None):
        self.closing = True
        await super().close(code=code, reason=reason)

    async def dispatch(self, message):
        """Channels' own, without its close_old_connections before every message: a hop to the
        process's one database thread for every frame received and every push forwarded, which waited
        there behind any other socket's action (a push held up for a move's database work). Every
        database call of these sockets is a database_sync_to_async (a move's, `live.db_threads`), which
        closes old connections itself, before and after, in its thread."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            # However the consumer ends, its socket is forgotten (disconnect does nothing twice): daphne
            # kills a consumer still busy 10 s after its client left (draining a flood's backlog), and
            # its Connection row would otherwise count against the caps until the process dies.
            await self.disconnect(None)

    async def _allowed(self, text_data: str | None = None) -> bool:
        """Take a token for the message just received; False: it is dropped (and maybe the socket). A
        game page's action over the rate waits for its token first (`limits`)."""
        if self.closing:
            return False
        if self.limiter is not None and text_data is not None and ACTION_FRAME.match(text_data):
            deadline = time.monotonic() + limits.ACTION_PATIENCE
            while (wait := self.limiter.wait()) > 0 and time.monotonic() + wait <= deadline:
                await asyncio.sleep(wait + 0.001)
        verdict = self.limiter.check() if self.limiter is not None else limits.ALLOW
        if verdict == limits.ALLOW:
            return True
        if verdict == limits.TELL:
            await self.send_error(_("Too many messages: slow down."), status=429)
        elif verdict == limits.CLOSE:
            await self.send_error(
                _("Too many messages: this connection is closed. Reload the page."), status=429
            )
            await self.close(code=limits.CLOSE_FLOODING)
            # Ends at once: the rest of the flood queued behind this message goes with the consumer
            # instead of being read one by one.
            await self.disconnect(limits.CLOSE_FLOODING)
            raise StopConsumer
        return False

    async def _may_connect(self, identity: str) -> bool:
        """A person reconnecting as fast as they are closed is refused before any database work."""
        if limits.connect_allowed(identity):
            return True
        await self.send_error(_("Too many connections: wait a moment, then reload the page."), status=429)
        await self.close(code=limits.CLOSE_FLOODING)
        return False

    async def send_error(self, message, *, status: int, answer_id: int | None = None) -> None:
        await self.send(text_data=self.render_error(message, status, answer_id))

    def render_error(self, message, status: int, answer_id: int | None = None) -> str:
        raise NotImplementedError

    def release_limits(self) -> None:
        if self.limiter is not None:
            self.limiter.release()
            self.limiter = None


class GameConsumer(ChatSocket, _LimitedSocket):
    opened: presence.Opened | None = None
    groups_joined: tuple = ()
    # The winning chances bar (winprob.live): whether this seat's player switched it on, and the
    # version of the last bar forwarded (bars come after their board, maybe from another process).
    wants_bar = False
    bar_version = -1

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.actor = actor_from_scope(self.scope)
        self.language = scope_language(self.scope)
        self.version = -1
        self.token = parse_qs(self.scope.get("query_string", b"").decode(errors="replace")).get("t", [""])[0]
        # Accepted first, then closed with a code: a refused handshake reaches the browser as 1006,
        # which the page would retry for ever.
        await self.accept()
        identity = presence.identity_of(self.actor, self.scope.get("client"))
        if not await self._may_connect(identity):
            return
        if not await database_sync_to_async(self._may_watch)():
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        presence.ensure_heartbeat()
        try:
            opened = await database_sync_to_async(presence.game_socket_opened)(
                game_id=self.game_id,
                actor=self.actor,
                identity=identity,
                channel_name=self.channel_name,
                language=self.language,
            )
        except presence.SocketRefused as exc:
            await self.send_error(exc.message, status=429)
            await self.close(code=exc.code)
            return
        if opened is None:
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        self.opened = opened
        metrics.OPEN_SOCKETS.labels("game").inc()
        if opened.seat_id is not None:
            wants = database_sync_to_async(winprob_live.seat_wants_bar)
            self.wants_bar = await wants(opened.seat_id)
        self.limiter = limits.SocketLimiter(identity)
        self.groups_joined = (pushes.game_group(self.game_id),)
        if opened.seat_id is None:
            self.groups_joined += (pushes.spectators_group(self.game_id, self.language),)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        if opened.taken_over:
            await self.channel_layer.send(opened.taken_over, {"type": "seat.taken_over"})
        await self.send_board()

    def _may_watch(self) -> bool:
        game = Game.objects.filter(pk=self.game_id).first()
        return game is not None and selectors.game_visible(game=game, actor=self.actor, token=self.token)

    async def disconnect(self, code):
        self.release_limits()
        self.chat_stop()
        if self.opened is None:
            return
        self.opened = None
        metrics.OPEN_SOCKETS.labels("game").dec()
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await database_sync_to_async(presence.socket_closed)(self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        received_at = time.time()
        if self.opened is None or not await self._allowed(text_data):
            return
        try:
            message = protocol.parse(text_data, bytes_data)
        except protocol.BadMessage as exc:
            await self.send_error(exc.message, status=exc.status, answer_id=exc.answer_id)
            return
        name = message["action"]
        if name == "ping":
            return
        if name == "sync":
            await self.send_board(force=True)
            return
        if name == "say":
            await self._say(message)
            return
        html, version = await self._act(name, message, received_at)
        if version > self.version:
            # A refusal's whole board: the pushes that follow build on it.
            self.version = version
        await self.send(text_data=html)

    # On the sockets' database threads (live.db_threads): a move waiting on the database holds up no
    # other game's. Wrapped once with the class, not for every action (asgiref's wrapper binds like a
    # method).
    @in_db_thread
    def _act(self, name: str, message: dict, received_at: float) -> tuple[str, int]:
        """The action applied, or refused; its answer (live.answers) and the version of the whole board
        a refusal's answer carries (-1: an applied action's answer carries none: its push follows)."""
        metrics.action_waited(received_at, time.time())
        # In the screen's language: a refusal's message is made by the service, in the database thread.
        with translation.override(self.language):
            try:
                game = ACTIONS[name](self.game_id, self.actor, message)
            except GameActionError as exc:
                return answers.refused(self.game_id, self.actor, self.token, exc, message=message)
            return answers.applied(game, self.actor, name=name, message=message), -1

    # -- events from the channel layer -------------------------------------------------------------

    async def game_push(self, event):
        """A change rendered for this screen by the service that made it (`pushes`)."""
        version = event["version"]
        if version <= self.version:
            return
        if event["partial"] and version != self.version + 1:
            await self.send_board()  # a version went missing: the regions of this one are not enough
            return
        self.version = version
        await self.send(text_data=event["html"])
        if event.get("acted_at"):
            metrics.push_written(event, time.time())

    async def win_bar(self, event):
        """The winning chances of a position, after its board, in a game that is not rated (nobody sees a
        rated game's while it is played): a spectator's screen shows them, a seat's if its player
        switched them on. A bar older than the one shown (worked out later by a busier process) is
        dropped."""
        if event["language"] != self.language or event["version"] < self.bar_version or event["rated"]:
            return
        seat = self.opened.seat_id if self.opened is not None else None
        if self.opened is None or (seat is not None and not self.wants_bar):
            return
        self.bar_version = event["version"]
        await self.send(text_data=event["html"] if self.opened.seat_id is None else event["seat_html"])

    async def win_hint(self, event):
        """The hint "best to win" of a position (winprob.hints), for the seat whose position it is (every
        seat's screen of a local game is the one device); its markup replaces the hint only where the
        screen still shows that position."""
        if self.opened is None or self.opened.seat_id is None or event["language"] != self.language:
            return
        if self.opened.seat_id == event["seat"] or event["local"]:
            await self.send(text_data=event["html"])

    async def win_choice(self, event):
        """The seat's player switched the bar on or off (winprob.views.toggle)."""
        self.wants_bar = bool(event["on"])

    async def game_refresh(self, event):
        """The room changed before its start: every screen draws its own (the lobby differs per viewer)."""
        if event["version"] > self.version:
            await self.send_board()

    async def seat_taken_over(self, event):
        with translation.override(self.language):
            html = render_to_string("dicegame/game.html#taken-over", {"oob": True})
        await self.send(text_data=html)
        await self.close(code=CLOSE_TAKEN_OVER)

    # -- a whole board, from the database -----------------------------------------------------------

    async def send_board(self, force: bool = False):
        html, version, with_bar = await database_sync_to_async(self._board)()
        if html is None:
            # A player the host has just removed is told why the room went quiet, on the screen itself.
            if await database_sync_to_async(self._was_removed)():
                with translation.override(self.language):
                    message = rooms.removed_error().message
                await self.send_error(message, status=403)
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        if force or version > self.version:
            self.version = version
            if with_bar:
                # A bar of an older position, still on its way, must not replace this one.
                self.bar_version = max(self.bar_version, version)
            await self.send(text_data=html)

    def _was_removed(self) -> bool:
        game = Game.objects.filter(pk=self.game_id).first()
        return (
            game is not None
            and self.actor.user_id is not None
            and rooms.was_removed(game, self.actor.user_id)
        )

    def _board(self) -> tuple[str | None, int, bool]:
        try:
            game = selectors.game_for_viewer(game_id=self.game_id, actor=self.actor, token=self.token)
        except Http404:
            return None, 0, False
        if game.is_open:
            with translation.override(self.language):
                context = {
                    "game": game,
                    "board": None,
                    "lobby": lobby.game_lobby(game=game, actor=self.actor),
                    "oob": True,
                }
                return render_to_string("dicegame/game.html#live-update", context), game.version, False
        state = board_state(game=game)
        seat = viewer_seat(state, self.actor)
        html = pushes.render_board(state, seat, self.language)
        # The winning chances of this position if worked out already (else they are asked for, and
        # follow by push).
        bar = winprob_live.board_bar(state, seat, self.wants_bar, self.language)
        return html + bar, game.version, bool(bar)

    def render_error(self, message, status: int, answer_id: int | None = None) -> str:
        with translation.override(self.language):
            answer = answers.marker(answer_id, status=status)
            return regions.messages((), str(message), oob=True, answer=answer)


class NotificationConsumer(_LimitedSocket):
    """`ws/notifications/`: live notices (friend requests, game invitations) to every page of a logged-in
    player, and their presence. From the page it takes one message, the heartbeat `{"type": "ping"}`
    (which keeps proxies from closing an idle socket); anything else gets an error notice."""

    user_id: int | None = None
    registered = False

    async def connect(self):
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_LOGIN_REQUIRED)
            return
        self.user_id = user.pk
        self.language = scope_language(self.scope)
        identity = f"user:{user.pk}"
        if not await self._may_connect(identity):
            return
        presence.ensure_heartbeat()
        try:
            await database_sync_to_async(presence.notice_socket_opened)(
                user_id=user.pk, identity=identity, channel_name=self.channel_name, language=self.language
            )
        except presence.SocketRefused as exc:
            await self.send_error(exc.message, status=429)
            await self.close(code=exc.code)
            return
        self.registered = True
        metrics.OPEN_SOCKETS.labels("notices").inc()
        self.limiter = limits.SocketLimiter(identity)
        await self.channel_layer.group_add(user_group(user.pk), self.channel_name)

    async def disconnect(self, code):
        self.release_limits()
        if not self.registered:
            return
        self.registered = False
        metrics.OPEN_SOCKETS.labels("notices").dec()
        await self.channel_layer.group_discard(user_group(self.user_id), self.channel_name)
        await database_sync_to_async(presence.socket_closed)(self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if not self.registered or not await self._allowed():
            return
        if text_data is None:
            await self.send_error(_("This socket accepts text messages only."), status=400)
            return
        if (
            len(text_data) > protocol.MAX_MESSAGE_BYTES
            or len(text_data.encode()) > protocol.MAX_MESSAGE_BYTES
        ):
            await self.send_error(_("That message is too long."), status=413)
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.send_error(_("That message is not valid JSON."), status=400)
            return
        if not isinstance(message, dict) or message.get("type") != "ping":
            await self.send_error(_("Unknown message: only a ping is expected here."), status=400)

    async def notify(self, event):
        """A notice for this player (`notices.notify_user`), in this page's language."""
        await self.send(text_data=event_html(event, self.language))

    def render_error(self, message, status: int, answer_id: int | None = None) -> str:
        with translation.override(self.language):
            return render_to_string(NOTICE_TEMPLATE, {"text": str(message), "error": True})
