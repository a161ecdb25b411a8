"""A person whose account goes (accounts.erasure): their games in play are left as leaving does, each in
its own transaction under its game's row lock, so a game's end and the leaving never cross.

- a game against friends in play: the seat is left (`rooms.seat_leave`): the computer plays it out and
  it counts as leaving;
- a solo game or one against the computer: resigned (`games.game_resign`);
- a room not yet started: the host's is cancelled, another's seat freed;
- a game on shared dice (a daily challenge, a tournament round) closes by its own window, as it stands.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game, Invitation, Player
from dicegame.play.games import game_resign
from dicegame.play.kernel import bump, lock_game
from dicegame.play.rooms import room_cancel, seat_leave


def games_in_play_of(user_id: int):
    """The person's seats in rooms and games in play that they have not left (shared dice aside)."""
    return Player.objects.filter(
        user_id=user_id,
        left_at__isnull=True,
        game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE],
        game__daily_date__isnull=True,
        game__dice_key="",
    ).exclude(game__kind=Game.Kind.LOCAL)


def leave_all(*, user_id: int, name: str) -> int:
    """Leave every room and game in play of the person; returns how many were left. A game that ended
    meanwhile is skipped (its end came first: nothing to leave)."""
    actor = Actor(user_id=user_id, name=name)
    left = 0
    for game_id, kind, status, host_id in games_in_play_of(user_id).values_list(
        "game_id", "game__kind", "game__status", "game__host_id"
    ):
        try:
            if status == Game.Status.OPEN and host_id == user_id:
                room_cancel(game_id=game_id, actor=actor)
            elif status == Game.Status.OPEN:
                _room_seat_free(game_id=game_id, user_id=user_id)
            elif kind == Game.Kind.FRIENDS:
                seat_leave(game_id=game_id, actor=actor)
            else:
                game_resign(game_id=game_id, actor=actor)
        except GameActionError:
            continue  # it started, ended or was cancelled meanwhile
        left += 1
    return left


@transaction.atomic
def _room_seat_free(*, game_id: int, user_id: int) -> None:
    """The person's seat in a room not yet started goes; the seats after it move up."""
    game = lock_game(game_id)
    if not game.is_open:
        raise GameActionError(_("This game has already started."))
    seat = game.players.filter(user_id=user_id).first()
    if seat is None:
        return
    number = seat.seat
    seat.delete()
    for later in game.players.filter(seat__gt=number).order_by("seat"):
        later.seat -= 1
        later.save(update_fields=["seat"])
    Invitation.objects.filter(game=game, to_user_id=user_id).delete()
    bump(game)
    if game.host_id is not None:
        events.publish(events.PersonNotified(game.host_id, lambda: events.Notice(_seat_freed_text(game_id))))


def _seat_freed_text(game_id: int) -> str:
    return _("A player left the room of game %(id)s.") % {"id": game_id}
