"""Reads about a game's chat: who may say what where, and which lines a viewer sees (never a blocked
person's, nor a hidden one; the spectators' room not to the players while a rated game is played)."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import are_friends, hidden_from, is_muted
from chat import phrases
from chat.models import ChatLine, ChatPanic, ChatTimeout
from dicegame.actors import Actor
from dicegame.models import Game, Player
from dicegame.play.selectors import game_visible

# A new account chats in free text once it has finished this many games (phrases and reactions at once).
MIN_FINISHED_GAMES = 3
# In panic mode (ChatPanic), free text is for established accounts only: this old, this many games.
ESTABLISHED_AGE = dt.timedelta(days=7)
ESTABLISHED_GAMES = 20
# Lines a panel shows.
PANEL_LINES = 50


def humans(game: Game) -> list[int]:
    return [p.user_id for p in game.players.all() if p.user_id is not None]


def room_of(*, game: Game, user) -> str:
    return ChatLine.Room.PLAYERS if user.pk in humans(game) else ChatLine.Room.SPECTATORS


def has_chat(game: Game) -> bool:
    """Games with other people have chat: not a solo game, not one on one device, not one against the
    computer alone."""
    return game.kind == Game.Kind.FRIENDS and len(set(humans(game))) >= 2


def spectators_hidden_from_players(game: Game) -> bool:
    return game.rated and game.status in (Game.Status.OPEN, Game.Status.ACTIVE)


def active_timeout(user_id: int) -> ChatTimeout | None:
    now = timezone.now()
    return (
        ChatTimeout.objects.filter(user_id=user_id)
        .filter(Q(until__isnull=True) | Q(until__gt=now))
        .order_by("until")
        .first()
    )


def finished_games(user_id: int) -> int:
    return Player.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED).count()


def chat_refusal(*, game: Game, user_id: int, room: str, kind: str) -> tuple[str, int] | None:
    """Why the person may not say this here now (the message and its status), or None."""
    if not has_chat(game):
        return _("There is no chat in this game."), 400
    if room == ChatLine.Room.SPECTATORS and not game_visible(game=game, actor=Actor(user_id=user_id)):
        return _("There is no such game."), 404
    if is_muted(user_id):
        return _("You cannot chat for now."), 403
    timeout = active_timeout(user_id)
    if timeout is not None:
        if timeout.until is None:
            return _("You may no longer chat: %(reason)s") % {"reason": timeout.reason}, 403
        until = formats.date_format(timezone.localtime(timeout.until), "DATETIME_FORMAT")
        return _("You are timed out of chat until %(until)s: %(reason)s") % {
            "until": until,
            "reason": timeout.reason,
        }, 403
    if kind != ChatLine.Kind.TEXT:
        return None
    games = finished_games(user_id)
    if games < MIN_FINISHED_GAMES:
        return _(
            "New accounts chat once they have finished %(n)d games; quick phrases and reactions work now."
        ) % {"n": MIN_FINISHED_GAMES}, 403
    if panic_active() and not established(user_id, games):
        return _(
            "For now only long-standing players chat freely; quick phrases and reactions work for everyone."
        ), 403
    return None


def panic_active(now=None) -> bool:
    now = now or timezone.now()
    return ChatPanic.objects.filter(started_at__lte=now, until__gt=now).exists()


def established(user_id: int, games: int | None = None) -> bool:
    """Old enough and played enough to chat in panic mode (staff count as established)."""
    user = get_user_model().objects.filter(pk=user_id).values("date_joined", "is_staff").first()
    if user is None:
        return False
    if user["is_staff"]:
        return True
    games = finished_games(user_id) if games is None else games
    return games >= ESTABLISHED_GAMES and user["date_joined"] <= timezone.now() - ESTABLISHED_AGE


def free_text_allowed(game: Game, user_id: int) -> bool:
    """Free text between players: the others are all friends of the sender's, or everyone at the table
    allowed chat with strangers."""
    others = set(humans(game)) - {user_id}
    if all(are_friends(a=user_id, b=other) for other in others):
        return True
    allowing = set(
        Profile.objects.filter(user_id__in=others | {user_id}, chat_strangers=True).values_list(
            "user_id", flat=True
        )
    )
    return allowing == others | {user_id}


def reactions_on(user_id: int | None) -> bool:
    if user_id is None:
        return True
    value = Profile.objects.filter(user_id=user_id).values_list("chat_reactions", flat=True).first()
    return True if value is None else value


def chat_viewer(user_id: int | None) -> tuple[frozenset[int], bool]:
    """What a socket needs to filter pushed lines for its viewer: who is hidden from them, and whether
    they see reactions and phrases."""
    return frozenset(hidden_from(user_id)), reactions_on(user_id)


def seat_of(game: Game, user_id: int | None) -> int | None:
    return next((p.seat for p in game.players.all() if user_id is not None and p.user_id == user_id), None)


def line_frame_event(line: ChatLine, *, sender_name: str, game: Game) -> dict:
    """The channel-layer message of a new line: each socket renders it for its own screen."""
    return {
        "type": "chat.line",
        "line_id": line.pk,
        "sender_id": line.sender_id,
        "name": sender_name,
        "seat": seat_of(game, line.sender_id),
        "room": line.room,
        "kind": line.kind,
        "text": line.text,
        "players_blind": spectators_hidden_from_players(game),
    }


def visible_lines(*, game: Game, user_id: int | None, room: str) -> list[ChatLine]:
    """The latest lines of the room the viewer may see, oldest first."""
    lines = ChatLine.objects.filter(game_id=game.pk, room=room, hidden=False).exclude(
        sender_id__in=hidden_from(user_id)
    )
    if not reactions_on(user_id):
        lines = lines.filter(kind=ChatLine.Kind.TEXT)
    latest = list(lines.select_related("sender").order_by("-created_at", "-pk")[:PANEL_LINES])
    for line in latest:
        line.shown = phrases.shown(line.kind, line.text)
    return latest[::-1]


def rooms_for(*, game: Game, user_id: int | None) -> list[str]:
    """The rooms the viewer reads: a player their players' room (and the spectators' once the game is
    not a rated one in play); anyone else who may see the game, the spectators' room."""
    if user_id is not None and user_id in humans(game):
        rooms = [ChatLine.Room.PLAYERS]
        if not spectators_hidden_from_players(game):
            rooms.append(ChatLine.Room.SPECTATORS)
        return rooms
    return [ChatLine.Room.SPECTATORS]


def line_for_viewer(*, line_id: int, user) -> ChatLine | None:
    line = ChatLine.objects.filter(pk=line_id, hidden=False).select_related("game").first()
    if line is None or user is None or not user.is_authenticated:
        return None
    if line.sender_id in hidden_from(user.pk):
        return None
    if line.room not in rooms_for(game=line.game, user_id=user.pk):
        return None
    if user.pk not in humans(line.game) and not game_visible(game=line.game, actor=Actor(user_id=user.pk)):
        return None
    return line


def report_context(line: ChatLine, around: int) -> str:
    qs = ChatLine.objects.filter(game_id=line.game_id, room=line.room).select_related("sender")
    before = list(qs.filter(pk__lt=line.pk).order_by("-pk")[:around])[::-1]
    after = list(qs.filter(pk__gt=line.pk).order_by("pk")[:around])
    rows = []
    for other in [*before, line, *after]:
        mark = ">>" if other.pk == line.pk else "  "
        who = other.sender.get_username() if other.sender else "-"
        rows.append(f"{mark} [{other.created_at:%Y-%m-%d %H:%M:%S}] {who} ({other.kind}): {other.text}")
    return "\n".join(rows)
