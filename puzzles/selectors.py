"""Reads of the puzzles: which puzzle next, whose mistake a puzzle was (for that person only), stats."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, F, Q
from django.db.models.functions import Abs

from core import versions
from puzzles.models import (
    SHOWN_IN_BROWSER,
    SHOWN_TO_ACCOUNT,
    TRIED,
    Attempt,
    Puzzle,
    PuzzleRating,
    PuzzleReveal,
    PuzzleSource,
)
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


def _own_left(user_id: int, device: str = ""):
    """The person's own puzzles (from their seats) they have neither tried nor been shown, nor been shown
    in this browser (`device`); each id once."""
    own = Puzzle.objects.all()
    if device:
        own = own.exclude(pk__in=PuzzleReveal.objects.filter(device=device).values("puzzle"))
    return (
        own.filter(sources__player__user_id=user_id)
        .exclude(rated_attempts__user_id=user_id)
        .exclude(pk__in=PuzzleReveal.objects.filter(user_id=user_id).values("puzzle"))
        .distinct()
        .order_by()
    )


def rating_of(user) -> PuzzleRating | None:
    if user is None:
        return None
    return PuzzleRating.objects.filter(user_id=user.pk).order_by("pk").first()


def next_puzzle(
    *, user=None, theme: str | None = None, seen: Iterable[int] = (), device: str = ""
) -> Puzzle | None:
    """The puzzle to offer next: a person's own mistakes first (puzzles from their own seats they have
    not tried yet, oldest first), then the untried puzzle whose rating is nearest theirs (a guest's:
    1500, and the ones this session tried left out); within the theme when one is chosen. Puzzles whose
    answer this account or this browser has been shown are left out too: an attempt there would be
    practice, and without an Attempt row the same puzzle would come back every time."""
    pool = themed(theme)
    if device:
        pool = pool.exclude(pk__in=PuzzleReveal.objects.filter(device=device).values("puzzle"))
    if user is not None:
        pool = pool.exclude(rated_attempts__user=user).exclude(
            pk__in=PuzzleReveal.objects.filter(user=user).values("puzzle")
        )
        own = pool.filter(sources__player__user=user).order_by("pk").first()
        if own is not None:
            return own
        mine = rating_of(user)
        rating = mine.rating if mine else DEFAULT_RATING
    else:
        pool = pool.exclude(pk__in=list(seen))
        rating = DEFAULT_RATING
    return pool.annotate(distance=Abs(F("rating") - rating)).order_by("distance", "pk").first()


def practice_reason(puzzle: Puzzle, user, device: str = "") -> str:
    """Why the person's next attempt at this puzzle would be practice (puzzles.models.TRIED,
    SHOWN_TO_ACCOUNT, SHOWN_IN_BROWSER), or "" when it would be rated or they are a guest. The same
    order as `services.answer`, which decides for itself under its locks."""
    if user is None:
        return ""
    if Attempt.objects.filter(puzzle=puzzle, user=user).exists():
        return TRIED
    if PuzzleReveal.objects.filter(puzzle=puzzle, user=user).exists():
        return SHOWN_TO_ACCOUNT
    if device and PuzzleReveal.objects.filter(puzzle=puzzle, device=device).exists():
        return SHOWN_IN_BROWSER
    return ""


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
    own_left: int  # the viewer's own-mistake puzzles not yet tried nor shown to them


def pool_counts() -> tuple[int, dict[str, int]]:
    """(puzzles in the pool, puzzles per theme): one query, once per change of the pool
    (`core.versions`)."""

    def compute() -> tuple[int, dict[str, int]]:
        counts = Puzzle.objects.aggregate(
            pool=Count("pk"), **{t: Count("pk", filter=Q(**{f"theme_{t}": True})) for t in THEMES}
        )
        return counts["pool"], {t: counts[t] for t in THEMES}

    return versions.cached("puzzles:pool", [versions.PUZZLES], compute)


def stats(user=None, device: str = "") -> Stats:
    pool, per_theme = pool_counts()
    own_left = 0
    if user is not None:
        own_left = _own_left(user.pk, device).count()
    return Stats(rating=rating_of(user), pool=pool, per_theme=per_theme, own_left=own_left)
