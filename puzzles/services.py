"""Writes of the puzzles: the pool (from finished games' stored analyses), answers with their rating
updates and the record of whom each answer was shown to, and the daily puzzle.

A finished game's puzzles are added once its analysis is stored (this app hears of it: `puzzles.apps`)."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from core import versions
from dicegame import events
from dicegame.models import Game, GameAnalysis
from dicegame.rules.scoring import Box
from dicegame.strategy import Strategy
from dicegame.strategy import analysis as A
from puzzles import positions as P
from puzzles.models import (
    SHOWN_IN_BROWSER,
    SHOWN_TO_ACCOUNT,
    TRIED,
    Attempt,
    DailyPuzzle,
    Puzzle,
    PuzzleRating,
    PuzzleReveal,
    PuzzleSource,
)
from ratings.glicko2 import Rating, rate

# The daily puzzle is drawn from the puzzles whose best choice is at least this far ahead of the second
# (the whole site plays it: no room for argument), or from the whole pool while there are none.
DAILY_MARGIN = 3.0
# The most one answer moves a puzzle rating (the person's, and the puzzle's), either way.
MAX_RATING_CHANGE = 60


class PuzzleError(Exception):
    """An answer that cannot be taken (an illegal choice); `status` is the HTTP status. Nothing changed."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- the pool ----------------------------------------------------------------------------------------


def initial_rating(margin: float) -> float:
    """A puzzle's rating before anyone has tried it: the clearer the best choice, the easier. From 1700
    at the smallest margin down to 1300 at 8 points or more; the deviation of 350 lets the first results
    move it quickly."""
    clear = min(max(margin - P.CLEAR_MARGIN, 0.0), 8.0 - P.CLEAR_MARGIN)
    return round(1700.0 - 400.0 * clear / (8.0 - P.CLEAR_MARGIN), 1)


logger = logging.getLogger(__name__)


def _puzzle_for(candidate: P.Candidate) -> tuple[Puzzle, bool]:
    themes = P.themes(candidate.sheet, candidate.dice, candidate.rolls_left, candidate.best)
    defaults = {
        "boxes": candidate.sheet.to_dict()["boxes"],
        "penta_bonus": candidate.sheet.penta_bonus,
        "dice": list(candidate.dice),
        "rolls_left": candidate.rolls_left,
        "choices": [o.to_json() for o in candidate.choices],
        "best_value": round(candidate.best.value, 4),
        "margin": round(candidate.margin, 4),
        "rating": initial_rating(candidate.margin),
        **{f"theme_{t}": t in themes for t in P.THEMES},
    }
    try:
        with transaction.atomic():
            puzzle, created = Puzzle.objects.get_or_create(key=candidate.key, defaults=defaults)
            if created:
                versions.bump(versions.PUZZLES)  # the pool's counts
            return puzzle, created
    except IntegrityError:  # another process added the same position between our read and our write
        return Puzzle.objects.get(key=candidate.key), False


def on_games_analysed(event: events.GamesAnalysed) -> None:
    transaction.on_commit(partial(_add_after_the_analysis, event.game_ids))


def _add_after_the_analysis(game_ids: tuple[int, ...]) -> None:
    """The people's large, clear mistakes become puzzles once their game's analysis is stored (by the
    clock after the game's end, or by a first view of its review; `build_puzzles` catches up on anything
    missed)."""
    for game_id in game_ids:
        try:
            add_game_puzzles(game_id)
        except Exception:  # one game's puzzles must not stop the others'
            logger.exception("could not add the puzzles of game %s", game_id)


def add_game_puzzles(game_id: int, strategy: Strategy | None = None) -> int:
    """Add the puzzles of a finished game from its stored (current) analysis: the positions where a
    person (not a computer seat, not a turn the computer played for them) lost a lot and the best
    choice was clear (`puzzles.positions`); none from a daily challenge whose day is not over.
    Idempotent: a position already in the pool gains this game's turn as another source, a source
    already stored is left alone. Returns the sources added."""
    analysis = (
        GameAnalysis.objects.filter(
            game_id=game_id, version=A.ANALYSIS_VERSION, game__status=Game.Status.FINISHED
        )
        .select_related("game")
        .first()
    )
    if analysis is None:
        return 0
    if analysis.game.seed_secret_until is not None:
        # A daily challenge's positions would show everyone that day's dice before the day ends: they
        # join the pool afterwards, when build_puzzles next runs.
        return 0
    players = {p.seat: p for p in analysis.game.players.all()}
    people = [seat for seat, p in players.items() if not p.is_bot]
    if not people:
        return 0
    added = 0
    for candidate in P.puzzle_candidates(analysis.data, people, strategy):
        puzzle, _created = _puzzle_for(candidate)
        try:
            with transaction.atomic():
                _source, created = PuzzleSource.objects.get_or_create(
                    game_id=game_id,
                    turn_number=candidate.turn_number,
                    rolls_left=candidate.rolls_left,
                    defaults={
                        "puzzle": puzzle,
                        "player": players[candidate.seat],
                        "chosen": candidate.chosen.to_json(),
                        "loss": round(candidate.loss, 4),
                    },
                )
        except IntegrityError:
            created = False
        added += created
    return added


def build_pool(batch: int = 200) -> tuple[int, int]:
    """Every stored analysis's puzzles (idempotent). Returns (games read, sources added)."""
    games = added = 0
    ids = GameAnalysis.objects.filter(
        version=A.ANALYSIS_VERSION, game__status=Game.Status.FINISHED
    ).values_list("game_id", flat=True)
    for game_id in ids.order_by("game_id").iterator(chunk_size=batch):
        games += 1
        added += add_game_puzzles(game_id)
    return games, added


# -- answers -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    correct: bool
    chosen: P.Option
    shown: list[P.Option]  # the best TOP_SHOWN choices, then the player's when it is not among them
    best: P.Option
    second: P.Option
    rated: bool = False  # this answer moved the ratings (a person's first attempt)
    practice: bool = False  # a person's attempt that may not count: nothing moved
    practice_reason: str = ""  # why: puzzles.models.TRIED, SHOWN_TO_ACCOUNT or SHOWN_IN_BROWSER
    rating_before: float | None = None
    rating_after: float | None = None

    @property
    def rating_change(self) -> float | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


def position_options(puzzle: Puzzle, strategy: Strategy | None = None) -> list[P.Option]:
    """Every choice at the puzzle's position, best first: computed afresh, the server's own figures."""
    return P.options(strategy or Strategy.shared(), puzzle.sheet, tuple(puzzle.dice), puzzle.rolls_left)


def choice_of(puzzle: Puzzle, *, box: str | None = None, keep: list[int] | None = None) -> str:
    """The key of a submitted choice (`Option.key`), or PuzzleError 400 when the game would not allow
    it: a box that is written or that the forced joker rules out, dice kept with no roll left, all
    five kept (that is writing now: choose the box)."""
    dice = tuple(puzzle.dice)
    if box is not None:
        try:
            target = Box[box]
        except KeyError:
            raise PuzzleError(_("There is no such box.")) from None
        if target not in puzzle.sheet.options(dice):
            raise PuzzleError(_("These dice cannot be written in that box here."))
        return f"box:{target.name}"
    indices = keep or []
    if len(set(indices)) != len(indices) or any(not 1 <= i <= 5 for i in indices):
        raise PuzzleError(_("Choose dice 1 to 5, each at most once."))
    if puzzle.rolls_left == 0:
        raise PuzzleError(_("No roll is left: choose a box to write the dice in."))
    if len(indices) == 5:
        raise PuzzleError(_("Keeping all five means writing them now: choose a box."))
    return "keep:" + ",".join(str(v) for v in sorted(dice[i - 1] for i in indices))


def reveal(puzzle: Puzzle, *, user=None, device: str = "") -> tuple[bool, bool]:
    """Record that the puzzle's answer is being shown to this account and in this browser (either may be
    missing). Returns whether each was new: (to the account, in the browser), True for a missing one.
    The unique rows decide, so of two requests racing to be first exactly one is told it was."""
    new_to_account = new_in_browser = True
    if user is not None:
        new_to_account = _claim(puzzle, user=user, device="")
    if device:
        new_in_browser = _claim(puzzle, user=None, device=device)
    return new_to_account, new_in_browser


def _claim(puzzle: Puzzle, *, user, device: str) -> bool:
    try:
        with transaction.atomic():
            _row, created = PuzzleReveal.objects.get_or_create(puzzle=puzzle, user=user, device=device)
    except IntegrityError:  # the other request's row is there now, whatever get_or_create made of it
        return False
    return created


def answer(
    puzzle: Puzzle, choice: str, *, user=None, device: str = "", strategy: Strategy | None = None
) -> Answer:
    """Check a choice (a key from `choice_of`) against the puzzle's position; showing the result shows
    the answer, so it is recorded for the account and the browser (`device`, "" when unknown). A
    logged-in person's attempt moves their puzzle rating and the puzzle's (Glicko-2, one game each) only
    if it is their first and the answer was never shown to the account nor in the browser before; any
    other is practice, and says why. Exactly once, even when submissions race: the reveals and the
    attempt's unique row (puzzle, person) are written in the same transaction as both ratings."""
    choices = position_options(puzzle, strategy)
    chosen = next((o for o in choices if o.key == choice), None)
    if chosen is None:
        raise PuzzleError(_("That is not a possible choice here."))
    best, second = choices[0], choices[1]
    correct = chosen.key == best.key
    shown = choices[: P.TOP_SHOWN]
    if chosen not in shown:
        shown = [*shown, chosen]
    result = Answer(correct=correct, chosen=chosen, shown=shown, best=best, second=second)
    if user is None:
        reveal(puzzle, device=device)
        return result
    with transaction.atomic():
        # The person's rating row first (then the puzzle's): two answers of one person wait in line here.
        mine, _created = PuzzleRating.objects.select_for_update().get_or_create(user=user)
        tried = Attempt.objects.filter(puzzle=puzzle, user=user).exists()
        # Claimed before rating: two accounts answering at once in one browser cannot both be first.
        new_to_account, new_in_browser = reveal(puzzle, user=user, device=device)
        if tried:
            return _practice(result, mine, TRIED)
        if not new_to_account:
            return _practice(result, mine, SHOWN_TO_ACCOUNT)
        if not new_in_browser:
            return _practice(result, mine, SHOWN_IN_BROWSER)
        row = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
        player = Rating(mine.rating, mine.rd, mine.volatility)
        opponent = Rating(row.rating, row.rd, row.volatility)
        score = 1.0 if correct else 0.0
        new_player = _bounded(player, rate(player, [(opponent, score)]))
        new_puzzle = _bounded(opponent, rate(opponent, [(player, 1.0 - score)]))
        try:
            with transaction.atomic():
                Attempt.objects.create(
                    puzzle=row,
                    user=user,
                    choice=chosen.to_json(),
                    correct=correct,
                    rating_before=mine.rating,
                    rating_after=new_player.rating,
                    puzzle_rating_before=row.rating,
                    puzzle_rating_after=new_puzzle.rating,
                )
        except IntegrityError:  # the other submission got there first: this one is practice
            return _practice(result, mine, TRIED)
        before = mine.rating
        mine.rating, mine.rd, mine.volatility = new_player.rating, new_player.rd, new_player.volatility
        mine.attempts += 1
        mine.solved += int(correct)
        mine.save()
        Puzzle.objects.filter(pk=row.pk).update(
            rating=new_puzzle.rating,
            rd=new_puzzle.rd,
            volatility=new_puzzle.volatility,
            attempts=F("attempts") + 1,
            solved=F("solved") + int(correct),
        )
    return replace(result, rated=True, rating_before=before, rating_after=mine.rating)


def _bounded(before: Rating, after: Rating) -> Rating:
    """One puzzle moves a rating by at most MAX_RATING_CHANGE either way, as rating sites bound it: a
    newcomer's wide deviation otherwise swung it by 200 and more at one answer (+226, then -211). The
    deviation and volatility are Glicko-2's own."""
    change = max(-MAX_RATING_CHANGE, min(MAX_RATING_CHANGE, after.rating - before.rating))
    return Rating(before.rating + change, after.rd, after.volatility)


def _practice(result: Answer, mine: PuzzleRating, reason: str) -> Answer:
    return replace(
        result, practice=True, practice_reason=reason, rating_before=mine.rating, rating_after=mine.rating
    )


# -- the daily puzzle --------------------------------------------------------------------------------


def daily_puzzle(date) -> Puzzle | None:
    """The puzzle of this Europe/Amsterdam date, the same for everyone: the first visit of the day picks
    it deterministically from the date (SHA-256 of the ISO date over the clearly better puzzles, in pool
    order) and stores it, so it stays even if the pool grows that day. None while the pool is empty."""
    chosen = DailyPuzzle.objects.filter(date=date).select_related("puzzle").first()
    if chosen is not None:
        return chosen.puzzle
    pool = Puzzle.objects.order_by("pk")
    clear = pool.filter(margin__gte=DAILY_MARGIN)
    ids = list(clear.values_list("pk", flat=True)) or list(pool.values_list("pk", flat=True))
    if not ids:
        return None
    index = int(hashlib.sha256(date.isoformat().encode()).hexdigest(), 16) % len(ids)
    try:
        with transaction.atomic():
            DailyPuzzle.objects.create(date=date, puzzle_id=ids[index])
    except IntegrityError:  # another visitor's request picked it a moment ago
        pass
    return DailyPuzzle.objects.select_related("puzzle").get(date=date).puzzle
