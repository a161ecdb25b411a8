"""Duplicate scoring of a tournament on the same dice (pure: no Django), as bridge players score the same
deals at every table.

Every round is one game on one seed for every entrant. In a round, an entrant scores one matchpoint for
every entrant of the round's field whose total they beat and half a matchpoint for every equal total, as
a share of the most possible (the field less one). An entrant of the field who did not start the round's
game scores nothing and is beaten by everyone who did. The tournament's score is the sum of the rounds'
shares (shown as percentages); an equal score is decided by the total points, then by the better last
round, and entrants equal in all three share the place.

Exact fractions throughout: two scores that are equal are equal, whatever the field sizes."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

NO_OPPONENT_SHARE = Fraction(1, 2)  # a field of one: nobody to beat or lose to, an average round


def _doubled(field: Mapping[Hashable, int | None]) -> dict:
    """Twice each entrant's matchpoints (whole numbers: a tie is worth one)."""
    totals = sorted(t for t in field.values() if t is not None)
    absent = len(field) - len(totals)
    out = {}
    for who, total in field.items():
        if total is None:
            out[who] = 0
            continue
        below = bisect_left(totals, total)
        equal = bisect_right(totals, total) - below - 1  # the others with the same total
        out[who] = 2 * (below + absent) + equal
    return out


def round_matchpoints[K: Hashable](field: Mapping[K, int | None]) -> dict[K, Fraction]:
    """Each entrant's matchpoints in one round. `field` maps every entrant the round counts to their
    total, or None for one who did not start its game."""
    return {who: Fraction(points, 2) for who, points in _doubled(field).items()}


def round_shares[K: Hashable](field: Mapping[K, int | None]) -> dict[K, Fraction]:
    """Each entrant's matchpoints as a share of the most possible (0 to 1)."""
    return {who: Fraction(units, 2 * most) for who, (units, most) in _units(field).items()}


def _units(field: Mapping[Hashable, int | None]) -> dict:
    """Each entrant's share as (twice the matchpoints, the most matchpoints); a field of one counts as
    (1, 1), an average round (NO_OPPONENT_SHARE), for one who played it."""
    most = len(field) - 1
    if most == 0:
        return {who: (1 if total is not None else 0, 1) for who, total in field.items()}
    return {who: (points, most) for who, points in _doubled(field).items()}


def percent(share: Fraction) -> float:
    return float(share * 100)


@dataclass(frozen=True)
class RoundScore:
    """One entrant's round: their total (None: no game) and their share of the most matchpoints, kept
    as twice the matchpoints over the most (whole numbers: cheap to add and to compare)."""

    total: int | None
    doubled: int
    most: int

    @property
    def share(self) -> Fraction:
        return Fraction(self.doubled, 2 * self.most)

    @property
    def percent(self) -> float:
        return self.doubled * 50 / self.most


@dataclass(frozen=True)
class Standing[K: Hashable]:
    """An entrant's line of the table: each round counted (None where the round's field left them out),
    the score (the sum of the shares, kept in units of 1/`scale`), the total points, the last round's
    share, and the place (None: not ranked, e.g. no game started)."""

    entrant: K
    rounds: tuple[RoundScore | None, ...]
    units: int
    scale: int
    points: int
    place: int | None

    @property
    def score(self) -> Fraction:
        return Fraction(self.units, self.scale)

    @property
    def last(self) -> Fraction:
        last = self.rounds[-1] if self.rounds else None
        return last.share if last is not None else Fraction(0)

    @property
    def percent(self) -> float:
        """The score as the sum of the rounds' percentages."""
        return self.units * 100 / self.scale

    def average(self, rounds: int) -> float:
        """The matchpoint average over `rounds` rounds, as a percentage."""
        return self.percent / rounds if rounds else 0.0


def standings[K: Hashable](
    rounds: Sequence[Mapping[K, int | None]], entrants: Iterable[K], ranked: Iterable[K]
) -> list[Standing[K]]:
    """The table after the `rounds` played (each round's field: entrant -> total or None), for every one
    of `entrants`; those in `ranked` are placed (best first), the others follow unplaced in the order
    given. A ranked entrant missing from a round's field scores nothing in it."""
    units = [_units(field) for field in rounds]
    # Every round's share in whole units of one common denominator: exact, and compared as integers.
    scale = 2 * math.lcm(*(most for round_units in units for _u, most in round_units.values()), 1)
    ranked = set(ranked)
    lines = []
    for who in entrants:
        cells = tuple(
            RoundScore(field[who], *round_units[who]) if who in field else None
            for field, round_units in zip(rounds, units, strict=True)
        )
        counted = [c for c in cells if c is not None]
        score = sum(c.doubled * (scale // (2 * c.most)) for c in counted)
        last = cells[-1] if cells and cells[-1] is not None else None
        last_units = last.doubled * (scale // (2 * last.most)) if last is not None else 0
        lines.append((who, cells, score, sum(c.total or 0 for c in counted), last_units))
    # Best first: the score, then the total points, then the last round; a place is one more than the
    # number of entrants strictly better.
    keys = {who: (-score, -points, -last) for who, _c, score, points, last in lines if who in ranked}
    ordered = sorted(keys.values())
    out = []
    for who, cells, score, points, _last in lines:
        place = 1 + bisect_left(ordered, keys[who]) if who in keys else None
        out.append(Standing(who, cells, score, scale, points, place))
    out.sort(key=lambda s: (s.place is None, s.place or 0))
    return out
