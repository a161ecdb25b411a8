"""Games against friends before and after play: rooms, seats, invitations, the start, rematches,
seats kept by the computer, and rooms that expire. (The turns themselves are `actions`.)"""

from __future__ import annotations

import secrets
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import SentNotice
from accounts.selectors import are_friends, hidden_from, is_muted, may_challenge
from accounts.services import NoticeLimited, notice_quota_take
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import bot_name
from dicegame.models import Game, Invitation, Player
from dicegame.play.kernel import (
    bump,
    check_active,
    current_turn,
    lock_for_actor,
    lock_game,
    seat_auto_commit,
    start_turn,
    turn_deadline,
    user_play_settings,
)
from dicegame.play.limits import check_correspondence_room_for, check_correspondence_rooms_for
from dicegame.rules import dice
from dicegame.rules.turn import MOVE_TIME_CHOICES
from dicegame.strategy import STRENGTHS

# A room's computer players: the winner is not among them (a room may be rated, and it is offered where
# people play the computer, and as a casual game's stand-in).
ROOM_STRENGTHS = tuple(s for s in STRENGTHS if s != "winner")

SEAT_CHOICES = (2, 3, 4)
TURN_TIMER_CHOICES = (0, 30, 60, 120)  # 0: no turn timer


def _user_actor(actor: Actor) -> int:
    if actor.user_id is None:
        raise GameActionError(_("Log in to play against friends."), status=403)
    return actor.user_id


@transaction.atomic
def room_create(
    *, actor: Actor, seats: int, turn_seconds: int, rated: bool = False, move_seconds: int = 0
) -> Game:
    """A room for 2-4 players with its host in the first seat; others join by invitation or link.
    `rated`: the game moves its people's ratings (`ratings`), and hints are off in it; it needs a turn
    timer (or a move time: every rated game has a clock). `move_seconds`
    (one of MOVE_TIME_CHOICES): a correspondence game with that much time a move (the turn timer is
    then not used); 0: a live game."""
    user_id = _user_actor(actor)
    if seats not in SEAT_CHOICES:
        raise GameActionError(_("A game against friends has 2, 3 or 4 seats."), status=400)
    if move_seconds:
        if move_seconds not in MOVE_TIME_CHOICES:
            raise GameActionError(_("A move has an hour, 8 hours, a day or 3 days."), status=400)
        check_correspondence_room_for(user_id)
        turn_seconds = 0
    elif turn_seconds not in TURN_TIMER_CHOICES:
        raise GameActionError(_("The turn timer is off, 30, 60 or 120 seconds."), status=400)
    elif rated and not turn_seconds:
        # A stall must never be a way out of a loss: the clock plays a turn not taken in time.
        raise GameActionError(
            _("A rated game needs a clock: choose a turn timer of 30, 60 or 120 seconds."), status=400
        )
    game = new_friends_game(
        host_id=user_id,
        seats=seats,
        turn_seconds=turn_seconds or None,
        move_seconds=move_seconds or None,
        status=Game.Status.OPEN,
        rated=rated,
    )
    Player.objects.create(
        game=game, seat=0, user_id=user_id, name=actor.name, auto_commit_seconds=_auto(game, user_id)
    )
    return game


def _auto(game: Game, user_id: int | None) -> int | None:
    """A person's seat's time to choose a box after the last roll: theirs, as far as the game allows."""
    if user_id is None:
        return None
    return seat_auto_commit(game, user_play_settings(user_id).auto_commit)


def new_friends_game(
    *,
    host_id: int | None,
    seats: int,
    turn_seconds: int | None,
    status: str,
    rematch_of: Game | None = None,
    rated: bool = False,
    move_seconds: int | None = None,
) -> Game:
    """A game against friends with its own secret seed (committed to) and invitation link; live, or by
    correspondence with `move_seconds` a move. (Challenges and pairings make theirs with it too.)"""
    seed = dice.new_seed()
    return Game.objects.create(
        kind=Game.Kind.FRIENDS,
        status=status,
        seed=seed,
        seed_commitment=dice.commitment(seed),
        host_id=host_id,
        seats_wanted=seats,
        turn_seconds=turn_seconds,
        pace=Game.Pace.CORRESPONDENCE if move_seconds else Game.Pace.LIVE,
        move_seconds=move_seconds,
        invite_token=secrets.token_urlsafe(24),
        rematch_of=rematch_of,
        rated=rated,
    )


def room_closed_error(game: Game) -> GameActionError:
    """Why a room takes no more seats or changes: it was cancelled, it expired, or the game started."""
    if game.is_cancelled:
        return GameActionError(_("The host cancelled this room."), status=410)
    if game.status == Game.Status.EXPIRED:
        return GameActionError(_("This game has expired."), status=410)
    return GameActionError(_("This game has already started."))


def removed_error() -> GameActionError:
    return GameActionError(_("The host removed you from this room."), status=403)


def was_removed(game: Game, user_id: int) -> bool:
    return Invitation.objects.filter(game=game, to_user_id=user_id, status=Invitation.Status.REMOVED).exists()


def _open_room(game_id: int, actor: Actor, *, host_only: bool = False) -> Game:
    game = lock_for_actor(game_id, actor)
    if not game.is_open:
        raise room_closed_error(game)
    if host_only and game.host_id != actor.user_id:
        raise GameActionError(_("Only the host can do that."), status=403)
    return game


def _next_seat(game: Game) -> int:
    taken = list(game.players.values_list("seat", flat=True))
    if len(taken) >= game.seats_wanted:
        raise GameActionError(_("This game is full."))
    return max(taken) + 1 if taken else 0


@transaction.atomic
def room_invite(*, game_id: int, actor: Actor, username: str) -> Invitation:
    """Invite a friend to the room (the host or any seated player may)."""
    user_id = _user_actor(actor)
    game = _open_room(game_id, actor)
    friend = get_user_model().objects.filter(username=username).first()
    if friend is None or not are_friends(a=user_id, b=friend.pk):
        raise GameActionError(_("You can only invite your friends."), status=400)
    # Their choice of who may challenge them (a muted sender is told so by the notice quota below).
    refusal = None if is_muted(user_id) else may_challenge(from_user_id=user_id, to_user_id=friend.pk)
    if refusal is not None:
        raise GameActionError(
            _("%(name)s is not taking invitations to games now.") % {"name": friend.username}
        )
    if game.players.filter(user=friend).exists():
        raise GameActionError(_("%(name)s already has a seat.") % {"name": friend.username})
    if was_removed(game, friend.pk):
        raise GameActionError(
            _("The host removed %(name)s from this room.") % {"name": friend.username}, status=403
        )
    _next_seat(game)
    invitation = Invitation.objects.filter(game=game, to_user=friend).first()
    if invitation is not None and invitation.status == Invitation.Status.PENDING:
        raise GameActionError(_("%(name)s is already invited.") % {"name": friend.username})
    try:
        notice_quota_take(
            sender_id=user_id,
            recipient_id=friend.pk,
            recipient_name=friend.username,
            kind=SentNotice.Kind.INVITATION,
        )
    except NoticeLimited as exc:
        raise GameActionError(exc.message, status=exc.status) from None
    if invitation is None:
        invitation = Invitation.objects.create(game=game, to_user=friend, from_user_id=user_id)
    else:
        invitation.status = Invitation.Status.PENDING
        invitation.save(update_fields=["status"])
    bump(game)
    events.publish(events.PersonNotified(invitation.to_user_id, partial(_invitation_notice, invitation)))
    events.publish(events.InboxChanged((invitation.to_user_id,)))
    return invitation


def _invitation_notice(invitation: Invitation) -> events.Notice:
    name = {"name": invitation.from_user.username}
    if invitation.game.rated:
        text = _("%(name)s invites you to a rated game of Penta.") % name
    else:
        text = _("%(name)s invites you to a game of Penta.") % name
    if invitation.game.is_correspondence:
        text = f"{text} {invitation.game.pace_label}."
    return events.Notice(text, f"/games/{invitation.game_id}/", _("Open the game"))


def _seat(game: Game, user_id: int, name: str) -> Player:
    existing = game.players.filter(user_id=user_id).first()
    if existing:
        return existing
    if game.is_correspondence:
        check_correspondence_room_for(user_id)
    player = Player.objects.create(
        game=game, seat=_next_seat(game), user_id=user_id, name=name, auto_commit_seconds=_auto(game, user_id)
    )
    if Invitation.objects.filter(game=game, to_user_id=user_id).update(status=Invitation.Status.ACCEPTED):
        events.publish(events.InboxChanged((user_id,)))
    bump(game)
    return player


@transaction.atomic
def room_accept_invitation(*, game_id: int, actor: Actor) -> Player:
    user_id = _user_actor(actor)
    game = lock_game(game_id)
    invitation = Invitation.objects.filter(game=game, to_user_id=user_id).first()
    if invitation is None:
        raise GameNotFound(_("There is no such game."))
    if invitation.status == Invitation.Status.REMOVED:
        raise removed_error()
    if not game.is_open:
        raise room_closed_error(game)
    if invitation.status == Invitation.Status.DECLINED:
        raise GameActionError(_("You declined this invitation."))
    return _seat(game, user_id, actor.name)


@transaction.atomic
def room_decline_invitation(*, game_id: int, actor: Actor) -> None:
    user_id = _user_actor(actor)
    game = lock_game(game_id)
    if game.is_cancelled:
        raise room_closed_error(game)
    updated = Invitation.objects.filter(
        game=game, to_user_id=user_id, status=Invitation.Status.PENDING
    ).update(status=Invitation.Status.DECLINED)
    if not updated:
        raise GameNotFound(_("There is no such invitation."))
    bump(game)
    events.publish(events.InboxChanged((user_id,)))


@transaction.atomic
def room_join_by_link(*, token: str, actor: Actor) -> Player:
    """The first to open the invitation link takes the next free seat; a seated player just returns."""
    user_id = _user_actor(actor)
    game = Game.objects.select_for_update().filter(kind=Game.Kind.FRIENDS, invite_token=token).first()
    if not token or game is None:
        raise GameNotFound(_("This invitation link is not valid."))
    seated = game.players.filter(user_id=user_id).first()
    if seated:
        return seated
    if hidden_from(user_id) & set(game.players.values_list("user_id", flat=True)):
        raise GameNotFound(_("This invitation link is not valid."))  # a block: as for no such link
    if was_removed(game, user_id):
        raise removed_error()
    if game.is_active or game.is_finished:
        raise GameActionError(_("This game has already started: you can watch it, not join it."))
    if not game.is_open:
        raise room_closed_error(game)
    return _seat(game, user_id, actor.name)


@transaction.atomic
def room_new_link(*, game_id: int, actor: Actor) -> Game:
    """The host replaces the room's invitation link: the old one stops working (for joining and for
    watching)."""
    game = _open_room(game_id, actor, host_only=True)
    game.invite_token = secrets.token_urlsafe(24)
    game.save(update_fields=["invite_token"])
    bump(game)
    return game


@transaction.atomic
def room_cancel(*, game_id: int, actor: Actor) -> Game:
    """The host calls the game off before it starts: the room takes no more actions, its invitations
    are no longer listed, and the other people seated are told."""
    game = _open_room(game_id, actor, host_only=True)
    _inbox_of_the_invited(game)
    game.status = Game.Status.CANCELLED
    bump(game)
    host = actor.name
    for user_id in (
        game.players.filter(user__isnull=False)
        .exclude(user_id=actor.user_id)
        .values_list("user_id", flat=True)
    ):
        events.publish(events.PersonNotified(user_id, partial(_cancelled_notice, game.pk, host)))
    return game


def _inbox_of_the_invited(game: Game) -> None:
    """The room takes no more seats: the invitations still waiting leave their people's inboxes."""
    waiting = Invitation.objects.filter(game=game, status=Invitation.Status.PENDING)
    events.publish(events.InboxChanged(tuple(waiting.values_list("to_user_id", flat=True))))


def _cancelled_notice(game_id: int, host: str) -> events.Notice:
    return events.Notice(
        _("%(name)s cancelled game %(id)s before it started.") % {"name": host, "id": game_id}
    )


@transaction.atomic
def room_add_computer(*, game_id: int, actor: Actor, strength: str) -> Player:
    game = _open_room(game_id, actor, host_only=True)
    if strength not in ROOM_STRENGTHS:
        raise GameActionError(
            _("Unknown strength %(name)s: choose easy, medium or hard.") % {"name": repr(strength)},
            status=400,
        )
    seat = _next_seat(game)
    player = Player.objects.create(
        game=game, seat=seat, bot_strength=strength, name=bot_name(strength, seat, 2)
    )
    bump(game)
    return player


@transaction.atomic
def room_remove_seat(*, game_id: int, actor: Actor, seat: int) -> None:
    """The host frees a seat (not their own); the seats after it move up."""
    game = _open_room(game_id, actor, host_only=True)
    player = game.players.filter(seat=seat).first()
    if player is None or seat == 0:
        raise GameActionError(_("There is no such seat to free."), status=400)
    removed_user_id = player.user_id
    player.delete()
    for later in game.players.filter(seat__gt=seat).order_by("seat"):
        later.seat -= 1
        later.save(update_fields=["seat"])
    if removed_user_id is not None:
        # Final for this room: neither the invitation nor the link seats them again.
        Invitation.objects.update_or_create(
            game=game,
            to_user_id=removed_user_id,
            defaults={"status": Invitation.Status.REMOVED},
            create_defaults={"from_user_id": actor.user_id, "status": Invitation.Status.REMOVED},
        )
        events.publish(events.PersonNotified(removed_user_id, partial(_removed_notice, game.pk, actor.name)))
    bump(game)


def _removed_notice(game_id: int, host: str) -> events.Notice:
    return events.Notice(_("%(name)s removed you from game %(id)s.") % {"name": host, "id": game_id})


@transaction.atomic
def room_start(*, game_id: int, actor: Actor) -> Game:
    """The host starts the game with the seats filled so far (at least two); seat order is turn order."""
    game = _open_room(game_id, actor, host_only=True)
    players = list(game.players.order_by("seat"))
    if len(players) < 2:
        raise GameActionError(_("At least two seats must be filled to start."))
    _inbox_of_the_invited(game)
    game.status = Game.Status.ACTIVE
    game.seats_wanted = len(players)
    now = timezone.now()
    game.moved_at = now if game.is_correspondence else None
    game.save(update_fields=["status", "seats_wanted", "moved_at"])
    start_turn(game, players[0], number=1, round_=1, at=now)
    bump(game)
    return game


@transaction.atomic
def seat_take_back(*, game_id: int, actor: Actor) -> Game:
    """A player who was away takes their seat back from the computer."""
    game = lock_for_actor(game_id, actor)
    if game.is_cancelled:
        raise room_closed_error(game)
    seat = next(p for p in game.players.all() if actor.owns(p))
    if seat.left_at is not None:
        raise GameActionError(_("You left this game: your seat can't be taken back."), status=403)
    if not seat.stand_in:
        raise GameActionError(_("Your seat is yours already."))
    if not game.is_active:
        raise GameActionError(_("This game is over."))
    seat.stand_in = False
    seat.missed_turns = 0
    seat.save(update_fields=["stand_in", "missed_turns"])
    turn = current_turn(game)
    if turn.player_id == seat.pk:
        # Their turn, as the computer left it: they play on from here.
        turn.stand_in = False
        turn.next_step_at = None
        turn.deadline_at = turn_deadline(game, seat, timezone.now())
        turn.save(update_fields=["stand_in", "next_step_at", "deadline_at"])
    bump(game)
    return game


@transaction.atomic
def seat_leave(*, game_id: int, actor: Actor) -> Game:
    """A player leaves a game against friends for good: the computer plays their remaining turns so
    the table can finish, the seat can't be taken back, and the game counts as a loss for them (they
    rank after everyone who played on: `finish.finish`)."""
    game = lock_for_actor(game_id, actor)
    if game.kind != Game.Kind.FRIENDS:
        raise GameActionError(_("Only games against friends are left; resign this one instead."), status=400)
    if game.is_cancelled:
        raise room_closed_error(game)
    seat = next(p for p in game.players.all() if actor.owns(p))
    if seat.left_at is not None:
        raise GameActionError(_("You have already left this game."))
    if seat.challenged:
        raise GameActionError(_("You have not accepted this challenge: decline it instead."))
    check_active(game)
    now = timezone.now()
    seat.left_at = now
    seat.stand_in = True
    seat.save(update_fields=["left_at", "stand_in"])
    game.left_seat = seat  # told on every screen (dicegame.screen.moments)
    turn = current_turn(game)
    if turn is not None and turn.player_id == seat.pk:
        # Their turn: the computer plays it from where they left it, at its usual pace.
        turn.player = seat
        turn.stand_in = True
        turn.deadline_at = None
        turn.auto_commit_at = None
        turn.next_step_at = now + timedelta(seconds=settings.PENTA_BOT_STEP_SECONDS)
        turn.save(update_fields=["stand_in", "deadline_at", "auto_commit_at", "next_step_at"])
    bump(game)
    return game


@transaction.atomic
def rematch_accept(*, game_id: int, actor: Actor) -> Game | None:
    """Say yes to a rematch; when every person has, the new game starts with the same seats and the
    first seat moved one on. Returns the new game once it exists."""
    game = lock_for_actor(game_id, actor)
    if game.kind != Game.Kind.FRIENDS or not game.is_finished:
        raise GameActionError(_("A rematch is offered when a game against friends is over."))
    if hasattr(game, "rematch") and game.rematch is not None:
        return game.rematch
    deadline = game.finished_at + timedelta(minutes=settings.PENTA_REMATCH_MINUTES)
    if timezone.now() > deadline:
        raise GameActionError(_("The rematch offer has lapsed (30 minutes after the end)."))
    seat = next(p for p in game.players.all() if actor.owns(p))
    seat.rematch_accepted = True
    seat.save(update_fields=["rematch_accepted"])
    players = list(game.players.order_by("seat"))
    if not all(p.rematch_accepted for p in players if not p.is_bot):
        bump(game)
        return None
    if game.is_correspondence:
        check_correspondence_rooms_for([(p.user_id, p.name) for p in players if p.user_id is not None])
    rematch = new_friends_game(
        host_id=game.host_id,
        seats=len(players),
        turn_seconds=game.turn_seconds,
        move_seconds=game.move_seconds,  # a rematch keeps the pace
        status=Game.Status.ACTIVE,
        rematch_of=game,
        rated=game.rated,  # a rematch of a rated game is rated
    )
    now = timezone.now()
    if rematch.is_correspondence:
        rematch.moved_at = now
        rematch.save(update_fields=["moved_at"])
    rotated = players[1:] + players[:1]
    new_seats = [
        Player.objects.create(
            game=rematch,
            seat=i,
            user_id=p.user_id,
            bot_strength=p.bot_strength,
            name=p.name,
            auto_commit_seconds=_auto(rematch, p.user_id),
        )
        for i, p in enumerate(rotated)
    ]
    start_turn(rematch, new_seats[0], number=1, round_=1, at=now)
    bump(rematch)
    bump(game)
    return rematch


def games_expire_idle() -> int:
    """Rooms with no activity for 7 days expire, and so do live games; a correspondence game in play
    ends by its own rule instead (Game.closes_at); finished games stay in everyone's history."""
    cutoff = timezone.now() - timedelta(days=settings.PENTA_ROOM_EXPIRY_DAYS)
    idle = Game.objects.filter(status__in=[Game.Status.OPEN, Game.Status.ACTIVE], updated_at__lt=cutoff)
    return idle.exclude(status=Game.Status.ACTIVE, pace=Game.Pace.CORRESPONDENCE).update(
        status=Game.Status.EXPIRED
    )
