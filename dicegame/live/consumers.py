"""The game socket: every change reaches every player and spectator as the page's own partials.

Thin: it checks the right to see the game, joins the game's group, and on each "game.updated" event
renders the board for its own viewer. Actions sent over the socket go through the same services as
the HTTP views; a refused one gets an error frame and changes nothing.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import Http404
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from dicegame import selectors, services
from dicegame.actors import GUEST_SESSION_KEY
from dicegame.live import pushes, rooms
from dicegame.models import Game
from dicegame.services import Actor, GameActionError

MAX_MESSAGE_BYTES = 4096
CLOSE_NOT_ALLOWED = 4404
CLOSE_LOGIN_REQUIRED = 4401
CLOSE_TAKEN_OVER = 4409


def actor_from_scope(scope) -> Actor:
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return Actor(user_id=user.pk, name=user.get_username())
    session = scope.get("session")
    key = session.get(GUEST_SESSION_KEY, "") if session is not None else ""
    return Actor(guest_key=key, name=_("Guest"))


def _turn_action(name):
    def run(game_id, actor, msg):
        turn, roll = int(msg["turn"]), int(msg["roll"])
        if name == "roll":
            return services.turn_roll(game_id=game_id, actor=actor, turn=turn, roll=roll)
        if name == "hold":
            return services.turn_toggle_hold(
                game_id=game_id, actor=actor, turn=turn, roll=roll, die=int(msg["die"])
            )
        if name == "choose":
            return services.turn_choose_box(
                game_id=game_id, actor=actor, turn=turn, roll=roll, box=str(msg["box"])
            )
        return services.turn_confirm(game_id=game_id, actor=actor, turn=turn, roll=roll)

    return run


ACTIONS = {
    "roll": _turn_action("roll"),
    "hold": _turn_action("hold"),
    "choose": _turn_action("choose"),
    "confirm": _turn_action("confirm"),
    "hurry": lambda game_id, actor, msg: services.game_hurry(game_id=game_id, actor=actor),
    "take_back": lambda game_id, actor, msg: rooms.seat_take_back(game_id=game_id, actor=actor),
}


class GameConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.actor = actor_from_scope(self.scope)
        self.language = _language(self.scope)
        self.version = -1
        self.token = parse_qs(self.scope.get("query_string", b"").decode()).get("t", [""])[0]
        allowed = await database_sync_to_async(self._may_watch)(self.token)
        if allowed is None:
            await self.close(code=CLOSE_LOGIN_REQUIRED)
            return
        if not allowed:
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        self.group = pushes.game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        previous = await database_sync_to_async(rooms.seat_connection)(
            game_id=self.game_id, actor=self.actor, channel_name=self.channel_name
        )
        if previous:
            await self.channel_layer.send(previous, {"type": "seat.taken_over"})
        await self.send_board()

    def _may_watch(self, token: str) -> bool | None:
        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            return False
        if game.kind == Game.Kind.FRIENDS and self.actor.user_id is None:
            return None
        return selectors.game_visible(game=game, actor=self.actor, token=token)

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await database_sync_to_async(rooms.seat_disconnected)(
                game_id=self.game_id, channel_name=self.channel_name
            )

    async def receive(self, text_data=None, bytes_data=None):
        if bytes_data is not None or text_data is None or len(text_data.encode()) > MAX_MESSAGE_BYTES:
            await self.send_error(_("Messages are text of at most 4 KB."), status=413)
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.send_error(_("That message was not valid JSON."), status=400)
            return
        if not isinstance(message, dict):
            await self.send_error(_("That message was not valid JSON."), status=400)
            return
        name = message.get("action")
        if name == "sync":
            await self.send_board(force=True)
            return
        action = ACTIONS.get(name)
        if action is None:
            await self.send_error(_("Unknown action: %(name)s.") % {"name": str(name)[:40]}, status=400)
            return
        try:
            await database_sync_to_async(action)(self.game_id, self.actor, message)
        except GameActionError as exc:
            await self.send_error(exc.message, status=exc.status)
        except (KeyError, TypeError, ValueError):
            await self.send_error(_("That action is missing a field or has a malformed one."), status=400)

    # -- events from the group -------------------------------------------------------------------

    async def game_updated(self, event):
        if event["version"] <= self.version:
            return
        # The next version after one this screen has: redraw only what that change can alter.
        change = event.get("change")
        partial = event["version"] == self.version + 1 and change in selectors.CHANGE_REGIONS
        await self.send_board(regions=selectors.CHANGE_REGIONS[change] if partial else frozenset())

    async def seat_taken_over(self, event):
        await self.send(
            text_data=await database_sync_to_async(self._render)(
                "dicegame/game.html#taken-over", {"oob": True}
            )
        )
        await self.close(code=CLOSE_TAKEN_OVER)

    # -- rendering ---------------------------------------------------------------------------------

    async def send_board(self, force: bool = False, regions: frozenset = frozenset()):
        html, version = await database_sync_to_async(self._board)(regions)
        if html is None:
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        if force or version > self.version:
            self.version = version
            await self.send(text_data=html)

    def _board(self, regions: frozenset = frozenset()):
        try:
            game = selectors.game_for_viewer(game_id=self.game_id, actor=self.actor, token=self.token)
        except Http404:
            return None, 0
        # Labels are made while the board is built, so build it in the viewer's language too.
        with translation.override(self.language):
            context = {
                "game": game,
                "board": selectors.game_board(game=game, actor=self.actor),
                "lobby": selectors.game_lobby(game=game, actor=self.actor),
                "regions": regions,
                "oob": True,
            }
        html = self._render("dicegame/game.html#live-update", context)
        return html, game.version

    def _render(self, template: str, context: dict) -> str:
        with translation.override(self.language):
            return render_to_string(template, context)

    async def send_error(self, message: str, *, status: int):
        html = await database_sync_to_async(self._render)(
            "dicegame/message.html#messages", {"error": message, "oob": True, "status": status}
        )
        await self.send(text_data=html)


def _language(scope) -> str:
    from django.conf import settings
    from django.utils.translation import get_supported_language_variant

    headers = dict(scope.get("headers", []))
    cookie_lang = ""
    for part in headers.get(b"cookie", b"").decode(errors="ignore").split(";"):
        name, _sep, value = part.strip().partition("=")
        if name == settings.LANGUAGE_COOKIE_NAME:
            cookie_lang = value
    accept = headers.get(b"accept-language", b"").decode(errors="ignore")
    for candidate in [cookie_lang, *[p.split(";")[0].strip() for p in accept.split(",")]]:
        if not candidate:
            continue
        try:
            return get_supported_language_variant(candidate)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
