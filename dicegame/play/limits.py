"""The cap on correspondence games a person plays at once (CORRESPONDENCE_GAMES_MAX), checked under a
lock on each person's row wherever a seat is taken: rooms, challenges, seeks and rematches."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.services import lock_people
from dicegame.errors import GameActionError
from dicegame.models import Game, Player
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX


def correspondence_games_of(user_id: int) -> int:
    """The correspondence games a person plays now: rooms and games in play with a seat of theirs (not
    a seat kept for them by a challenge they have not accepted)."""
    return Player.objects.filter(
        user_id=user_id,
        left_at__isnull=True,
        challenged=False,
        game__pace=Game.Pace.CORRESPONDENCE,
        game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE],
    ).count()


def check_correspondence_room_for(user_id: int, name: str = "") -> None:
    """Refuse one more correspondence game to a person who has CORRESPONDENCE_GAMES_MAX already. The
    person's row is locked first, so two seats taken at once cannot both pass the count."""
    check_correspondence_rooms_for([(user_id, name)])


def check_correspondence_rooms_for(people: list[tuple[int, str]]) -> None:
    """The same for each of `people` (user id, name; "" for the person asking), the first refused in
    their order. All their rows are locked first, at once and in user-id order (accounts.services.
    lock_people): locked one by one in seat order, two rematches of the same people in opposite seats
    accepted at once each held one row the other wanted, and PostgreSQL ended one (a 500, a yes lost)."""
    lock_people(uid for uid, _name in people)
    for user_id, name in people:
        if correspondence_games_of(user_id) < CORRESPONDENCE_GAMES_MAX:
            continue
        values = {"max": CORRESPONDENCE_GAMES_MAX, "name": name}
        message = (
            _("%(name)s already plays %(max)d correspondence games: one of them must end first.")
            if name
            else _("You already play %(max)d correspondence games: finish one before you start another.")
        )
        raise GameActionError(message % values, status=409)
