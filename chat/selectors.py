"""Reads about a game's chat: who may say what where, and which lines a viewer sees (never a blocked
person's, nor a hidden one; the spectators' room not to the players while a rated game is played)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import are_friends, hidden_from
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


@dataclass(frozen=True)
class Table:
    """A game as its chat reads it: its kind, pace, rating and status, and who sits where. Read in one
    query for a line said (`table`), or taken from a game already read (`Table.of`)."""

    pk: int
    kind: str
    pace: str
    rated: bool
    status: str
    # (user id, seat) of each player; None for a guest or the computer.
    seats: tuple[tuple[int | None, int], ...]
    # The game itself, when read already: a spectator's line asks whether they may see it.
    game: Game | None = field(default=None, compare=False)

    @classmethod
    def of(cls, game: Game) -> Table:
        seats = tuple((p.user_id, p.seat) for p in game.players.all())
        return cls(game.pk, game.kind, game.pace, game.rated, game.status, seats, game)


def table(game_id: int) -> Table | None:
    fields = ("kind", "pace", "rated", "status", "players__user_id", "players__seat")
    rows = list(Game.objects.filter(pk=game_id).values_list(*fields))
    if not rows:
        return None
    kind, pace, rated, status = rows[0][:4]
    seats = tuple((row[4], row[5]) for row in rows if row[5] is not None)
    return Table(game_id, kind, pace, rated, status, seats)


def humans(table: Table) -> list[int]:
    return [user_id for user_id, _seat in table.seats if user_id is not None]


def room_of(*, table: Table, user) -> str:
    return ChatLine.Room.PLAYERS if user.pk in humans(table) else ChatLine.Room.SPECTATORS


def has_chat(table: Table) -> bool:
    """Games with other people have chat: not a solo game, not one on one device, not one against the
    computer alone."""
    return table.kind == Game.Kind.FRIENDS and len(set(humans(table))) >= 2


def spectators_hidden_from_players(table: Table) -> bool:
    return table.rated and table.status in (Game.Status.OPEN, Game.Status.ACTIVE)


def table_settled(table: Table, user_id: int | None) -> bool:
    """Whether this read of the game may serve the person's next lines too (a game socket keeps it): they
    play it and it has started, so its kind, pace and players no longer change. Its status still does,
    and the spectators' room hangs on it: a spectator's line reads the game afresh."""
    return table.status != Game.Status.OPEN and user_id is not None and user_id in humans(table)


def panics_on(now: dt.datetime) -> QuerySet:
    return ChatPanic.objects.filter(started_at__lte=now, until__gt=now)


def active_timeout(user_id: int) -> ChatTimeout | None:
    """The person's time-out in force now (the one that ends first), for its reason and end."""
    timeouts = ChatTimeout.objects.filter(Q(until__isnull=True) | Q(until__gt=timezone.now()))
    return timeouts.filter(user_id=user_id).order_by("until").first()


@dataclass(frozen=True)
class Speaker:
    """What the rules ask of the person about to say something (chat.services reads it with their row
    locked, in one statement)."""

    muted: bool
    timed_out: bool
    # Read for free text only: the games they finished, panic mode, and whether they are established
    # (staff, or ESTABLISHED_AGE old with ESTABLISHED_GAMES finished), as panic mode asks.
    finished_games: int = 0
    panic: bool = False
    established: bool = False


def speaker(user_id: int, *, text: bool, lock: bool = False) -> Speaker | None:
    """The person's standing in chat (None: no such account). `lock`: their row is locked for the rest of
    the transaction, the one lock a line's rate limit and duplicate rule are checked under.

    Written out in SQL because every line said runs it: built by the ORM (one query with four
    subqueries) it cost a line more CPU than the statement's whole round trip (docs/performance.md).
    It asks what accounts.selectors.is_muted, active_timeout and panic_active ask, and counts the
    person's finished games; the tests of each refusal hold it to them."""
    ops = connection.ops
    now = timezone.now()
    tables = {
        "user": get_user_model()._meta.db_table,
        "profile": Profile._meta.db_table,
        "timeout": ChatTimeout._meta.db_table,
        "player": Player._meta.db_table,
        "game": Game._meta.db_table,
        "panic": ChatPanic._meta.db_table,
    }
    columns = [
        "EXISTS (SELECT 1 FROM {profile} p WHERE p.user_id = u.id AND p.muted_at IS NOT NULL)",
        "EXISTS (SELECT 1 FROM {timeout} t WHERE t.user_id = u.id AND (t.until IS NULL OR t.until > %s))",
    ]
    params: list = [ops.adapt_datetimefield_value(now)]
    if text:
        columns += [
            "(SELECT COUNT(*) FROM {player} pl INNER JOIN {game} g ON g.id = pl.game_id"
            " WHERE pl.user_id = u.id AND g.status = %s)",
            "EXISTS (SELECT 1 FROM {panic} c WHERE c.started_at <= %s AND c.until > %s)",
            "u.is_staff",
            "u.date_joined <= %s",
        ]
        params += [
            Game.Status.FINISHED.value,
            ops.adapt_datetimefield_value(now),
            ops.adapt_datetimefield_value(now),
            ops.adapt_datetimefield_value(now - ESTABLISHED_AGE),
        ]
    sql = f"SELECT {', '.join(columns)} FROM {{user}} u WHERE u.id = %s"
    params.append(user_id)
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF u"
    with connection.cursor() as cursor:
        cursor.execute(sql.format(**{k: ops.quote_name(v) for k, v in tables.items()}), params)
        row = cursor.fetchone()
    if row is None:
        return None
    if not text:
        return Speaker(muted=bool(row[0]), timed_out=bool(row[1]))
    games = int(row[2])
    return Speaker(
        muted=bool(row[0]),
        timed_out=bool(row[1]),
        finished_games=games,
        panic=bool(row[3]),
        established=bool(row[4]) or (games >= ESTABLISHED_GAMES and bool(row[5])),
    )


def said_lately(*, game_id: int, user_id: int, since: dt.datetime, rate_since: dt.datetime) -> list:
    """The person's lines in the game since `since`, as (kind, text, said since `rate_since`). In SQL for
    the reason `speaker` is: every line said reads it."""
    ops = connection.ops
    sql = (
        f"SELECT kind, text, created_at >= %s FROM {ops.quote_name(ChatLine._meta.db_table)}"
        " WHERE game_id = %s AND sender_id = %s AND created_at >= %s"
    )
    adapt = ops.adapt_datetimefield_value
    params = [adapt(rate_since), game_id, user_id, adapt(since)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(kind, text, bool(recent)) for kind, text, recent in cursor.fetchall()]


def chat_refusal(
    *, table: Table, user_id: int, room: str, kind: str, who: Speaker | None = None
) -> tuple[str, int] | None:
    """Why the person may not say this here now (the message and its status), or None. `who`: their
    standing, if read already."""
    if not has_chat(table):
        return _("There is no chat in this game."), 400
    if room == ChatLine.Room.SPECTATORS:
        game = table.game or Game.objects.filter(pk=table.pk).first()
        if game is None or not game_visible(game=game, actor=Actor(user_id=user_id)):
            return _("There is no such game."), 404
    if who is None:
        who = speaker(user_id, text=kind == ChatLine.Kind.TEXT)
    if who is None:
        return _("Log in to chat."), 403
    if who.muted:
        return _("You cannot chat for now."), 403
    # The time-out itself (its end and reason) is read only for the message.
    timeout = active_timeout(user_id) if who.timed_out else None
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
    if who.finished_games < MIN_FINISHED_GAMES:
        return _(
            "New accounts chat once they have finished %(n)d games; quick phrases and reactions work now."
        ) % {"n": MIN_FINISHED_GAMES}, 403
    if who.panic and not who.established:
        return _(
            "For now only long-standing players chat freely; quick phrases and reactions work for everyone."
        ), 403
    return None


def panic_active(now=None) -> bool:
    return panics_on(now or timezone.now()).exists()


def free_text_allowed(table: Table, user_id: int) -> bool:
    """Free text between players: the others are all friends of the sender's, or everyone at the table
    allowed chat with strangers."""
    others = set(humans(table)) - {user_id}
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


def seat_of(table: Table, user_id: int | None) -> int | None:
    return next((seat for who, seat in table.seats if user_id is not None and who == user_id), None)


def line_frame_event(line: ChatLine, *, sender_name: str, table: Table) -> dict:
    """The channel-layer message of a new line: each socket renders it for its own screen."""
    return {
        "type": "chat.line",
        "line_id": line.pk,
        "sender_id": line.sender_id,
        "name": sender_name,
        "seat": seat_of(table, line.sender_id),
        "room": line.room,
        "kind": line.kind,
        "text": line.text,
        "players_blind": spectators_hidden_from_players(table),
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


def rooms_for(*, table: Table, user_id: int | None) -> list[str]:
    """The rooms the viewer reads: a player their players' room (and the spectators' once the game is
    not a rated one in play); anyone else who may see the game, the spectators' room."""
    if user_id is not None and user_id in humans(table):
        rooms = [ChatLine.Room.PLAYERS]
        if not spectators_hidden_from_players(table):
            rooms.append(ChatLine.Room.SPECTATORS)
        return rooms
    return [ChatLine.Room.SPECTATORS]


def line_for_viewer(*, line_id: int, user) -> ChatLine | None:
    line = ChatLine.objects.filter(pk=line_id, hidden=False).select_related("game").first()
    if line is None or user is None or not user.is_authenticated:
        return None
    if line.sender_id in hidden_from(user.pk):
        return None
    at = Table.of(line.game)
    if line.room not in rooms_for(table=at, user_id=user.pk):
        return None
    if user.pk not in humans(at) and not game_visible(game=line.game, actor=Actor(user_id=user.pk)):
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
