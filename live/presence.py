"""Who is online, and which screens each game has: one `Connection` row per open socket, owned by the
server process (`ServerProcess`) that holds it.

Presence never depends on a socket closing cleanly. Every process that holds sockets beats every
`PENTA_HEARTBEAT_SECONDS` (one UPDATE for all its sockets); the clock sweeps a process that has not
beaten for `PENTA_PROCESS_STALE_SECONDS` (killed, frozen, cut off): its connections are removed, and a
seat they held counts as gone from the process's last beat, so the absent-player grace period runs
from then. A process swept by mistake (a long database outage) finds out on its next beat and
registers its sockets again.

- A seat has one live screen (`Player.channel_name`): a newer screen takes it over; opening one
  clears an absence grace period, closing it during the player's turn (no turn timer) starts one.
- A spectator's screen adds its language to `Game.spectator_languages`, so pushes are rendered for
  spectators once per language in use, and not at all when nobody watches.
- A player is online while any socket of theirs is held by a live process.
- Caps: `PENTA_MAX_SOCKETS_PER_PERSON` open sockets per person (user, guest or address) and
  `PENTA_MAX_SOCKETS_PER_GAME` per game; beyond them a socket is refused.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import hidden_from
from dicegame import events
from dicegame.actors import Actor
from dicegame.models import Game, Player
from dicegame.play.kernel import bump, current_turn
from live.models import Connection, ServerProcess

logger = logging.getLogger(__name__)

_process_id = uuid.uuid4().hex
# This process's open sockets (channel name -> the fields of its row), to register them again if the
# process was swept while alive.
_live: dict[str, dict] = {}
_heartbeats: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


class SocketRefused(Exception):
    """Too many open sockets: the socket is closed with this message and close code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.message = message
        self.code = code


CLOSE_TOO_MANY_SOCKETS = 4430


def identity_of(actor: Actor, client: tuple | list | None) -> str:
    if actor.user_id is not None:
        return f"user:{actor.user_id}"
    if actor.guest_key:
        return f"guest:{actor.guest_key[:64]}"
    return f"ip:{(client or ('?',))[0]}"[:100]


def stale_cutoff(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=settings.PENTA_PROCESS_STALE_SECONDS)


# -- this process: registration and heartbeat ---------------------------------------------------------


def _register_process(now: datetime | None = None) -> None:
    now = now or timezone.now()
    if not ServerProcess.objects.filter(pk=_process_id).update(beat_at=now):
        ServerProcess.objects.create(
            id=_process_id, host=socket.gethostname()[:255], pid=os.getpid(), beat_at=now
        )


def ensure_heartbeat() -> None:
    """Start this process's heartbeat on the running event loop (once per loop)."""
    loop = asyncio.get_running_loop()
    task = _heartbeats.get(loop)
    if task is None or task.done():
        _heartbeats[loop] = loop.create_task(_beat_forever())


async def _beat_forever() -> None:
    while True:
        await asyncio.sleep(settings.PENTA_HEARTBEAT_SECONDS)
        try:
            # Off the database thread the sockets queue on: a busy process must still beat in time.
            await sync_to_async(beat, thread_sensitive=False)()
        except Exception:  # the database is away: the next beat tries again
            logger.warning("heartbeat of process %s failed", _process_id, exc_info=True)


def beat() -> None:
    close_old_connections()
    try:
        _beat()
    finally:
        # Back to the pool (or kept, with persistent connections) until the next beat.
        close_old_connections()


def _beat() -> None:
    if ServerProcess.objects.filter(pk=_process_id).update(beat_at=timezone.now()):
        return
    if not _live:
        return
    # Swept while alive (the clock saw no beat for too long): register the open sockets again.
    logger.warning("process %s was taken for dead; registering its %d sockets again", _process_id, len(_live))
    _register_process()
    for channel_name, fields in list(_live.items()):
        if Connection.objects.filter(pk=channel_name).exists():
            continue
        with transaction.atomic():
            game = _lock(fields["game_id"]) if fields["game_id"] else None
            Connection.objects.create(channel_name=channel_name, process_id=_process_id, **fields)
            if game is None:
                continue
            seat = Player.objects.filter(pk=fields["player_id"]).first() if fields["player_id"] else None
            if seat is not None and not seat.channel_name:
                _seat_back(game, seat, channel_name, fields["language"])
            elif seat is None:
                _update_spectator_languages(game)


# -- sockets opening and closing -----------------------------------------------------------------------


@dataclass(frozen=True)
class Opened:
    seat_id: int | None  # the seat this screen plays (None: a spectator)
    taken_over: str  # the channel of the screen this one took the seat from ("" if none)


def _check_caps(identity: str, game_id: int | None) -> None:
    alive = Connection.objects.filter(process__beat_at__gte=stale_cutoff())
    if alive.filter(identity=identity).count() >= settings.PENTA_MAX_SOCKETS_PER_PERSON:
        raise SocketRefused(
            _("Too many open screens: close some tabs of Penta, then reload this one."),
            CLOSE_TOO_MANY_SOCKETS,
        )
    if game_id is not None and alive.filter(game_id=game_id).count() >= settings.PENTA_MAX_SOCKETS_PER_GAME:
        raise SocketRefused(_("Too many people are watching this game right now."), CLOSE_TOO_MANY_SOCKETS)


def _lock(game_id: int) -> Game | None:
    return Game.objects.select_for_update().filter(pk=game_id).first()


def game_socket_opened(
    *, game_id: int, actor: Actor, identity: str, channel_name: str, language: str
) -> Opened | None:
    """A game screen opened its socket (None: the game is gone). Raises SocketRefused over a cap."""
    _register_process()
    _check_caps(identity, game_id)
    with transaction.atomic():
        game = _lock(game_id)
        if game is None:
            return None
        seat = next((p for p in game.players.all() if actor.owns(p)), None)
        fields = {
            "kind": Connection.Kind.GAME,
            "identity": identity,
            "user_id": actor.user_id,
            "game_id": game_id,
            "player_id": seat.pk if seat else None,
            "language": language,
        }
        Connection.objects.create(channel_name=channel_name, process_id=_process_id, **fields)
        _live[channel_name] = fields
        if seat is None:
            _update_spectator_languages(game)
            return Opened(seat_id=None, taken_over="")
        previous = seat.channel_name if seat.channel_name != channel_name else ""
        _seat_back(game, seat, channel_name, language)
        return Opened(seat_id=seat.pk, taken_over=previous)


def notice_socket_opened(*, user_id: int, identity: str, channel_name: str, language: str) -> None:
    _register_process()
    _check_caps(identity, None)
    fields = {
        "kind": Connection.Kind.NOTICES,
        "identity": identity,
        "user_id": user_id,
        "game_id": None,
        "player_id": None,
        "language": language,
    }
    Connection.objects.create(channel_name=channel_name, process_id=_process_id, **fields)
    _live[channel_name] = fields
    _touch_last_seen(user_id)


def socket_closed(channel_name: str) -> None:
    """A socket of this process closed (cleanly): forget it, and what it held."""
    _live.pop(channel_name, None)
    connection = Connection.objects.filter(pk=channel_name).first()
    if connection is None:
        return
    _forget(connection, since=timezone.now())


def _forget(connection: Connection, *, since: datetime) -> None:
    channel_name = connection.channel_name  # delete() empties the primary key
    if connection.game_id is None:
        connection.delete()
        if connection.user_id:
            _touch_last_seen(connection.user_id)
        return
    with transaction.atomic():
        game = _lock(connection.game_id)
        connection.delete()
        if game is None:
            return
        if connection.player_id is None:
            _update_spectator_languages(game)
        else:
            _seat_gone(game, channel_name, since)


def _seat_back(game: Game, seat: Player, channel_name: str, language: str) -> None:
    """The seat's screen is `channel_name` now (the caller holds the game's lock)."""
    seat.channel_name = channel_name
    seat.connected = True
    seat.channel_language = language
    seat.save(update_fields=["channel_name", "connected", "channel_language"])
    if game.is_active and not game.turn_seconds and not game.is_correspondence:
        # The player is back: a grace period started for their absence no longer applies.
        turn = current_turn(game)
        if turn is not None and turn.player_id == seat.pk and turn.deadline_at is not None:
            turn.deadline_at = None
            turn.save(update_fields=["deadline_at"])
    bump(game, change=events.PRESENCE)


def _seat_gone(game: Game, channel_name: str, since: datetime) -> None:
    """The seat's live screen closed, or its process died at `since`. If it is that player's turn and
    no timer runs, a grace period starts then, so the table is not left waiting for somebody gone."""
    seat = game.players.filter(channel_name=channel_name).first()
    if seat is None:  # a screen that had been taken over
        return
    seat.channel_name = ""
    seat.connected = False
    seat.save(update_fields=["channel_name", "connected"])
    if game.is_active and game.kind == Game.Kind.FRIENDS:
        turn = current_turn(game)
        if (
            turn is not None
            and turn.player_id == seat.pk
            and turn.deadline_at is None
            and not seat.computer_plays
        ):
            turn.deadline_at = since + timedelta(seconds=settings.PENTA_ABSENT_GRACE_SECONDS)
            turn.save(update_fields=["deadline_at"])
    bump(game, change=events.PRESENCE)


def _update_spectator_languages(game: Game) -> None:
    languages = sorted(
        set(
            Connection.objects.filter(
                game_id=game.pk, kind=Connection.Kind.GAME, player__isnull=True
            ).values_list("language", flat=True)
        )
    )
    value = " ".join(languages)
    if value != game.spectator_languages:
        game.spectator_languages = value
        Game.objects.filter(pk=game.pk).update(spectator_languages=value)


def _touch_last_seen(user_id: int) -> None:
    if not Profile.objects.filter(user_id=user_id).update(last_seen=timezone.now()):
        Profile.objects.get_or_create(user_id=user_id, defaults={"last_seen": timezone.now()})


# -- the clock's sweep ----------------------------------------------------------------------------------


def forget_dead_processes() -> None:
    """The clock's sweep (registered in `live.apps`): no game counts as changed by it."""
    sweep_dead_processes()


def sweep_dead_processes(now: datetime | None = None) -> int:
    """Forget the sockets of every process that stopped beating; returns how many were forgotten."""
    forgotten = 0
    for process in ServerProcess.objects.filter(beat_at__lt=stale_cutoff(now)):
        logger.warning(
            "process %s (%s:%s) stopped beating at %s", process.pk, process.host, process.pid, process.beat_at
        )
        for connection in Connection.objects.filter(process=process):
            _forget(connection, since=process.beat_at)
            forgotten += 1
        process.delete()
    return forgotten


# -- reads ------------------------------------------------------------------------------------------------


def online_user_ids(user_ids, *, viewer_id: int | None = None) -> set[int]:
    """Those of `user_ids` with an open socket held by a live process; seen by `viewer_id`, never one
    a block stands between them and (a blocked person does not see the other's presence, either way)."""
    ids = list(user_ids)
    if viewer_id is not None and ids:
        hidden = hidden_from(viewer_id)
        ids = [uid for uid in ids if uid not in hidden]
    if not ids:
        return set()
    return set(
        Connection.objects.filter(user_id__in=ids, process__beat_at__gte=stale_cutoff()).values_list(
            "user_id", flat=True
        )
    )


def is_online(user_id: int) -> bool:
    return user_id in online_user_ids([user_id])
