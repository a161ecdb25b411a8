"""Writes of the tournaments: making one (its rounds' seeds drawn and committed at once), entering,
leaving and withdrawing, starting (or resuming) a round's game, and what follows a game's end.

The rules, in one place (the tournament page says them in words):
- Entry: logged in only, once per person (a constraint), until the first round closes, up to the
  tournament's limit (a conditional update and a check constraint: concurrent entries never pass it).
  A rated tournament asks an account with some history of its entrants and its maker
  (`eligibility.rated_entry_refusal`: RATED_ENTRY_MIN_DAYS old, RATED_ENTRY_MIN_GAMES finished games that
  count for records), so that accounts made for the occasion neither fill it nor feed anyone.
- A round's game: one per entrant and round (a constraint; starting again resumes it), solo, no hints,
  on the round's seed (`Game.dice_key`, `Game.shared_until`: the same dice for every entrant).
- Not finished when the round closes: the game is closed with the boxes written, and that total counts.
  Not started: the player scores nothing in the round and every entrant who played it beats them. An
  entrant who starts no game at all is no player: in no round's field, not placed, in nobody's "of N"
  (`selectors.players`).
- Leaving before playing: the entry goes (the place is free again). Withdrawing after playing: a game
  in play ends as it stands, the games played keep counting for the others' matchpoints, no more rounds
  are played, and the entrant keeps a place, every round not played scored as not started.
- Fair play: an entrant off the boards (under review, or marked) is in nobody's field and not placed.
- Rated: the places go on the players' pages only if at least RATED_MIN_PLAYERS (3) played
  (`lists.player_results`).

The clock's side (rounds closing, the final table, the weekly tournament) is `tournaments.rounds`."""

from __future__ import annotations

import contextlib
import datetime as dt
import secrets
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.selectors import friend_ids
from dicegame import events, play
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.rules import names
from tournaments import eligibility, selectors
from tournaments import rounds as round_clock
from tournaments.models import (
    MAX_ENTRANTS,
    MAX_ROUNDS,
    MAX_WINDOW,
    MIN_ENTRANTS,
    MIN_ROUNDS,
    MIN_WINDOW,
    Entry,
    Round,
    RoundGame,
    StandingsChange,
    Tournament,
)

MAX_NAME = 60
MAX_START_DELAY = 14 * 86400  # a tournament starts within two weeks of being made


class TournamentError(Exception):
    """A refused action: `status` is the HTTP status the views answer; nothing was changed."""

    def __init__(self, message: str, *, status: int = 409):
        super().__init__(message)
        self.message = message
        self.status = status


def _changed(tournament_id: int) -> None:
    """The standings changed: the clock pushes them to the open pages (`tournaments.pushes`)."""
    StandingsChange.objects.create(tournament_id=tournament_id)


# -- making one -------------------------------------------------------------------------------------------


def _check_settings(*, name: str, rounds: int, window_seconds: int, max_entrants: int, access: str) -> str:
    # Everyone who may see the tournament reads its name: bidirectional controls (which reorder the
    # text after them) and invisible characters are dropped, and what is left must be readable.
    name = names.clean_name(name or "")
    if not names.is_visible(name):
        raise TournamentError(
            _("Give the tournament a name: at least one letter, digit or sign that can be seen."), status=400
        )
    if names.has_control(name):
        raise TournamentError(_("A tournament's name cannot hold control characters."), status=400)
    if len(name) > MAX_NAME:
        raise TournamentError(
            _("A tournament's name has at most %(max)d characters.") % {"max": MAX_NAME}, status=400
        )
    if not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise TournamentError(
            _("A tournament has %(min)d to %(max)d rounds.") % {"min": MIN_ROUNDS, "max": MAX_ROUNDS},
            status=400,
        )
    if not MIN_WINDOW <= window_seconds <= MAX_WINDOW:
        raise TournamentError(_("A round lasts an hour to three days."), status=400)
    if not MIN_ENTRANTS <= max_entrants <= MAX_ENTRANTS:
        raise TournamentError(
            _("A tournament takes %(min)d to %(max)d entrants.") % {"min": MIN_ENTRANTS, "max": MAX_ENTRANTS},
            status=400,
        )
    if access not in Tournament.Access.values:
        raise TournamentError(_("Choose who may enter: everyone, or by invitation."), status=400)
    return name


@transaction.atomic
def tournament_create(
    *,
    user,
    name: str,
    rounds: int,
    window_seconds: int,
    max_entrants: int,
    access: str,
    rated: bool,
    starts_in: int = 0,
) -> Tournament:
    """A friends' tournament, made by a logged-in person, who is its first entrant."""
    if user is None or not user.is_authenticated:
        raise TournamentError(_("Log in to make a tournament."), status=403)
    name = _check_settings(
        name=name, rounds=rounds, window_seconds=window_seconds, max_entrants=max_entrants, access=access
    )
    if not 0 <= starts_in <= MAX_START_DELAY:
        raise TournamentError(_("A tournament starts within two weeks."), status=400)
    if rated:
        # The maker is the first entrant: a rated tournament asks the same history of them.
        refusal = eligibility.rated_entry_refusal(user)
        if refusal:
            raise TournamentError(refusal, status=403)
    now = timezone.now()
    t = Tournament.objects.create(
        name=name,
        creator=user,
        access=access,
        invite_token=secrets.token_urlsafe(32),
        rounds=rounds,
        window_seconds=window_seconds,
        max_entrants=max_entrants,
        rated=rated,
        starts_at=now + dt.timedelta(seconds=starts_in),
        created_at=now,
    )
    round_clock.make_rounds(t)
    Entry.objects.create(tournament=t, user=user, joined_at=now)
    Tournament.objects.filter(pk=t.pk).update(entrant_count=1)
    t.entrant_count = 1
    if access == Tournament.Access.INVITATION:
        # The maker's friends are invited: a live notice on any page they have open (the tournament is
        # listed for them anyway, under "Open for entry").
        for friend_id in friend_ids(user_id=user.pk):
            events.publish(events.PersonNotified(friend_id, partial(_invitation, t, user)))
    return t


def _invitation(t: Tournament, user) -> events.Notice:
    text = _("%(name)s invites you to the tournament “%(title)s”.") % {
        "name": user.get_username(),
        "title": t.title,
    }
    return events.Notice(text, reverse("tournaments:detail", args=[t.pk]), _("Open"))


# -- entering, leaving, withdrawing ------------------------------------------------------------------------


def entry_join(*, tournament_id: int, user, token: str = "") -> Entry:
    """Enter the tournament. Refused (with why): a guest, a person who may not see it, entry closed,
    entered already, full. Concurrent entries: the unique entry and the conditional count (held by a
    check constraint too) let exactly as many in as there are places; the others are told it is full."""
    if user is None or not user.is_authenticated:
        raise TournamentError(_("Log in to enter a tournament: guests play unranked games only."), status=403)
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None or not selectors.may_enter(t, user_id=user.pk, token=token):
        raise TournamentError(_("There is no such tournament."), status=404)
    rounds = list(Round.objects.filter(tournament=t).order_by("number"))
    if not selectors.entry_open(t, rounds):
        raise TournamentError(_("Entry to this tournament has closed: it closes when the first round does."))
    if t.rated:
        refusal = eligibility.rated_entry_refusal(user)
        if refusal:
            raise TournamentError(refusal, status=403)
    try:
        with transaction.atomic():
            entry = Entry.objects.create(tournament=t, user=user)
            taken = Tournament.objects.filter(pk=t.pk, entrant_count__lt=F("max_entrants")).update(
                entrant_count=F("entrant_count") + 1
            )
            if not taken:
                raise TournamentError(
                    _("This tournament is full (%(max)d entrants).") % {"max": t.max_entrants}
                )
            _changed(t.pk)
    except IntegrityError:
        # The same person entering twice at once (the unique entry), or the last place taken between
        # the count and the update (the check constraint): nothing was written.
        if Entry.objects.filter(tournament=t, user=user).exists():
            raise TournamentError(_("You have entered this tournament already.")) from None
        raise TournamentError(
            _("This tournament is full (%(max)d entrants).") % {"max": t.max_entrants}
        ) from None
    return entry


def entry_withdraw(*, tournament_id: int, user) -> str:
    """Leave the tournament: before any game of it, the entry goes ("left": the place is free again);
    after, the entrant withdraws ("withdrew": a game in play ends as it stands, the games played keep
    counting for the others, no more rounds; a place in the final table all the same, the rounds not
    played scored as not started, so withdrawing never hides a bad result). Returns which."""
    if user is None or not user.is_authenticated:
        raise TournamentError(_("Log in first."), status=403)
    with transaction.atomic():
        entry = (
            Entry.objects.select_for_update()
            .select_related("tournament")
            .filter(tournament_id=tournament_id, user=user)
            .first()
        )
        if entry is None:
            raise TournamentError(_("You have not entered this tournament."), status=404)
        t = entry.tournament
        if t.finished_at is not None or t.cancelled_at is not None:
            raise TournamentError(_("This tournament is over."))
        if entry.withdrawn_at is not None:
            raise TournamentError(_("You have withdrawn from this tournament already."))
        in_play = list(
            RoundGame.objects.filter(entry=entry, game__status=Game.Status.ACTIVE).values_list(
                "game_id", flat=True
            )
        )
        if not RoundGame.objects.filter(entry=entry).exists():
            entry.delete()
            Tournament.objects.filter(pk=t.pk).update(entrant_count=F("entrant_count") - 1)
            outcome = "left"
        else:
            entry.withdrawn_at = timezone.now()
            entry.save(update_fields=["withdrawn_at"])
            outcome = "withdrew"
        _changed(t.pk)
    # The game in play ends as it stands, under its own lock (never inside the entry's transaction).
    for game_id in in_play:
        # (It may have ended meanwhile: finished, or its round closed.)
        with contextlib.suppress(GameActionError):
            play.game_resign(game_id=game_id, actor=Actor(user_id=user.pk, name=user.get_username()))
    # The round in play may have been waiting for this entrant alone.
    for round_id in Round.objects.filter(tournament_id=tournament_id, settled_at__isnull=True).values_list(
        "pk", flat=True
    ):
        round_clock.round_settle(round_id=round_id)
    return outcome


# -- a round's game ---------------------------------------------------------------------------------------


def round_play(*, tournament_id: int, user) -> Game:
    """The entrant's game of the round open now: started on the round's seed, or resumed. Refused: not
    entered, withdrawn, no round open, this round's game finished already."""
    if user is None or not user.is_authenticated:
        raise TournamentError(_("Log in first."), status=403)
    now = timezone.now()
    rnd = (
        Round.objects.select_related("tournament")
        .filter(
            tournament_id=tournament_id,
            settled_at__isnull=True,
            opens_at__lte=now,
            closes_at__gt=now,
            tournament__cancelled_at__isnull=True,
        )
        .first()
    )
    with transaction.atomic():
        # The entry's row lock: one start at a time per entrant (the constraint is the backstop).
        entry = Entry.objects.select_for_update().filter(tournament_id=tournament_id, user=user).first()
        if entry is None:
            raise TournamentError(_("You have not entered this tournament."), status=403)
        if entry.withdrawn_at is not None:
            raise TournamentError(_("You have withdrawn from this tournament."))
        if rnd is None:
            raise TournamentError(_("No round of this tournament is open now."))
        existing = RoundGame.objects.filter(entry=entry, round=rnd).select_related("game").first()
        if existing is not None:
            if existing.game.is_finished:
                raise TournamentError(
                    _("You have played round %(n)d: its results come when it closes.") % {"n": rnd.number}
                )
            return existing.game
        game = play.game_create(
            actor=Actor(user_id=user.pk, name=user.get_username()),
            kind=Game.Kind.SOLO,
            seed=rnd.seed,
            dice_key=rnd.dice_key,
            shared_until=rnd.closes_at,
        )
        RoundGame.objects.create(entry=entry, round=rnd, game=game, started_at=now)
        _changed(tournament_id)
    return game
