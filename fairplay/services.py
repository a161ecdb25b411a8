"""Fair play's writes: assessing finished rated and daily games, keeping each account's case, flagging
what crosses the line, and staff's clearing and marking.

The machine never punishes: crossing the line only flags an account for review (its games stay off the
boards meanwhile, and nothing is shown); staff decide. Feeding flags the feeders, never the account
fed. See the fair-play page and `fairplay.model`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from analysis.store import ReviewError, analysis_for
from core import versions
from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.records import AT_TABLE, STAND_IN_TURN_LIMIT, stand_in_turns
from fairplay import model as M
from fairplay import positions
from fairplay.models import (
    FEEDER_LOSSES,
    FEEDER_SHARE,
    FEEDERS,
    REFUND_WINDOW,
    WAITING_AS_FED,
    Case,
    GameSignals,
    HiddenTurn,
)

logger = logging.getLogger(__name__)

ASSESS_EVERY_SECONDS = 60.0
ASSESS_BATCH = 50  # games a sweep assesses (the rest wait for the next one)
# A rated game counts as assessed for fair play from here on only if it is no older than this: the
# history before fair play has no decision times, and a first sweep must not replay years of games.
ASSESS_HORIZON = dt.timedelta(days=60)


class FairPlayError(Exception):
    def __init__(self, message: str, *, status: int = 409):
        super().__init__(message)
        self.message = message
        self.status = status


# -- which games are assessed --------------------------------------------------------------------------


def _assessed_games():
    """Finished games that rank people: rated games among friends, daily challenges and tournament
    rounds (the games on shared dice)."""
    return Game.objects.filter(status=Game.Status.FINISHED).filter(
        Q(rated=True, kind=Game.Kind.FRIENDS) | Q(daily_date__isnull=False) | ~Q(dice_key="")
    )


def pending_games(limit: int = ASSESS_BATCH) -> list[int]:
    """Assessable games with a person's seat not yet assessed, oldest first."""
    horizon = timezone.now() - ASSESS_HORIZON
    unassessed = Player.objects.filter(game=OuterRef("pk"), user__isnull=False, bot_strength="").exclude(
        Exists(
            GameSignals.objects.filter(game=OuterRef("game"), user=OuterRef("user"), version=M.MODEL_VERSION)
        )
    )
    return list(
        _assessed_games()
        .filter(finished_at__gte=horizon)
        .filter(Exists(unassessed))
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def assess_pending() -> int:
    """The clock's sweep: assess what finished since, re-judge the accounts it concerns, and look for
    accounts feeding the winners of its rated games."""
    users: set[int] = set()
    games = pending_games()
    for game_id in games:
        try:
            users |= assess_game(game_id)
        except Exception:  # one game that cannot be assessed must not stop the others
            logger.exception("could not assess game %s for fair play", game_id)
    for user_id in sorted(users):
        judge(user_id)
    # The winners of these rated games: is a ring of accounts feeding them?
    winners = Player.objects.filter(
        game_id__in=games, game__rated=True, rank=1, user__isnull=False, bot_strength=""
    ).values_list("user_id", flat=True)
    for user_id in sorted(set(winners)):
        check_feeding(user_id)
    return 0


def _seconds_by_turn(game: Game, player: Player) -> dict[int, list]:
    rows = Turn.objects.filter(game=game, player=player, completed_at__isnull=False).values_list(
        "number", "roll_times", "chosen_at", "completed_at"
    )
    return {
        number: positions.decision_seconds(
            times or [],
            chosen.timestamp() if chosen else None,
            completed.timestamp() if completed else None,
        )
        for number, times, chosen, completed in rows
    }


def assess_game(game_id: int) -> set[int]:
    """Store the signals of each person's seat in this finished game (once: a unique row per game and
    person, so two sweeps racing store one). Returns the user ids assessed."""
    game = Game.objects.get(pk=game_id)
    try:
        data = analysis_for(game).data
    except ReviewError:
        return set()
    hidden = Counter(HiddenTurn.objects.filter(game=game).values_list("user_id", flat=True))
    done = set()
    for player in game.players.filter(user__isnull=False, bot_strength=""):
        decisions = positions.from_analysis(data, player.seat, _seconds_by_turn(game, player))
        sig = M.game_signals(decisions, hidden=hidden[player.user_id])
        lost = {id(d): max(0.0, d.values[0] - d.chosen_value) for d in decisions}
        points = [
            [None if d.seconds is None else round(d.seconds, 2), round(lost[id(d)], 3), d.best]
            for d in decisions
            if d.informative
        ]
        try:
            with transaction.atomic():
                # Signals of an older model are replaced (their table no longer fits).
                GameSignals.objects.filter(game=game, user_id=player.user_id).exclude(
                    version=M.MODEL_VERSION
                ).delete()
                GameSignals.objects.create(
                    game=game,
                    user_id=player.user_id,
                    decisions=sig.decisions,
                    best=sig.best,
                    loss=round(sig.loss, 3),
                    timed=sig.times.n,
                    time_log_sum=sig.times.total,
                    time_log_squares=sig.times.squares,
                    hidden=sig.hidden,
                    evidence=round(sig.evidence, 3),
                    table=GameSignals.pack(sig.records),
                    points=points,
                )
        except IntegrityError:  # another sweep stored it first
            pass
        done.add(player.user_id)
    return done


# -- an account's case ----------------------------------------------------------------------------------


def _set_standing(user_id: int, standing: str) -> None:
    Profile.objects.get_or_create(user_id=user_id)
    if Profile.objects.filter(user_id=user_id).exclude(standing=standing).update(standing=standing):
        versions.bump(versions.PEOPLE)  # who is off the boards


def judge(user_id: int) -> Case:
    """Re-weigh the account's evidence over all its assessed games and flag it if it crosses the line
    (and it is not already under review, marked, or cleared with no new suspicious game since)."""
    with transaction.atomic():
        Case.objects.get_or_create(user_id=user_id)
        case = Case.objects.select_for_update().get(user_id=user_id)
        games = [
            g.signals
            for g in GameSignals.objects.filter(user_id=user_id, version=M.MODEL_VERSION).order_by(
                "created_at"
            )
        ]
        v = M.verdict(games)
        case.games, case.suspicious_games = v.games, v.suspicious_games
        case.evidence, case.choice_evidence = round(v.evidence, 3), round(v.choice, 3)
        case.time_evidence, case.hidden_evidence = round(v.time, 3), round(v.hidden, 3)
        case.temperature, case.share = v.temperature, v.share
        if v.flagged and _may_flag(case):
            _flag(case, Case.Reason.ASSISTED)
        case.save()
    return case


def _may_flag(case: Case) -> bool:
    if case.status == Case.Status.OPEN:
        return True
    # A cleared account comes back only with new suspicious games since it was cleared.
    return (
        case.status == Case.Status.CLEARED
        and case.suspicious_games >= case.cleared_suspicious + M.MIN_SUSPICIOUS_GAMES
    )


def _flag(case: Case, reason: str) -> None:
    case.status, case.reason, case.flagged_at = Case.Status.FLAGGED, reason, timezone.now()
    _set_standing(case.user_id, Profile.Standing.REVIEW)
    # A warning: the project logs its packages at WARNING (PENTA_LOG_LEVEL), and a flag is news for
    # staff, not a detail.
    logger.warning(
        "fair play: flagged account %s for review (%s, evidence %.1f%s)",
        case.user_id,
        reason,
        case.evidence,
        f", fed account {case.fed_id}" if case.fed_id else "",
    )


def played_rated_seats():
    """The seats that are evidence of feeding: a person's seat in a finished rated game among friends
    whose results moved their rating (the ratings wrote the person's change for the game: an abort, or
    a game left by everyone else at once, has none), played by the person: at the table to the end,
    the computer playing at most STAND_IN_TURN_LIMIT of their turns (the records' rule). A seat the
    computer played, or left, says nothing about losing on purpose, and costs an attacker nothing.

    The ratings' rows are read through the game's reverse relation (no import: the apps that react to
    play stay independent); that they are written once, with the game's end, is the ratings' rule."""
    moved = Game.objects.filter(pk=OuterRef("game_id"), rating_changes__user_id=OuterRef("user_id"))
    return (
        Player.objects.filter(
            game__rated=True,
            game__kind=Game.Kind.FRIENDS,
            game__status=Game.Status.FINISHED,
            user__isnull=False,
            bot_strength="",
        )
        .filter(AT_TABLE)
        .alias(stand_in_turns=stand_in_turns())
        .filter(stand_in_turns__lte=STAND_IN_TURN_LIMIT)
        .filter(Exists(moved))
    )


def feeders_of(winner_id: int, *, since: dt.datetime | None = None) -> list[int]:
    """The accounts that keep feeding this one rated wins (see FEEDERS): each lost at least
    FEEDER_LOSSES rated games to it and played at least FEEDER_SHARE of its rated games against it,
    counting only the games `played_rated_seats` holds for both of them."""
    seats = played_rated_seats()
    if since is not None:
        seats = seats.filter(game__finished_at__gte=since)
    mine = dict(seats.filter(user_id=winner_id).values_list("game_id", "rank"))
    losses: Counter[int] = Counter()
    against: Counter[int] = Counter()
    theirs = seats.filter(game_id__in=list(mine)).exclude(user_id=winner_id)
    for game_id, user_id, rank in theirs.values_list("game_id", "user_id", "rank"):
        against[user_id] += 1
        if mine[game_id] is not None and rank is not None and mine[game_id] < rank:
            losses[user_id] += 1
    candidates = [u for u, n in losses.items() if n >= FEEDER_LOSSES]
    if not candidates:
        return []
    totals = Counter(seats.filter(user_id__in=candidates).values_list("user_id", flat=True))
    return sorted(u for u in candidates if against[u] >= FEEDER_SHARE * totals[u])


def check_feeding(winner_id: int) -> list[Case]:
    """A ring of accounts keeps feeding this one wins: flag each feeder (its case names the account it
    fed), and name the feeders on the fed account's case for staff, without flagging it: it stays on
    every board until staff decide (anyone can lose to a victim on purpose). Returns the feeders'
    cases flagged now."""
    feeders = feeders_of(winner_id)
    if len(feeders) < FEEDERS:
        return []
    ids = sorted({winner_id, *feeders})
    flagged = []
    with transaction.atomic():
        Case.objects.bulk_create([Case(user_id=uid) for uid in ids], ignore_conflicts=True)
        # In user-id order, as everything that locks several cases does: two sweeps never deadlock.
        cases = {
            c.user_id: c for c in Case.objects.select_for_update().filter(user_id__in=ids).order_by("user_id")
        }
        fed = cases[winner_id]
        if set(feeders) - set(fed.feeders):  # someone new: staff look (again)
            fed.feeders = sorted(set(fed.feeders) | set(feeders))
            fed.fed_at = timezone.now()
            fed.save()
            logger.warning(
                "fair play: accounts %s feed account %s rated wins; their open cases are flagged, its "
                "own waits for staff (it stays on the boards)",
                ", ".join(map(str, feeders)),
                winner_id,
            )
        for feeder_id in feeders:
            case = cases[feeder_id]
            if case.status != Case.Status.OPEN:
                continue  # under review, cleared by staff or marked already: theirs to decide
            case.fed_id = winner_id
            _flag(case, Case.Reason.FEEDING)
            case.save()
            flagged.append(case)
    return flagged


# -- staff's review --------------------------------------------------------------------------------------


def clear(case_id: int, *, by, note: str = "") -> Case:
    """Staff found the account honest: back on the boards (a fed account never left them: its case
    leaves the queue); flagged again only with new evidence."""
    with transaction.atomic():
        case = Case.objects.select_for_update().get(pk=case_id)
        waiting_as_fed = Case.objects.filter(WAITING_AS_FED, pk=case.pk).exists()
        if case.status not in (Case.Status.FLAGGED, Case.Status.MARKED) and not waiting_as_fed:
            raise FairPlayError(_("Only a flagged or marked account, or one fed by others, is cleared."))
        case.status = Case.Status.CLEARED
        case.cleared_suspicious = case.suspicious_games
        case.reviewed_by, case.reviewed_at = by, timezone.now()
        case.note = note or case.note
        case.save()
        _set_standing(case.user_id, Profile.Standing.GOOD)
    return case


def mark(case_id: int, *, by, note: str = "") -> Case:
    """Staff found unfair play: off every board for good, and (in the same transaction, once) the rated
    opponents of its games of the last REFUND_WINDOW get back what those games cost them."""
    with transaction.atomic():
        case = Case.objects.select_for_update().get(pk=case_id)
        if case.status == Case.Status.MARKED:
            raise FairPlayError(_("This account is already marked."))
        now = timezone.now()
        case.status = Case.Status.MARKED
        case.reviewed_by, case.reviewed_at = by, now
        case.note = note or case.note
        case.save()
        _set_standing(case.user_id, Profile.Standing.MARKED)
        events.publish(events.AccountMarked(user_id=case.user_id, since=now - REFUND_WINDOW))
    return case


def report_hidden(*, game: Game, user, turn_number: int) -> bool:
    """The page of `game` was hidden during `user`'s own turn `turn_number` (which must be the turn
    being played now, theirs). Counted once per turn (a page that reports a thousand times counts
    once); False for a game that ranks nobody (not assessed)."""
    turn = (
        Turn.objects.filter(game=game, number=turn_number, completed_at__isnull=True)
        .select_related("player")
        .first()
    )
    if game.status != Game.Status.ACTIVE or turn is None or turn.player.user_id != user.pk:
        raise FairPlayError(_("That turn is not yours to play now."))
    if not (game.rated or game.on_shared_dice):
        return False  # only games that rank people are assessed
    HiddenTurn.objects.bulk_create(
        [HiddenTurn(game=game, user=user, turn_number=turn_number)], ignore_conflicts=True
    )
    return True
