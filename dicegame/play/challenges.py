"""Challenges: one person offers another a game, and one tap of the other's starts it (no room, no host's
Start). Sending, accepting, declining, cancelling, the clock's expiry, and the rematch of a game of two.

- Live: the game is made at the accept, the challenger in the first seat.
- By correspondence: the game is made at once, so the challenger may play their first turn before the
  answer; the friend's seat waits in it (`Player.challenged`), no clock running anywhere in the game,
  until they accept (their turn, or the challenger's, then has its time from the accept) or decline (the
  game is cancelled).
- A rematch of a game of two people (and any computer players) is a challenge too: its game is made at
  the accept, the seats moved one on, as a table's rematch is (`rooms.rematch_accept`, for 3-4 people).

Who may challenge whom is `accounts.selectors.may_challenge` (one rule for every offer of a game). A
challenge counts against the challenger's notice limits, unless it is a rematch or the other accepted
one of the challenger's challenges in the last ACCEPTED_LATELY.

Locks, always in this order: a rematch's finished game, the challenge, a game made by it, the people."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import SentNotice
from accounts.selectors import may_challenge
from accounts.services import NoticeLimited, lock_people, notice_quota_take
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import bot_name
from dicegame.models import Game, Player
from dicegame.offers import Challenge
from dicegame.play.kernel import bump, current_turn, lock_for_actor, lock_game, start_turn, turn_deadline
from dicegame.play.limits import (
    check_correspondence_room_for,
    check_correspondence_rooms_for,
    correspondence_games_of,
)
from dicegame.play.rooms import TURN_TIMER_CHOICES, new_friends_game, rematch_accept
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX, MOVE_TIME_CHOICES
from dicegame.strategy import STRENGTHS

LIVE_EXPIRY = timedelta(hours=1)
CORRESPONDENCE_EXPIRY = timedelta(days=7)
MAX_BOTS = 2  # two people and at most two computer players: four seats
# A challenge to someone who accepted one of yours this recently does not count against your notices.
ACCEPTED_LATELY = timedelta(hours=24)
EXPIRE_BATCH = 100


@dataclass(frozen=True)
class Terms:
    """What a challenge offers: the pace (a live game's turn timer, 0 for none; or a correspondence
    game's time a move), rated or casual, and the computer players' strengths."""

    turn_seconds: int = 60
    move_seconds: int = 0
    rated: bool = False
    bots: tuple[str, ...] = ()

    def check(self) -> None:
        """Refuse terms no game can have (400), as the room's form does."""
        if self.move_seconds and self.move_seconds not in MOVE_TIME_CHOICES:
            raise GameActionError(_("A move has an hour, 8 hours, a day or 3 days."), status=400)
        if not self.move_seconds and self.turn_seconds not in TURN_TIMER_CHOICES:
            raise GameActionError(_("The turn timer is off, 30, 60 or 120 seconds."), status=400)
        if not self.move_seconds and self.rated and not self.turn_seconds:
            raise GameActionError(
                _("A rated game needs a clock: choose a turn timer of 30, 60 or 120 seconds."), status=400
            )
        if len(self.bots) > MAX_BOTS:
            raise GameActionError(
                _("A challenge has at most %(n)d computer players.") % {"n": MAX_BOTS}, status=400
            )
        unknown = [s for s in self.bots if s not in STRENGTHS]
        if unknown:
            raise GameActionError(
                _("Unknown strength %(name)s: choose easy, medium or hard.") % {"name": repr(unknown[0])},
                status=400,
            )


def _account(actor: Actor) -> int:
    if actor.user_id is None:
        raise GameActionError(_("Log in to challenge other players."), status=403)
    return actor.user_id


def _refuse_unless_allowed(from_user_id: int, to_user_id: int, name: str) -> None:
    refusal = may_challenge(from_user_id=from_user_id, to_user_id=to_user_id, name=name)
    if refusal is not None:
        raise GameActionError(refusal.message, status=refusal.status)


def _check_correspondence_places(challenger_id: int, other_id: int, other_name: str) -> None:
    """Both must have room for one more correspondence game (the people's rows are locked)."""
    check_correspondence_room_for(challenger_id)
    if correspondence_games_of(other_id) >= CORRESPONDENCE_GAMES_MAX:
        raise GameActionError(
            _("%(name)s already plays %(max)d correspondence games: one of them must end first.")
            % {"name": other_name, "max": CORRESPONDENCE_GAMES_MAX},
            status=409,
        )


def _accepted_lately(from_user_id: int, to_user_id: int, now) -> bool:
    return Challenge.objects.filter(
        from_user_id=from_user_id,
        to_user_id=to_user_id,
        status=Challenge.Status.ACCEPTED,
        answered_at__gte=now - ACCEPTED_LATELY,
    ).exists()


@transaction.atomic
def challenge_send(*, actor: Actor, username: str, terms: Terms, rematch_of: Game | None = None) -> Challenge:
    """Challenge the player called `username` to a game on `terms`. The other hears of it at once (a
    notice on their open pages, a push if they are away) and finds it in their inbox. By
    correspondence the game is made now: the challenger may roll first."""
    user_id = _account(actor)
    if rematch_of is None:
        terms.check()  # (a rematch's are its game's)
    other = get_user_model().objects.filter(username=username, is_active=True).first()
    if other is None:
        raise GameActionError(_("There is no player called %(name)s.") % {"name": username}, status=404)
    name = other.get_username()
    _refuse_unless_allowed(user_id, other.pk, name)
    now = timezone.now()
    if rematch_of is None:
        _expire_between(user_id, other.pk, now)
    lock_people((user_id, other.pk))
    pending = Challenge.objects.filter(status=Challenge.Status.PENDING, rematch_of__isnull=True)
    if rematch_of is None and pending.filter(from_user_id=user_id, to_user_id=other.pk).exists():
        raise GameActionError(
            _("You have challenged %(name)s already: wait for the answer, or cancel it first.")
            % {"name": name}
        )
    if rematch_of is None and pending.filter(from_user_id=other.pk, to_user_id=user_id).exists():
        raise GameActionError(
            _("%(name)s has challenged you already: answer that challenge.") % {"name": name}
        )
    if terms.move_seconds and rematch_of is None:
        _check_correspondence_places(user_id, other.pk, name)
    if rematch_of is None and not _accepted_lately(user_id, other.pk, now):
        try:
            notice_quota_take(
                sender_id=user_id, recipient_id=other.pk, recipient_name=name, kind=SentNotice.Kind.INVITATION
            )
        except NoticeLimited as exc:
            raise GameActionError(exc.message, status=exc.status) from None
    if rematch_of is not None:
        expires_at = rematch_of.finished_at + timedelta(minutes=settings.PENTA_REMATCH_MINUTES)
    else:
        expires_at = now + (CORRESPONDENCE_EXPIRY if terms.move_seconds else LIVE_EXPIRY)
    challenge = Challenge.objects.create(
        from_user_id=user_id,
        to_user=other,
        turn_seconds=0 if terms.move_seconds else terms.turn_seconds,
        move_seconds=terms.move_seconds,
        rated=terms.rated,
        bots=list(terms.bots),
        rematch_of=rematch_of,
        expires_at=expires_at,
    )
    if terms.move_seconds and rematch_of is None:
        challenge.game = _correspondence_game(challenge, actor.name, name, now)
        challenge.save(update_fields=["game"])
    events.publish(events.PersonNotified(other.pk, partial(_sent_notice, challenge, actor.name)))
    events.publish(events.ChallengeSent(challenge))
    events.publish(events.InboxChanged((user_id, other.pk)))
    return challenge


def _expire_between(a: int, b: int, now) -> None:
    """A challenge between the two whose time is up, that the clock has not come by for yet, expires
    now: it holds the pair's one place no longer."""
    stale = Challenge.objects.filter(
        Q(from_user_id=a, to_user_id=b) | Q(from_user_id=b, to_user_id=a),
        status=Challenge.Status.PENDING,
        rematch_of__isnull=True,
        expires_at__lte=now,
    )
    for challenge in stale.select_for_update():
        _close(challenge, Challenge.Status.EXPIRED, None)


def _sent_notice(challenge: Challenge, name: str) -> events.Notice:
    values = {"name": name, "pace": challenge.pace_label}
    if challenge.rematch_of_id:
        text = _("%(name)s offers you a rematch.") % values
    elif challenge.rated:
        text = _("%(name)s challenges you to a rated game: %(pace)s.") % values
    else:
        text = _("%(name)s challenges you to a game: %(pace)s.") % values
    return events.Notice(text, reverse("dicegame:challenge", args=[challenge.pk]), _("Answer"))


def correspondence_started(game: Game, now) -> None:
    """A correspondence game's idle end counts from its start (Game.closes_at)."""
    if game.is_correspondence:
        game.moved_at = now
        game.save(update_fields=["moved_at"])


def _seat_all(game: Game, people: list[tuple[int, str, bool]], bots: list[str]) -> list[Player]:
    """The game's seats in turn order: the people (user id, name, challenged), then the computers."""
    seats = [
        Player.objects.create(game=game, seat=i, user_id=uid, name=name, challenged=challenged)
        for i, (uid, name, challenged) in enumerate(people)
    ]
    first_bot = len(seats)
    for i, strength in enumerate(bots, start=first_bot):
        seats.append(
            Player.objects.create(
                game=game, seat=i, bot_strength=strength, name=bot_name(strength, i, len(bots))
            )
        )
    return seats


def _correspondence_game(challenge: Challenge, from_name: str, to_name: str, now) -> Game:
    """The game of a correspondence challenge, made as it is sent: the challenger's turn first, with no
    clock until the answer (the friend's seat waits, `challenged`)."""
    game = new_friends_game(
        host_id=challenge.from_user_id,
        seats=2 + len(challenge.bots),
        turn_seconds=None,
        move_seconds=challenge.move_seconds,
        status=Game.Status.ACTIVE,
        rated=challenge.rated,
    )
    correspondence_started(game, now)
    people = [(challenge.from_user_id, from_name, False), (challenge.to_user_id, to_name, True)]
    seats = _seat_all(game, people, challenge.bots)
    turn = start_turn(game, seats[0], number=1, round_=1, at=now)
    # Nothing runs out before the friend has said yes: the challenger's first move may wait for it.
    turn.deadline_at = None
    turn.save(update_fields=["deadline_at"])
    bump(game)
    return game


# -- answering -----------------------------------------------------------------------------------------


def _lock_challenge(challenge_id: int, user_id: int, *, sent: bool) -> tuple[Challenge, Game | None]:
    """The challenge under its row lock, and a rematch's finished game under its own first; one the
    person neither received (nor, with `sent`, sent) answers as if it did not exist."""
    found = Challenge.objects.filter(pk=challenge_id).values_list("rematch_of_id", flat=True).first()
    old = lock_game(found) if found else None
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    owner = challenge.from_user_id if challenge is not None and sent else None
    if challenge is None or user_id not in (challenge.to_user_id, owner):
        raise GameNotFound(_("There is no such challenge."))
    return challenge, old


def _check_pending(challenge: Challenge, now) -> None:
    status = challenge.status
    if status == Challenge.Status.ACCEPTED:
        raise GameActionError(_("This challenge was accepted already: the game is on."))
    if status == Challenge.Status.DECLINED:
        raise GameActionError(_("This challenge was declined."))
    if status == Challenge.Status.CANCELLED:
        raise GameActionError(_("This challenge was called off."), status=410)
    if status == Challenge.Status.EXPIRED or challenge.expires_at <= now:
        raise GameActionError(_("This challenge has expired: nobody answered it in time."), status=410)


@transaction.atomic
def challenge_accept(*, challenge_id: int, actor: Actor) -> Game:
    """The challenged person says yes: the game starts (by correspondence, it goes on from the
    challenger's first turn). A second yes is refused (409) and changes nothing."""
    user_id = _account(actor)
    challenge, old = _lock_challenge(challenge_id, user_id, sent=False)
    now = timezone.now()
    _check_pending(challenge, now)
    challenger = challenge.from_user.get_username()
    _refuse_unless_allowed(challenge.from_user_id, user_id, actor.name)
    if old is not None:
        game = _rematch_game(old, challenge, user_id)
    else:
        lock_people((challenge.from_user_id, user_id))
        if challenge.game_id is not None:
            game = _go_on(challenge, user_id, now)
        else:
            game = _live_game(challenge, challenger, actor.name, now)
    challenge.status = Challenge.Status.ACCEPTED
    challenge.answered_at = now
    challenge.game = game
    challenge.save(update_fields=["status", "answered_at", "game"])
    events.publish(
        events.PersonNotified(challenge.from_user_id, partial(_accepted_notice, actor.name, game.pk))
    )
    events.publish(events.InboxChanged((challenge.from_user_id, user_id)))
    return game


def _accepted_notice(name: str, game_id: int) -> events.Notice:
    return events.Notice(
        _("%(name)s accepted your challenge.") % {"name": name},
        reverse("dicegame:game", args=[game_id]),
        _("Play"),
    )


def _live_game(challenge: Challenge, challenger: str, name: str, now) -> Game:
    game = new_friends_game(
        host_id=challenge.from_user_id,
        seats=2 + len(challenge.bots),
        turn_seconds=challenge.turn_seconds or None,
        move_seconds=None,
        status=Game.Status.ACTIVE,
        rated=challenge.rated,
    )
    people = [(challenge.from_user_id, challenger, False), (challenge.to_user_id, name, False)]
    seats = _seat_all(game, people, challenge.bots)
    start_turn(game, seats[0], number=1, round_=1, at=now)
    bump(game)
    return game


def _go_on(challenge: Challenge, user_id: int, now) -> Game:
    """A correspondence challenge accepted: the friend's seat is theirs, and the turn in play gets its
    time from now."""
    game = lock_game(challenge.game_id)
    if not game.is_active:
        raise GameActionError(_("This challenge's game is over."), status=410)
    if correspondence_games_of(user_id) >= CORRESPONDENCE_GAMES_MAX:
        check_correspondence_room_for(user_id)  # refuses, with the message of every 51st
    Player.objects.filter(game=game, user_id=user_id, challenged=True).update(challenged=False)
    game.moved_at = now
    game.save(update_fields=["moved_at"])
    turn = current_turn(game)
    if turn is not None and not turn.player.computer_plays and turn.deadline_at is None:
        turn.player.challenged = False
        turn.deadline_at = turn_deadline(game, turn.player, now)
        turn.save(update_fields=["deadline_at"])
        if turn.player.user_id != user_id:
            # The challenger's first move is still to play: they are told it is theirs now (the
            # friend, who has just said yes, is on their way to the board).
            events.publish(events.TurnStarted(game, turn))
    bump(game)
    return game


def _rematch_game(old: Game, challenge: Challenge, user_id: int) -> Game:
    """The rematch of a game of two people: the same seats (the computers too), moved one on, and the
    same pace and rating, as a table's rematch (`rooms.rematch_accept`) makes it."""
    existing = Game.objects.filter(rematch_of=old).first()
    if existing is not None:
        return existing
    players = list(old.players.order_by("seat"))
    people = [(p.user_id, p.name) for p in players if not p.is_bot]
    lock_people(uid for uid, _name in people)
    if old.is_correspondence:
        check_correspondence_rooms_for(people)
    game = new_friends_game(
        host_id=old.host_id,
        seats=len(players),
        turn_seconds=old.turn_seconds,
        move_seconds=old.move_seconds,
        status=Game.Status.ACTIVE,
        rematch_of=old,
        rated=old.rated,
    )
    correspondence_started(game, timezone.now())
    rotated = players[1:] + players[:1]
    seats = [
        Player.objects.create(game=game, seat=i, user_id=p.user_id, bot_strength=p.bot_strength, name=p.name)
        for i, p in enumerate(rotated)
    ]
    start_turn(game, seats[0], number=1, round_=1, at=timezone.now())
    bump(game)
    Player.objects.filter(game=old, user_id=user_id).update(rematch_accepted=True)
    bump(old)  # the finished pages follow the table into the rematch
    return game


@transaction.atomic
def challenge_decline(*, challenge_id: int, actor: Actor) -> Challenge:
    """The challenged person says no: one tap, and the challenger is told."""
    user_id = _account(actor)
    challenge, old = _lock_challenge(challenge_id, user_id, sent=False)
    _check_pending(challenge, timezone.now())
    _close(challenge, Challenge.Status.DECLINED, old)
    events.publish(events.PersonNotified(challenge.from_user_id, partial(_declined_notice, actor.name)))
    return challenge


def _declined_notice(name: str) -> events.Notice:
    return events.Notice(_("%(name)s declined your challenge.") % {"name": name})


@transaction.atomic
def challenge_cancel(*, challenge_id: int, actor: Actor) -> Challenge:
    """The challenger calls it off before the answer: one tap (their inbox and the other's forget it)."""
    user_id = _account(actor)
    challenge, old = _lock_challenge(challenge_id, user_id, sent=True)
    if challenge.from_user_id != user_id:
        raise GameActionError(_("Only the challenger can call a challenge off."), status=403)
    _check_pending(challenge, timezone.now())
    _close(challenge, Challenge.Status.CANCELLED, old)
    return challenge


def _close(challenge: Challenge, status: str, old: Game | None) -> None:
    """A challenge that will not be played: its game (by correspondence) is cancelled, a rematch's offer
    is withdrawn on the finished game's page, and both inboxes forget it."""
    challenge.status = status
    challenge.answered_at = timezone.now()
    challenge.save(update_fields=["status", "answered_at"])
    if challenge.game_id is not None:
        game = lock_game(challenge.game_id)
        if game.is_active:
            game.status = Game.Status.CANCELLED
            bump(game)
    if old is not None:
        Player.objects.filter(game=old, user_id=challenge.from_user_id).update(rematch_accepted=False)
        bump(old)
    events.publish(events.InboxChanged((challenge.from_user_id, challenge.to_user_id)))


def challenges_expire_due(now=None) -> int:
    """The clock's part: challenges whose time is up expire (a correspondence one's game is cancelled)
    and the challenger is told, whether or not any browser is open. Any number of clocks may run it: each
    challenge is taken under its row lock, once. Returns how many games changed."""
    now = now or timezone.now()
    due = Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lte=now)
    changed = 0
    for challenge_id, rematch_of_id in due.values_list("pk", "rematch_of_id")[:EXPIRE_BATCH]:
        with transaction.atomic():
            old = lock_game(rematch_of_id) if rematch_of_id else None
            challenge = (
                Challenge.objects.select_for_update(skip_locked=True)
                .filter(pk=challenge_id, status=Challenge.Status.PENDING, expires_at__lte=now)
                .first()
            )
            if challenge is None:
                continue  # answered meanwhile, or another clock has it
            _close(challenge, Challenge.Status.EXPIRED, old)
            changed += 1 if challenge.game_id else 0
            name = challenge.to_user.get_username()
            events.publish(events.PersonNotified(challenge.from_user_id, partial(_expired_notice, name)))
    return changed


def _expired_notice(name: str) -> events.Notice:
    return events.Notice(_("%(name)s did not answer your challenge in time.") % {"name": name})


# -- the rematch of a game of two ----------------------------------------------------------------------


@transaction.atomic
def rematch_yes(*, game_id: int, actor: Actor) -> Game | None:
    """Say yes to a rematch of a finished game against people. Of two people (and any computers): the
    first yes challenges the other to the rematch, and the other's yes (here, or Accept in the inbox)
    starts it. Of three or four people: the table's rematch (`rooms.rematch_accept`). Returns the new
    game once it exists."""
    game = lock_for_actor(game_id, actor)
    humans = [p for p in game.players.all() if not p.is_bot]
    if game.kind != Game.Kind.FRIENDS or not game.is_finished or len(humans) != 2:
        return rematch_accept(game_id=game_id, actor=actor)
    existing = Game.objects.filter(rematch_of=game).first()
    if existing is not None:
        return existing
    if timezone.now() > game.finished_at + timedelta(minutes=settings.PENTA_REMATCH_MINUTES):
        raise GameActionError(_("The rematch offer has lapsed (30 minutes after the end)."))
    if any(p.user_id is None for p in humans):
        raise GameActionError(_("A rematch is for players with an account: sign up to play again."), 403)
    me = next(p for p in humans if actor.owns(p))
    other = next(p for p in humans if p.pk != me.pk)
    offers = Challenge.objects.filter(rematch_of=game, status=Challenge.Status.PENDING)
    theirs = offers.filter(from_user_id=other.user_id).first()
    if theirs is not None:
        return challenge_accept(challenge_id=theirs.pk, actor=actor)
    if other.rematch_accepted:
        # The other said yes with no challenge (a table's yes, or one given before challenges): the
        # table's rematch starts it at this yes.
        return rematch_accept(game_id=game_id, actor=actor)
    if not offers.filter(from_user_id=me.user_id).exists():
        bots = tuple(p.bot_strength for p in game.players.order_by("seat") if p.is_bot)
        terms = Terms(
            turn_seconds=game.turn_seconds or 0,
            move_seconds=game.move_seconds or 0,
            rated=game.rated,
            bots=bots,
        )
        challenge_send(actor=actor, username=other.user.get_username(), terms=terms, rematch_of=game)
        Player.objects.filter(pk=me.pk).update(rematch_accepted=True)
        bump(game)
    return None
