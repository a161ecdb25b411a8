"""A game with someone new: seeks, paired by the server.

- Live ("Play someone now"): a seek for a rated or casual 2-player game with a turn timer. Its page asks
  every few seconds (`seek_poll`), and each ask tries to pair it with another live seek of the same kind
  whose page is still asking, at a similar rating: within RANGE_START points at first, the range widening
  by RANGE_STEP every RANGE_EVERY seconds of waiting (each seek's own range must take the other in). A
  person is not paired again with someone they were paired with in the last REPEAT_AFTER. After
  COMPUTER_AFTER alone the page offers a game against the computer. Guests may seek casual games only.
- By correspondence: an open game in a list that anyone may accept (`seek_accept`), filtered by pace and
  rating; it stays COR_SEEK_EXPIRY.

Race-free on PostgreSQL: a pairing locks the asking seek, then takes its partner with SKIP LOCKED (a seek
another pairing holds is passed over, never waited for, so two pairings cannot deadlock and no seek is
paired twice); an accept locks the seek, so of twenty accepts at once one makes the game and the others
are refused. One open seek per person is a unique constraint. Who may be paired with whom is
`accounts.selectors.may_challenge` (asked both ways, as a pairing)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import F, Func, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.selectors import may_challenge
from accounts.services import lock_people
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Player
from dicegame.offers import Seek
from dicegame.play.challenges import correspondence_started
from dicegame.play.kernel import bump, start_turn
from dicegame.play.limits import check_correspondence_room_for, correspondence_games_of
from dicegame.play.rooms import new_friends_game
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX, MOVE_TIME_CHOICES

LIVE_TIMERS = (30, 60, 120)
NEWCOMER_RATING = 1500.0  # Glicko-2's start: the rating of someone who has played no rated game
RANGE_START = 100.0
RANGE_STEP = 50.0
RANGE_EVERY = 5  # seconds
ALIVE_SECONDS = 15  # a live seek whose page has not asked for this long is not paired
LIVE_SEEK_EXPIRY = timedelta(minutes=30)
COR_SEEK_EXPIRY = timedelta(days=7)
COMPUTER_AFTER = 60  # seconds alone before the computer is offered
REPEAT_AFTER = timedelta(hours=1)
CANDIDATES = 5  # partners looked at in one pairing


def rating_range(waited_seconds: float) -> float:
    """How far from a seeker's rating a partner may be after waiting this long."""
    return RANGE_START + RANGE_STEP * (max(0.0, waited_seconds) // RANGE_EVERY)


@dataclass(frozen=True)
class SeekState:
    """A live seek as its page shows it: paired (its game), or waiting with its range so far."""

    seek: Seek
    waited: int  # seconds
    range: int
    offer_computer: bool

    @property
    def game_id(self) -> int | None:
        return self.seek.game_id if self.seek.status == Seek.Status.PAIRED else None


def person_of(actor: Actor) -> str:
    if actor.user_id is not None:
        return f"u{actor.user_id}"
    if actor.guest_key:
        return f"g{actor.guest_key}"
    raise GameActionError(_("Start from the home page."), status=400)


def _state(seek: Seek, now) -> SeekState:
    waited = max(0, int((now - seek.created_at).total_seconds()))
    return SeekState(seek, waited, int(rating_range(waited)), seek.is_open and waited >= COMPUTER_AFTER)


# -- live -------------------------------------------------------------------------------------------------


def seek_live(*, actor: Actor, rated: bool, turn_seconds: int, rating: float | None) -> SeekState:
    """Look for someone to play now. A person's open seek of another kind is replaced; the same kind goes
    on. Returns the seek as it stands after a first try at pairing it."""
    person = person_of(actor)
    if rated and actor.user_id is None:
        raise GameActionError(_("Log in to play rated games: a guest plays casual games."), status=403)
    if turn_seconds not in LIVE_TIMERS:
        raise GameActionError(_("The turn timer is 30, 60 or 120 seconds."), status=400)
    now = timezone.now()
    with transaction.atomic():
        mine = Seek.objects.select_for_update().filter(person=person, status=Seek.Status.OPEN).first()
        same = (
            mine is not None
            and not mine.move_seconds
            and (mine.rated, mine.turn_seconds)
            == (
                rated,
                turn_seconds,
            )
        )
        if mine is not None and not same:
            if mine.move_seconds:
                raise GameActionError(
                    _("You have an open correspondence game in the list: cancel it first."), status=409
                )
            mine.status = Seek.Status.CANCELLED
            mine.save(update_fields=["status"])
        if not same:
            try:
                with transaction.atomic():
                    mine = Seek.objects.create(
                        user_id=actor.user_id,
                        guest_key="" if actor.user_id is not None else actor.guest_key,
                        name=actor.name or _("Guest"),
                        person=person,
                        turn_seconds=turn_seconds,
                        rated=rated,
                        rating=NEWCOMER_RATING if rating is None else float(rating),
                        alive_until=now + timedelta(seconds=ALIVE_SECONDS),
                        expires_at=now + LIVE_SEEK_EXPIRY,
                    )
            except IntegrityError:
                # The same person pressed twice at once: the other press made it.
                raise GameActionError(_("You are looking for a game already."), status=409) from None
    # Committed first, so that seekers who came at the same moment can see it.
    return _state(_pair(mine.pk), timezone.now())


def seek_poll(*, seek_id: int, actor: Actor) -> SeekState:
    """The seek's page asks: still there (the seek stays alive), and paired if a partner has come."""
    seek = Seek.objects.filter(pk=seek_id, person=person_of(actor), move_seconds=0).first()
    if seek is None:
        raise GameNotFound(_("There is no such search."))
    if seek.is_open:
        seek = _pair(seek.pk)
    return _state(seek, timezone.now())


def _pair(seek_id: int) -> Seek:
    """Try once to pair the live seek: its own row locked, partners taken with SKIP LOCKED."""
    with transaction.atomic():
        me = Seek.objects.select_for_update().get(pk=seek_id)
        if not me.is_open:
            return me
        now = timezone.now()
        me.alive_until = now + timedelta(seconds=ALIVE_SECONDS)
        me.save(update_fields=["alive_until"])
        mine = rating_range((now - me.created_at).total_seconds())
        recent = Seek.objects.filter(
            person=me.person, status=Seek.Status.PAIRED, paired_at__gte=now - REPEAT_AFTER
        ).values("partner")
        candidates = (
            Seek.objects.select_for_update(skip_locked=True)
            .filter(
                status=Seek.Status.OPEN,
                move_seconds=0,
                rated=me.rated,
                turn_seconds=me.turn_seconds,
                alive_until__gt=now,
                rating__gte=me.rating - mine,
                rating__lte=me.rating + mine,
            )
            .exclude(Q(person=me.person) | Q(person__in=recent))
            .order_by(Func(F("rating") - me.rating, function="ABS"), "created_at", "pk")[:CANDIDATES]
        )
        for other in candidates:
            if abs(other.rating - me.rating) > rating_range((now - other.created_at).total_seconds()):
                continue
            if not _may_pair(me, other):
                continue
            _pair_game(me, other, now)
            return me
    return me


def _may_pair(a: Seek, b: Seek) -> bool:
    if a.user_id is None or b.user_id is None:
        return True
    return (
        may_challenge(from_user_id=a.user_id, to_user_id=b.user_id, pairing=True) is None
        and may_challenge(from_user_id=b.user_id, to_user_id=a.user_id, pairing=True) is None
    )


def _pair_game(a: Seek, b: Seek, now) -> Game:
    """The game of two paired seeks: the one who waited longer moves first."""
    first, second = sorted((a, b), key=lambda s: (s.created_at, s.pk))
    game = new_friends_game(
        host_id=first.user_id,
        seats=2,
        turn_seconds=first.turn_seconds or None,
        move_seconds=first.move_seconds or None,
        status=Game.Status.ACTIVE,
        rated=first.rated,
    )
    seats = [
        Player.objects.create(
            game=game, seat=i, user_id=s.user_id, guest_key="" if s.user_id else s.guest_key, name=s.name
        )
        for i, s in enumerate((first, second))
    ]
    for seek, partner in ((a, b), (b, a)):
        seek.status = Seek.Status.PAIRED
        seek.game = game
        seek.partner = partner.person
        seek.paired_at = now
        seek.save(update_fields=["status", "game", "partner", "paired_at"])
    start_turn(game, seats[0], number=1, round_=1, at=now)
    bump(game)
    people = tuple(s.user_id for s in (a, b) if s.user_id is not None)
    if people:
        events.publish(events.InboxChanged(people))
    return game


# -- by correspondence: the open list ---------------------------------------------------------------------


@transaction.atomic
def seek_post(*, actor: Actor, rated: bool, move_seconds: int, rating: float | None) -> Seek:
    """Put an open correspondence game in the list, for anyone to accept."""
    if actor.user_id is None:
        raise GameActionError(_("Log in to play by correspondence."), status=403)
    if move_seconds not in MOVE_TIME_CHOICES:
        raise GameActionError(_("A move has an hour, 8 hours, a day or 3 days."), status=400)
    lock_people((actor.user_id,))
    check_correspondence_room_for(actor.user_id)
    person = person_of(actor)
    if Seek.objects.filter(person=person, status=Seek.Status.OPEN).exists():
        raise GameActionError(
            _("You have an open game in the list already: cancel it first to post another."), status=409
        )
    now = timezone.now()
    seek = Seek.objects.create(
        user_id=actor.user_id,
        name=actor.name,
        person=person,
        move_seconds=move_seconds,
        rated=rated,
        rating=NEWCOMER_RATING if rating is None else float(rating),
        expires_at=now + COR_SEEK_EXPIRY,
    )
    events.publish(events.InboxChanged((actor.user_id,)))
    return seek


@transaction.atomic
def seek_accept(*, seek_id: int, actor: Actor) -> Game:
    """Take an open correspondence game: it starts at once, the one who took it to move first. Of two
    accepts at once, one makes the game and the other is refused (409)."""
    if actor.user_id is None:
        raise GameActionError(_("Log in to play by correspondence."), status=403)
    seek = Seek.objects.select_for_update().filter(pk=seek_id, move_seconds__gt=0).first()
    if seek is None:
        raise GameNotFound(_("There is no such open game."))
    now = timezone.now()
    if seek.person == person_of(actor):
        raise GameActionError(_("This is your own open game: someone else must take it."), status=400)
    if seek.status == Seek.Status.PAIRED:
        raise GameActionError(_("Someone else took this game first."))
    if not seek.is_open or seek.expires_at <= now:
        raise GameActionError(_("This open game is no longer offered."), status=410)
    for a, b in ((seek.user_id, actor.user_id), (actor.user_id, seek.user_id)):
        refusal = may_challenge(from_user_id=a, to_user_id=b, name=seek.name, pairing=True)
        if refusal is not None:
            raise GameActionError(refusal.message, status=refusal.status)
    lock_people((seek.user_id, actor.user_id))
    check_correspondence_room_for(actor.user_id)
    if correspondence_games_of(seek.user_id) >= CORRESPONDENCE_GAMES_MAX:
        raise GameActionError(
            _("%(name)s already plays %(max)d correspondence games: one of them must end first.")
            % {"name": seek.name, "max": CORRESPONDENCE_GAMES_MAX},
            status=409,
        )
    game = new_friends_game(
        host_id=seek.user_id,
        seats=2,
        turn_seconds=None,
        move_seconds=seek.move_seconds,
        status=Game.Status.ACTIVE,
        rated=seek.rated,
    )
    correspondence_started(game, now)
    first = Player.objects.create(game=game, seat=0, user_id=actor.user_id, name=actor.name)
    Player.objects.create(game=game, seat=1, user_id=seek.user_id, name=seek.name)
    seek.status = Seek.Status.PAIRED
    seek.game = game
    seek.partner = person_of(actor)
    seek.paired_at = now
    seek.save(update_fields=["status", "game", "partner", "paired_at"])
    start_turn(game, first, number=1, round_=1, at=now)
    bump(game)
    events.publish(events.PersonNotified(seek.user_id, partial(_taken_notice, actor.name, game.pk)))
    events.publish(events.InboxChanged((seek.user_id, actor.user_id)))
    return game


def _taken_notice(name: str, game_id: int) -> events.Notice:
    return events.Notice(
        _("%(name)s took your open game.") % {"name": name},
        reverse("dicegame:game", args=[game_id]),
        _("Open the game"),
    )


@transaction.atomic
def seek_cancel(*, seek_id: int, actor: Actor) -> Seek:
    """Stop looking (live) or take an open game out of the list (correspondence)."""
    seek = Seek.objects.select_for_update().filter(pk=seek_id, person=person_of(actor)).first()
    if seek is None:
        raise GameNotFound(_("There is no such search."))
    if seek.status == Seek.Status.PAIRED:
        raise GameActionError(_("Too late: you have been paired, the game is on."))
    if seek.is_open:
        seek.status = Seek.Status.CANCELLED
        seek.save(update_fields=["status"])
        if seek.user_id is not None:
            events.publish(events.InboxChanged((seek.user_id,)))
    return seek


def seeks_expire_due(now=None) -> int:
    """The clock's part: open games past their week, and live searches whose page is gone, lapse. (An
    update of open rows only: one that a pairing holds is waited for, and then is paired, not open.)"""
    now = now or timezone.now()
    gone = Q(expires_at__lte=now) | Q(move_seconds=0, alive_until__lt=now - timedelta(seconds=ALIVE_SECONDS))
    Seek.objects.filter(gone, status=Seek.Status.OPEN).update(status=Seek.Status.EXPIRED)
    return 0  # no game changed
