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

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

NO_OPPONENT_SHARE = Fraction(1, 2)  # a field of one: nobody to beat or lose to, an average round


def round_matchpoints[K: Hashable](field: Mapping[K, int | None]) -> dict[K, Fraction]:
    """Each entrant's matchpoints in one round. `field` maps every entrant the round counts to their
    total, or None for one who did not start its game."""
    totals = sorted(t for t in field.values() if t is not None)
    absent = len(field) - len(totals)
    out = {}
    for who, total in field.items():
        if total is None:
            out[who] = Fraction(0)
            continue
        below = bisect_left(totals, total)
        equal = bisect_right(totals, total) - below - 1  # the others with the same total
        out[who] = below + absent + Fraction(equal, 2)
    return out


def round_shares[K: Hashable](field: Mapping[K, int | None]) -> dict[K, Fraction]:
    """Each entrant's matchpoints as a share of the most possible (0 to 1)."""
    most = len(field) - 1
    points = round_matchpoints(field)
    if most == 0:
        return {who: (NO_OPPONENT_SHARE if field[who] is not None else Fraction(0)) for who in points}
    return {who: mp / most for who, mp in points.items()}


def percent(share: Fraction) -> float:
    return float(share * 100)


@dataclass(frozen=True)
class RoundScore:
    """One entrant's round: their total (None: no game) and their share of the most matchpoints."""

    total: int | None
    share: Fraction

    @property
    def percent(self) -> float:
        return percent(self.share)


@dataclass(frozen=True)
class Standing[K: Hashable]:
    """An entrant's line of the table: each round counted (None where the round's field left them out),
    the score (the sum of the shares), the total points, the last round's share, and the place (None:
    not ranked, e.g. withdrawn)."""

    entrant: K
    rounds: tuple[RoundScore | None, ...]
    score: Fraction
    points: int
    last: Fraction
    place: int | None

    @property
    def percent(self) -> float:
        """The score as the sum of the rounds' percentages."""
        return percent(self.score)

    def average(self, rounds: int) -> float:
        """The matchpoint average over `rounds` rounds, as a percentage."""
        return percent(self.score / rounds) if rounds else 0.0


def standings[K: Hashable](
    rounds: Sequence[Mapping[K, int | None]], entrants: Iterable[K], ranked: Iterable[K]
) -> list[Standing[K]]:
    """The table after the `rounds` played (each round's field: entrant -> total or None), for every one
    of `entrants`; those in `ranked` are placed (best first), the others follow unplaced in the order
    given. A ranked entrant missing from a round's field scores nothing in it."""
    shares = [round_shares(field) for field in rounds]
    ranked = set(ranked)
    lines = []
    for who in entrants:
        cells = tuple(
            RoundScore(field[who], share[who]) if who in field else None
            for field, share in zip(rounds, shares, strict=True)
        )
        counted = [c for c in cells if c is not None]
        last = cells[-1].share if cells and cells[-1] is not None else Fraction(0)
        lines.append(
            (
                who,
                cells,
                sum((c.share for c in counted), Fraction(0)),
                sum(c.total or 0 for c in counted),
                last,
            )
        )
    # Best first: the score, then the total points, then the last round; a place is one more than the
    # number of entrants strictly better.
    keys = {who: (-score, -points, -last) for who, _c, score, points, last in lines if who in ranked}
    ordered = sorted(keys.values())
    out = []
    for who, cells, score, points, last in lines:
        place = 1 + bisect_left(ordered, keys[who]) if who in keys else None
        out.append(Standing(who, cells, score, points, last, place))
    out.sort(key=lambda s: (s.place is None, s.place or 0))
    return out
