"""Reads of a game against friends around its play: the room before the start (seats, invitations, the
friends one may invite) and the rematch after the end; the invitations waiting for a person."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from accounts.selectors import friends_of, hidden_from
from dicegame.actors import Actor
from dicegame.models import Game, Invitation, Player


@dataclass(frozen=True)
class Lobby:
    seats: list[Player]
    free_seats: int
    invited: list  # pending Invitations
    my_invitation: object | None
    is_host: bool
    friends_to_invite: list
    join_path: str
    removed: bool = False  # the viewer was removed from this room by the host

    @property
    def free_seat_slots(self) -> range:
        return range(self.free_seats)


def game_lobby(*, game: Game, actor: Actor) -> Lobby | None:
    if not game.is_open:
        return None

    seats = list(game.players.select_related("user__rating"))  # the seats show their people's ratings
    invitations = list(game.invitations.select_related("to_user").filter(status=Invitation.Status.PENDING))
    mine = next((i for i in invitations if actor.user_id is not None and i.to_user_id == actor.user_id), None)
    removed = set(
        game.invitations.filter(status=Invitation.Status.REMOVED).values_list("to_user_id", flat=True)
    )
    seated = {p.user_id for p in seats} | {i.to_user_id for i in invitations} | removed
    seated_me = any(actor.owns(p) for p in seats)
    friends = (
        list(friends_of(user_id=actor.user_id).exclude(pk__in=seated)) if seated_me and actor.user_id else []
    )
    return Lobby(
        seats=seats,
        free_seats=game.seats_wanted - len(seats),
        invited=invitations,
        my_invitation=mine,
        is_host=actor.user_id is not None and game.host_id == actor.user_id,
        friends_to_invite=friends,
        join_path=reverse("dicegame:join", args=[game.invite_token]) if seated_me else "",
        removed=actor.user_id in removed,
    )


@dataclass(frozen=True)
class Rematch:
    accepted: list[str]
    waiting: list[str]
    i_accepted: bool
    lapsed: bool
    game: Game | None
    # A spectator: nothing to say yes to, but the page follows the table into the rematch.
    watching: bool = False


def game_rematch(*, game: Game, actor: Actor) -> Rematch | None:
    """The rematch after a game against friends, for a player or for a spectator (whoever may see the
    game: the view checked it)."""
    if game.kind != Game.Kind.FRIENDS or not game.is_finished or game.finished_at is None:
        return None
    humans = [p for p in game.players.all() if not p.is_bot]
    mine = next((p for p in humans if actor.owns(p)), None)
    deadline = game.finished_at + timedelta(minutes=settings.PENTA_REMATCH_MINUTES)
    return Rematch(
        accepted=[p.name for p in humans if p.rematch_accepted],
        waiting=[p.name for p in humans if not p.rematch_accepted],
        i_accepted=mine is not None and mine.rematch_accepted,
        lapsed=timezone.now() > deadline,
        game=Game.objects.filter(rematch_of=game).first(),
        watching=mine is None,
    )


def game_invitations_pending(user_id: int) -> QuerySet:
    """Game invitations waiting for the user's answer, until the game starts; newest first (none from
    someone a block stands between)."""
    return (
        Invitation.objects.filter(
            to_user_id=user_id, status=Invitation.Status.PENDING, game__status=Game.Status.OPEN
        )
        .exclude(from_user_id__in=hidden_from(user_id))
        .select_related("game", "from_user")
        .order_by("-created_at", "-pk")
    )
