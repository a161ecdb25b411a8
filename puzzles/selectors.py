"""Reads of the puzzles: which puzzle next, whose mistake a puzzle was (for that person only), stats."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import F
from django.db.models.functions import Abs

from puzzles.models import Attempt, Puzzle, PuzzleRating, PuzzleSource
from puzzles.positions import THEMES

DEFAULT_RATING = 1500.0


def themed(theme: str | None):
    """The pool, narrowed to a theme (an unknown theme is the caller's 400)."""
    pool = Puzzle.objects.all()
    if theme:
        pool = pool.filter(**{f"theme_{theme}": True})
    return pool


def valid_theme(theme: str | None) -> bool:
    return not theme or theme in THEMES


def rating_of(user) -> PuzzleRating | None:
    if user is None:
        return None
    return PuzzleRating.objects.filter(user=user).first()


def next_puzzle(*, user=None, theme: str | None = None, seen: Iterable[int] = ()) -> Puzzle | None:
    """The puzzle to offer next: a person's own mistakes first (puzzles from their own seats they have
    not tried yet, oldest first), then the untried puzzle whose rating is nearest theirs (a guest's:
    1500, and the ones this session tried left out); within the theme when one is chosen."""
    pool = themed(theme)
    if user is not None:
        pool = pool.exclude(rated_attempts__user=user)
        own = pool.filter(sources__player__user=user).order_by("pk").first()
        if own is not None:
            return own
        mine = rating_of(user)
        rating = mine.rating if mine else DEFAULT_RATING
    else:
        pool = pool.exclude(pk__in=list(seen))
        rating = DEFAULT_RATING
    return pool.annotate(distance=Abs(F("rating") - rating)).order_by("distance", "pk").first()


def tried(puzzle: Puzzle, user) -> bool:
    """Whether the person has made their rated attempt at this puzzle (any further one is practice)."""
    return Attempt.objects.filter(puzzle=puzzle, user=user).exists()


def own_source(puzzle: Puzzle, user) -> PuzzleSource | None:
    """The viewer's own turn that made this puzzle, if any: the only person who sees where a puzzle came
    from is the one who played it."""
    if user is None:
        return None
    return (
        PuzzleSource.objects.filter(puzzle=puzzle, player__user=user)
        .select_related("game")
        .order_by("pk")
        .first()
    )


@dataclass(frozen=True)
class Stats:
    rating: PuzzleRating | None
    pool: int
    per_theme: dict[str, int]
    own_left: int  # the viewer's own-mistake puzzles not yet tried


def stats(user=None) -> Stats:
    pool = Puzzle.objects.all()
    per_theme = {t: pool.filter(**{f"theme_{t}": True}).count() for t in THEMES}
    own_left = 0
    if user is not None:
        own_left = (
            pool.filter(sources__player__user=user).exclude(rated_attempts__user=user).distinct().count()
        )
    return Stats(rating=rating_of(user), pool=pool.count(), per_theme=per_theme, own_left=own_left)
