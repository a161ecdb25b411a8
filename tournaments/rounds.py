"""The tournaments' clock: a round closes at the end of its window (its games still in play closed with
the boxes written), or as soon as every entrant has finished its game; the next round opens when it
closes; the last one's close writes the final table; the weekly tournament is made ahead. Registered
with the game clock's sweep (`dicegame.play.sweeper`) from `TournamentsConfig.ready`, so all of it
happens with no page open; a round's game ending (`events.GameFinished`) is heard here too.

Locks: a game's row lock is never taken under a tournament's (closing a round settles its games first,
each in its own transaction), so a player's last move and the round's close cannot deadlock."""

from __future__ import annotations

import datetime as dt
import re

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core import versions
from dicegame import events, play
from dicegame.models import Game
from dicegame.rules import days, dice
from dicegame.strategy import Strategy
from dicegame.strategy.analysis import optimal_line
from tournaments import selectors
from tournaments.models import (
    MAX_ENTRANTS,
    MIN_ENTRANTS,
    Entry,
    Round,
    RoundGame,
    StandingsChange,
    Tournament,
)

KEY = re.compile(r"t(?P<tournament>[0-9]+)-r(?P<round>[0-9]+)")  # a round's dice key (Round.dice_key)
WEEKLY_ROUNDS = 3
WEEKLY_WINDOW = 2 * 86400
PARS_PER_SWEEP = 2  # optimal play's line on a round's dice: a few milliseconds each, off the request path


def on_game_finished(event: events.GameFinished) -> None:
    """A round's game ended (inside its transaction): its total joins the standings. Two statements on
    the player's request, no more: the clock pushes the standings, and closes the round if this was the
    last game it waited for (`close_if_complete`), within a second."""
    game = event.game
    if not game.dice_key:  # not a tournament's game: no query
        return
    key = KEY.fullmatch(game.dice_key)
    if key is None:
        return
    seat = next((p for p in event.players if p.seat == 0), None)
    updated = RoundGame.objects.filter(game_id=game.pk).update(
        total=seat.total if seat is not None else 0, finished_at=game.finished_at or timezone.now()
    )
    if updated:
        StandingsChange.objects.create(tournament_id=int(key["tournament"]))


def on_account_marked(event: events.AccountMarked) -> None:
    """Staff marked an account: the final tables it was placed in are written again without it."""
    for t in Tournament.objects.filter(entries__user_id=event.user_id, finished_at__isnull=False):
        results_store(tournament=t)


# -- the rounds' seeds and windows ------------------------------------------------------------------


def make_rounds(t: Tournament) -> list[Round]:
    """Draw each round's seed (with `secrets`) and commit to it now, before anyone has entered; the
    rounds follow one another, each `window_seconds` long."""
    window = dt.timedelta(seconds=t.window_seconds)
    rounds = []
    for number in range(1, t.rounds + 1):
        seed = dice.new_seed()
        opens = t.starts_at + (number - 1) * window
        rounds.append(
            Round(
                tournament=t,
                number=number,
                seed=seed,
                commitment=dice.commitment(seed),
                opens_at=opens,
                closes_at=opens + window,
            )
        )
    return Round.objects.bulk_create(rounds)


# -- closing rounds ---------------------------------------------------------------------------------------


def sweep(*, now: dt.datetime | None = None) -> None:
    """The clock's work: settle every round whose window has ended, then work out a few pars. Cheap
    when nothing is due (one indexed query each). (The games it closes were counted by play's own
    sweep, which closes a game whose window is over first; the rounds are not games.)"""
    now = now or timezone.now()
    due = Round.objects.filter(settled_at__isnull=True, closes_at__lte=now).values_list("pk", flat=True)
    for pk in list(due):
        round_settle(round_id=pk, now=now)
    for rnd in Round.objects.filter(settled_at__isnull=False, par__isnull=True)[:PARS_PER_SWEEP]:
        round_par(rnd)


def weekly_sweep() -> None:
    """The clock's work: the weekly tournaments made ahead (`weekly_ensure`; no game changes)."""
    weekly_ensure()


def catch_up(*, tournament: Tournament) -> None:
    """Before a tournament's page is read: close its rounds whose window is over, give settled rounds
    their par, and write the final table again if a fair-play decision changed it since."""
    now = timezone.now()
    for rnd in list(Round.objects.filter(tournament=tournament).order_by("number")):
        if rnd.settled_at is None and now >= rnd.closes_at:
            round_settle(round_id=rnd.pk, now=now)
        elif rnd.settled_at is not None and rnd.par is None:
            round_par(rnd)
    tournament.refresh_from_db()
    if tournament.finished_at is not None:
        results_store(tournament=tournament)


def close_if_complete(*, tournament_id: int, now: dt.datetime | None = None) -> bool:
    """Close the round in play if every entrant still in has finished its game (the clock asks, after
    a change to the standings). Returns whether it closed one."""
    now = now or timezone.now()
    rnd = (
        Round.objects.select_related("tournament")
        .filter(tournament_id=tournament_id, settled_at__isnull=True, opens_at__lte=now, closes_at__gt=now)
        .first()
    )
    if rnd is None or rnd.tournament.cancelled_at is not None or not _all_finished(rnd, rnd.tournament, now):
        return False
    return round_settle(round_id=rnd.pk, now=now)


def _all_finished(rnd: Round, t: Tournament, now: dt.datetime) -> bool:
    """Every entrant still in has finished their game of the round: nobody is left to play its dice.
    The first round also needs the tournament full (entry closes with it)."""
    if now < rnd.opens_at or (rnd.number == 1 and t.entrant_count < t.max_entrants):
        return False
    done = RoundGame.objects.filter(entry=OuterRef("pk"), round=rnd, finished_at__isnull=False)
    return not Entry.objects.filter(tournament=t, withdrawn_at__isnull=True).exclude(Exists(done)).exists()


def round_settle(*, round_id: int, now: dt.datetime | None = None) -> bool:
    """Close the round if its window has ended or every entrant has finished its game: its games still
    in play end with the boxes written, its seed may be shown, the next round opens (at once if this one
    closed early), and the last round's close writes the final table. Idempotent, and safe from any
    number of processes (the tournament's row lock). Returns whether it closed the round now."""
    now = now or timezone.now()
    rnd = Round.objects.select_related("tournament").filter(pk=round_id, settled_at__isnull=True).first()
    if rnd is None:
        return False
    window_over = now >= rnd.closes_at
    if not window_over and not _all_finished(rnd, rnd.tournament, now):
        return False
    if window_over:
        in_play = RoundGame.objects.filter(round=rnd, game__status=Game.Status.ACTIVE)
        for game_id in list(in_play.values_list("game_id", flat=True)):
            play.game_settle(game_id=game_id)  # ends it as it stands: its window (shared_until) is over
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=rnd.tournament_id)
        rnd = Round.objects.get(pk=round_id)
        if rnd.settled_at is not None:
            return False
        if RoundGame.objects.filter(round=rnd, finished_at__isnull=True).exists():
            return False  # a game still closing (a move raced the settle): the next sweep
        if not window_over:
            if not _all_finished(rnd, t, now):
                return False
            _close_early(rnd, t, now)
        rnd.settled_at = now
        rnd.save(update_fields=["settled_at", "closes_at", "opens_at"])
        # The round's dice are public now, and its games join their players' records, statistics and
        # the boards (dicegame.records.secret_until): the pages cached without them are computed again.
        played = RoundGame.objects.filter(round=rnd).values_list("entry__user_id", flat=True)
        versions.bump(*{versions.user(user_id) for user_id in played}, versions.SITE)
        if (
            rnd.number == 1
            and Entry.objects.filter(tournament=t, withdrawn_at__isnull=True).count() < MIN_ENTRANTS
        ):
            # Too few to play against: called off, and its later rounds never open.
            t.cancelled_at = now
            t.save(update_fields=["cancelled_at"])
            Round.objects.filter(tournament=t, settled_at__isnull=True).update(settled_at=now)
        elif rnd.number == t.rounds:
            results_store(tournament=t, finished_at=now)
        StandingsChange.objects.create(tournament_id=t.pk)
    return True


def _close_early(rnd: Round, t: Tournament, now: dt.datetime) -> None:
    """Every entrant has played the round before its window ended: it closes now (its seed with it, on
    every game of it), and the rounds after it move earlier, the next one opening at once."""
    rnd.closes_at = now
    Game.objects.filter(tournament_game__round=rnd).update(shared_until=now)
    window = dt.timedelta(seconds=t.window_seconds)
    for later in Round.objects.filter(tournament=t, number__gt=rnd.number):
        later.opens_at = now + (later.number - rnd.number - 1) * window
        later.closes_at = later.opens_at + window
        later.save(update_fields=["opens_at", "closes_at"])


def round_par(rnd: Round) -> int:
    """Optimal play's total on the round's dice (one seat), worked out once and stored."""
    if rnd.par is None:
        par = optimal_line(Strategy.shared(), rnd.seed, rnd.dice_key, seat=0, seat_count=1)["total"]
        Round.objects.filter(pk=rnd.pk, par__isnull=True).update(par=par)
        rnd.par = par
    return rnd.par


def results_store(*, tournament: Tournament, finished_at: dt.datetime | None = None) -> bool:
    """Write the final table (each entry's place and score: none for the unplaced) as the table now
    stands for everyone (fair play's exclusions applied); with `finished_at`, the tournament is over then.
    Returns whether anything changed."""
    data = selectors.load(tournament)
    rows = {row.entry_id: row for row in selectors.table(data)}
    changed = []
    for e in data.entries:
        row = rows.get(e.pk)
        place = row.place if row is not None else None
        score = round(row.percent, 2) if row is not None and place is not None else None
        if (e.place, e.score) != (place, score):
            e.place, e.score = place, score
            changed.append(e)
    Entry.objects.bulk_update(changed, ["place", "score"])
    finishing = finished_at is not None and tournament.finished_at is None
    if finishing:
        tournament.finished_at = finished_at
        tournament.save(update_fields=["finished_at"])
    if tournament.finished_at is not None and (changed or finishing):
        # A final table written (or changed by fair play afterwards) is on its players' pages: every
        # entrant's place, and the field ("2 of 14") of all.
        versions.bump(*(versions.user(e.user_id) for e in data.entries))
    return bool(changed)


# -- the weekly tournament --------------------------------------------------------------------------------


def weekly_start(week: dt.date) -> dt.datetime:
    """A weekly tournament starts on its Monday at midnight, Amsterdam time (as the daily's days run)."""
    return dt.datetime.combine(week, dt.time(), tzinfo=days.DAILY_ZONE)


def weekly_ensure(*, now: dt.datetime | None = None) -> int:
    """Make this week's tournament (while its entry is still open) and next week's, so the next one is
    announced a week ahead: 3 rounds of 2 days from Monday, public, rated, up to 200 entrants. Idempotent
    and safe when two clocks run it at once: the week is unique, the loser's insert is rolled back.
    Returns how many were made."""
    now = now or timezone.now()
    today = days.today(now)
    monday = today - dt.timedelta(days=today.weekday())
    made = 0
    for week in (monday, monday + dt.timedelta(days=7)):
        starts = weekly_start(week)
        if now >= starts + dt.timedelta(seconds=WEEKLY_WINDOW):
            continue  # this week's entry has closed: too late to make it
        if Tournament.objects.filter(weekly_of=week).exists():
            continue
        try:
            with transaction.atomic():
                t = Tournament.objects.create(
                    weekly_of=week,
                    access=Tournament.Access.PUBLIC,
                    rounds=WEEKLY_ROUNDS,
                    window_seconds=WEEKLY_WINDOW,
                    max_entrants=MAX_ENTRANTS,
                    rated=True,
                    starts_at=starts,
                    created_at=now,
                )
                make_rounds(t)
            made += 1
        except IntegrityError:  # another clock made it between our read and our write
            continue
    return made
