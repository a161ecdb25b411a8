"""Writes of the daily challenge: publishing the commitments of the days ahead, starting (or resuming)
the day's attempt, closing the attempts of days that have ended, the day's par, and moving a guest's
attempts into an account."""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import versions
from daily.models import DailyAttempt, DailySeed
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.play.clock import game_settle
from dicegame.play.games import game_create
from dicegame.rules import days, dice
from dicegame.rules.days import DAILY_ZONE, day_end  # noqa: F401  (the daily calendar, part of this API)
from dicegame.strategy import Strategy
from dicegame.strategy.analysis import optimal_line

DAYS_AHEAD = 7  # the commitments of today and the next 7 days are always published


def today(now: dt.datetime | None = None) -> dt.date:
    """The challenge's date now (or at `now`) by the server's clock: the Europe/Amsterdam date."""
    return days.today(now or timezone.now())


def publish_commitments(now: dt.datetime | None = None) -> int:
    """Draw and commit to the seeds of today and the next DAYS_AHEAD days that have none yet (each with
    `secrets`, via dice.new_seed). Idempotent and safe when two processes publish at once: a day's seed,
    once stored, is never redrawn. Returns how many were created."""
    first = today(now)
    wanted = [first + dt.timedelta(days=d) for d in range(DAYS_AHEAD + 1)]
    have = set(DailySeed.objects.filter(date__range=(wanted[0], wanted[-1])).values_list("date", flat=True))
    created = 0
    for date in wanted:
        if date in have:
            continue
        seed = dice.new_seed()
        try:
            with transaction.atomic():
                DailySeed.objects.create(date=date, seed=seed, commitment=dice.commitment(seed))
            created += 1
        except IntegrityError:  # another process published this day between our read and our write
            continue
    return created


# -- the day's attempt -------------------------------------------------------------------------------


def attempt_of(actor: Actor, date: dt.date, attempts=None) -> DailyAttempt | None:
    """The actor's attempt of the day: an account's ranked one, or the guest session's one (from
    `attempts`, a queryset of attempts, when the caller wants more read with it)."""
    attempts = (
        (attempts if attempts is not None else DailyAttempt.objects).select_related("game").filter(date=date)
    )
    if actor.user_id is not None:
        return attempts.filter(user_id=actor.user_id).order_by("-ranked", "started_at").first()
    if actor.guest_key:
        return attempts.filter(user__isnull=True, guest_key=actor.guest_key).first()
    return None


def attempt_start(*, actor: Actor, now: dt.datetime | None = None) -> tuple[DailyAttempt, bool]:
    """Start today's attempt, or resume the one already started; returns (attempt, created).

    An account's attempt is ranked, a guest's is not. A finished attempt is not played again (409).
    Two starts at once make one attempt: the second meets the unique constraint and resumes the first's."""
    if actor.user_id is None and not actor.guest_key:
        raise GameActionError(_("Start a game from the home page."), status=400)
    publish_commitments(now)
    date = today(now)
    existing = attempt_of(actor, date)
    if existing is None:
        row = DailySeed.objects.get(date=date)
        try:
            with transaction.atomic():
                game = game_create(actor=actor, kind=Game.Kind.SOLO, seed=row.seed, daily_date=date)
                attempt = DailyAttempt.objects.create(
                    date=date,
                    game=game,
                    user_id=actor.user_id,
                    guest_key="" if actor.user_id is not None else actor.guest_key,
                    ranked=actor.user_id is not None,
                    started_at=now or timezone.now(),
                )
                if attempt.ranked:  # how many have played; the person's streak
                    versions.bump(versions.day(date), versions.user(actor.user_id))
            return attempt, True
        except IntegrityError:  # a concurrent start of the same person made it first: resume that one
            existing = attempt_of(actor, date)
            if existing is None:
                raise
    if existing.game.is_finished:
        raise GameActionError(_("You have played today's challenge: your results are on the daily page."))
    return existing, False


def close_ended(*, date: dt.date | None = None, now: dt.datetime | None = None) -> int:
    """Close the daily games still in play whose day has ended (all such days, or one): their written
    boxes count, the rest stay empty (`Game.closes_at`, applied by the game's settlement).
    Cheap when there are none (one indexed query): the clock runs it, and so does reading a day's
    results. Returns how many were closed."""
    if date is not None:
        if date >= today(now):
            return 0
        games = Game.objects.filter(status=Game.Status.ACTIVE, daily_date=date)
        ids = list(games.values_list("pk", flat=True))
    else:
        games = Game.objects.filter(status=Game.Status.ACTIVE, daily_date__lt=today(now))
        ids = list(games.values_list("pk", flat=True))
    return sum(game_settle(game_id=pk) for pk in ids)


def day_par(date: dt.date) -> int | None:
    """The day's par: optimal play's total on the day's dice (one seat), computed once and stored."""
    row = DailySeed.objects.filter(date=date).first()
    if row is None:
        return None
    if row.par is None:
        par = optimal_line(Strategy.shared(), row.seed, date.isoformat(), seat=0, seat_count=1)["total"]
        with transaction.atomic():
            if DailySeed.objects.filter(pk=row.pk, par__isnull=True).update(par=par):
                versions.bump(versions.day(date), versions.DAILY)  # the day's page, the all-time table
        row.par = par
    return row.par


def on_guest_games_claimed(event: events.GuestGamesClaimed) -> None:
    claim_guest_attempts(user=event.user, guest_key=event.guest_key)


def claim_guest_attempts(*, user, guest_key: str) -> int:
    """A guest's daily attempts move to the account that signs up or logs in (their games move with
    the other guest games), always unranked: a guest sees every die of the day, so a guest's run must
    never become an account's ranked result (a second guest replayed the first one's dice for 289
    against a par of 247, then logged in and stood first). The account's day is used by it: resuming
    it plays practice. Being unranked, two logins claiming at once meet no ranked uniqueness (they were
    a 500). Returns how many moved."""
    if not guest_key:
        return 0
    with transaction.atomic():
        return DailyAttempt.objects.filter(user__isnull=True, guest_key=guest_key).update(
            user=user, guest_key="", ranked=False
        )
