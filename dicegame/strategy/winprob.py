"""Every seat's chance of finishing first, under optimal play from where each seat stands.

The method: a vectorised simulation of each seat's own future, then an exact combination.

Players' dice are independent and each plays the solitaire optimum (the solved table), so a seat's
final total does not depend on the others' and P(first) follows from the seats' independent
final-total distributions. Each seat's distribution is estimated by playing `n` futures of that seat
at once, in numpy: per turn, the within-turn values (final rolls, keeps with one and two rolls left)
are computed once per distinct sheet state among the futures with the solver's own vectorised pieces,
and every future takes its optimal keep and box by a gather. The distributions are then combined
exactly (ties split evenly), so the estimate of P(first) draws on n^k pairings, not n joint games.

Why not the alternatives: a normal approximation fails late in a game (one box left: Penta is 0 or
50), and exact distribution tables over all 536,448 sheet states are a second solver. The simulation
is exact in the limit, its error shrinks as 1/sqrt(n), and with a fixed seed it gives the same answer
for the same position (a bar that does not flicker between pushes of one position).

Pure numpy, no Django. tests/dicegame/strategy/test_winprob.py checks it against a plain Monte Carlo of
whole games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import JOKER_LOWER_BOXES, PENTA_BONUS, PENTA_SCORE, UPPER_BONUS, Box, Scoresheet

from . import solver
from . import tables as T
from .turn import State

DEFAULT_SAMPLES = 4000
_CHUNK = 512
_BATCH = 10_000

_BOX_BITS = np.array([1 << b.value for b in Box], dtype=np.int64)
_IS_UPPER = np.array([b.is_upper for b in Box])
_FACE_OF = np.array([b.face or 0 for b in Box], dtype=np.int64)
_PENTA = Box.PENTA.value
_JOKER_LOWER = np.array([b in JOKER_LOWER_BOXES for b in Box])
# A roll index from its face counts: counts as a base-6 number -> index into tables.ROLLS.
_POW6 = 6 ** np.arange(6, dtype=np.int64)
_ROLL_OF_CODE = np.full(6**6, -1, dtype=np.int64)
_ROLL_OF_CODE[T.ROLL_COUNTS.astype(np.int64) @ _POW6] = np.arange(T.N_ROLLS)
# Each roll's sub-keeps, most dice first, so that argmax's first maximum prefers holding more (as
# Strategy.best_keep does on ties); the padding (N_KEEPS) points at a -inf row.
_SUBKEEPS = np.array(
    [sorted(row, key=lambda k: (-(T.KEEP_SIZE[k] if k < T.N_KEEPS else -1), k)) for row in T.SUBKEEPS],
    dtype=np.int64,
)
_FACE_SCORE = np.array(
    [[T.JOKER_SCORE[f - 1, b.value] for b in Box] for f in T.FACES], dtype=np.int64
)  # [face-1, box]


@dataclass(frozen=True)
class SeatPosition:
    """Where one seat stands: its sheet, and, during its turn, the dice showing and the rolls left.

    dice None: the seat is between turns (or its turn has not rolled yet). `out`: the seat cannot
    finish first (resigned); it takes no share.
    """

    sheet: Scoresheet
    dice: tuple[int, ...] | None = None
    rolls_left: int = 0
    out: bool = False

    @property
    def finished(self) -> bool:
        return self.sheet.is_complete


def _keep_values(rolls: np.ndarray) -> np.ndarray:
    """(463, U): rows 210.. the rolls' values as given (holding all five: no reroll), rows ..210 the
    value of each keep when its other dice are rolled once, row 462 -inf (padding of _SUBKEEPS)."""
    out = np.empty((T.N_KEEPS + 1, rolls.shape[1]))
    out[T.ROLL_OFFSET : T.N_KEEPS] = rolls
    out[T.N_KEEPS] = -np.inf
    start = T.SIZE_START
    tmp = np.empty((int(np.diff(start[:6]).max()), rolls.shape[1]))
    for s in range(4, -1, -1):
        lo, hi = start[s], start[s + 1]
        children = T.CHILDREN[lo:hi]
        block, t = out[lo:hi], tmp[: hi - lo]
        # np.take into reused buffers: fancy indexing allocated a temporary per face.
        np.take(out, children[:, 0], axis=0, out=block, mode="clip")
        for f in range(1, 6):
            np.take(out, children[:, f], axis=0, out=t, mode="clip")
            block += t
        block *= 1.0 / 6.0
    return out


def _best_per_roll(keeps: np.ndarray, final: np.ndarray) -> np.ndarray:
    """(252, U): each roll's value with a reroll still to come: the best of stopping and its sub-keeps,
    by passing maxima up the lattice of sub-multisets as the solver does."""
    best = keeps[: T.N_KEEPS].copy()
    best[T.ROLL_OFFSET :] = final
    for s in range(1, 6):
        lo = T.SIZE_START[s]
        for j in range(5):
            nj = solver._PREFIX[s][j]
            if nj == 0:
                break
            np.maximum(best[lo : lo + nj], best[T.PARENTS[lo : lo + nj, j]], out=best[lo : lo + nj])
    return best[T.ROLL_OFFSET :]


class _Turns:
    """The within-turn tables of a set of distinct states (columns): final roll values, keep values
    with one roll left (K1) and with two (K2)."""

    def __init__(self, values: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray):
        n = len(m)
        self.final = np.empty((T.N_ROLLS, n))
        ws = solver._Workspace(min(_CHUNK, n))
        for lo in range(0, n, _CHUNK):
            sl = slice(lo, lo + _CHUNK)
            solver.final_roll_values(values, m[sl], u[sl], p[sl], self.final[:, sl], ws)
        self.k1 = _keep_values(self.final)
        self.k1[T.ROLL_OFFSET : T.N_KEEPS] = self.final
        self.k2 = _keep_values(_best_per_roll(self.k1, self.final))
        self.k2[T.ROLL_OFFSET : T.N_KEEPS] = self.final  # holding all five with two rolls left: stopping

    def keep(self, rolls: np.ndarray, cols: np.ndarray, rolls_left: int) -> np.ndarray:
        """The optimal keep (index into tables.KEEPS) for each (roll, column)."""
        table = self.k1 if rolls_left == 1 else self.k2
        subkeeps = _SUBKEEPS[rolls]
        choice = table[subkeeps, cols[:, None]].argmax(axis=1)
        return subkeeps[np.arange(len(rolls)), choice]


def _reroll(keeps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The roll (index into tables.ROLLS) after holding each keep and rolling the other dice."""
    counts = T.KEEP_COUNTS[keeps].astype(np.int64)
    fresh = rng.integers(0, 6, size=(len(keeps), 5))
    wanted = 5 - counts.sum(axis=1)
    for d in range(5):
        rows = np.flatnonzero(wanted > d)
        np.add.at(counts, (rows, fresh[rows, d]), 1)
    return _ROLL_OF_CODE[counts @ _POW6]


def _write(values: np.ndarray, m, u, p, rolls) -> tuple[np.ndarray, ...]:
    """The optimal box for each final roll: (points gained with bonuses, new mask, upper, penta)."""
    n = len(m)
    counts = T.ROLL_COUNTS[rolls].astype(np.int64)  # (n, 6)
    points = T.SCORE[rolls].astype(np.int64)  # (n, 13), ordinary
    face = counts.argmax(axis=1) + 1
    is_penta = T.IS_PENTA_ROLL[rolls]
    joker = is_penta & (p == 1)
    open_ = (m[:, None] & _BOX_BITS) == 0  # (n, 13)
    legal = open_.copy()
    if joker.any():
        # The forced joker: its own upper box, else a lower joker box, else 0 in any open box.
        j = np.flatnonzero(joker)
        own = (m[j] >> (face[j] - 1)) & 1 == 0
        lower_open = (open_[j] & _JOKER_LOWER).any(axis=1)
        own_only = np.zeros((len(j), 13), dtype=bool)
        own_only[np.arange(len(j)), face[j] - 1] = True
        legal[j] = np.where(
            own[:, None],
            own_only,
            np.where(lower_open[:, None], open_[j] & _JOKER_LOWER, open_[j]),
        )
        jpoints = np.where(
            own[:, None],
            points[j],
            np.where(lower_open[:, None], _FACE_SCORE[face[j] - 1], 0),
        )
        points[j] = jpoints
    new_m = m[:, None] | _BOX_BITS
    raw_upper = u[:, None] + np.where(_IS_UPPER, points, 0)
    new_u = np.where(_IS_UPPER, np.minimum(raw_upper, T.UPPER_CAP), u[:, None])
    bonus = np.where(_IS_UPPER & (u[:, None] < T.UPPER_CAP) & (raw_upper >= T.UPPER_CAP), UPPER_BONUS, 0)
    new_p = np.where(np.arange(13) == _PENTA, (points == PENTA_SCORE).astype(np.int64), p[:, None])
    gained = points + bonus + np.where(joker, PENTA_BONUS, 0)[:, None]
    future = values[new_m, new_u, new_p]
    score = np.where(legal, gained + np.nan_to_num(future, nan=-1e9), -np.inf)
    box = score.argmax(axis=1)
    rows = np.arange(n)
    return gained[rows, box], new_m[rows, box], new_u[rows, box], new_p[rows, box]


def _turn(values, m, u, p, rng, first: np.ndarray | None = None, rolls_left: int = 2):
    """Play one turn of every future; `first`: the roll already showing (else rolled now)."""
    key = (m * T.N_UPPER + u) * 2 + p
    uniq, cols = np.unique(key, return_inverse=True)
    cols = cols.reshape(-1)
    um, rest = np.divmod(uniq, T.N_UPPER * 2)
    uu, up = np.divmod(rest, 2)
    turns = _Turns(values, um, uu, up)
    rolls = first if first is not None else _reroll(np.zeros(len(m), dtype=np.int64), rng)
    for left in range(rolls_left, 0, -1):
        keeps = turns.keep(rolls, cols, left)
        going = T.KEEP_SIZE[keeps] < 5  # holding all five is stopping
        if not going.any():
            break
        rolls = rolls.copy()
        rolls[going] = _reroll(keeps[going], rng)
    return _write(values, m, u, p, rolls)


def sample_totals(
    values: np.ndarray, seat: SeatPosition, n: int = DEFAULT_SAMPLES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """n final totals (int64) of this seat under optimal play from its position."""
    rng = rng if rng is not None else np.random.default_rng()
    sheet = seat.sheet
    totals = np.full(n, sheet.total, dtype=np.int64)
    if sheet.is_complete:
        return totals
    state = State.of(sheet)
    m = np.full(n, state.mask, dtype=np.int64)
    u = np.full(n, state.upper, dtype=np.int64)
    p = np.full(n, state.penta, dtype=np.int64)
    first, left = None, 2
    if seat.dice is not None:
        first = np.full(n, T.ROLL_INDEX[tuple(sorted(seat.dice))], dtype=np.int64)
        left = seat.rolls_left
    for _ in range(T.N_BOXES - len(sheet.boxes)):
        gained, m, u, p = _turn(values, m, u, p, rng, first, left)
        totals += gained
        first, left = None, 2
    return totals


def first_place(distributions: list[np.ndarray | None]) -> list[float]:
    """P(finishing first) of each seat from independent distributions of final totals (probability
    of each total 0..len-1); ties for first are split evenly. None: a seat out of the running."""
    live = [d for d in distributions if d is not None]
    if not live:
        return [0.0] * len(distributions)
    size = max(len(d) for d in live)
    pmf = [np.pad(d, (0, size - len(d))) for d in live]
    below = [np.concatenate([[0.0], np.cumsum(d)[:-1]]) for d in pmf]  # P(total < x)
    chances = []
    for i, d in enumerate(pmf):
        others = [j for j in range(len(pmf)) if j != i]
        # Sum over which others tie at x (the rest are below): weight 1 / (1 + number tied).
        share = np.zeros(size)
        for subset in range(1 << len(others)):
            term = np.ones(size)
            tied = 0
            for bit, j in enumerate(others):
                if subset >> bit & 1:
                    term *= pmf[j]
                    tied += 1
                else:
                    term *= below[j]
            share += term / (1 + tied)
        chances.append(float(d @ share))
    it = iter(chances)
    return [next(it) if d is not None else 0.0 for d in distributions]


def histogram(totals: np.ndarray) -> np.ndarray:
    return np.bincount(totals) / len(totals)


def win_chances(
    values: np.ndarray, seats: list[SeatPosition], n: int = DEFAULT_SAMPLES, seed: int = 0, cache=None
) -> list[float]:
    """Each seat's chance of finishing first (they sum to 1 unless every seat is out).

    `cache`: an optional dict-like of a seat's position -> its distribution, so that a change to one
    seat does not replay the others (each seat's futures use their own seed from the position)."""
    dists: list[np.ndarray | None] = []
    for seat in seats:
        if seat.out:
            dists.append(None)
            continue
        key = _position_key(seat, n, seed)
        dist = cache.get(key) if cache is not None else None
        if dist is None:
            rng = np.random.default_rng([seed, *key[:4]])
            dist = histogram(sample_totals(values, seat, n, rng))
            if cache is not None:
                cache[key] = dist
        dists.append(dist)
    return first_place(dists)


def _position_key(seat: SeatPosition, n: int, seed: int) -> tuple:
    state = State.of(seat.sheet)
    dice = T.ROLL_INDEX[tuple(sorted(seat.dice))] if seat.dice is not None else 252
    rolls_left = seat.rolls_left if seat.dice is not None else 3
    return (state.mask, state.upper * 2 + state.penta, seat.sheet.total, dice * 4 + rolls_left, n, seed)


def joint_monte_carlo(
    values: np.ndarray, seats: list[SeatPosition], games: int, rng: np.random.Generator
) -> list[float]:
    """The plain Monte Carlo: `games` whole games from the position, every seat playing optimally on
    its own dice; a game's win goes to its first place, a tie for first split evenly."""
    batches = [min(_BATCH, games - lo) for lo in range(0, games, _BATCH)]  # bounded memory
    totals = np.stack(
        [
            np.concatenate([sample_totals(values, seat, b, rng) for b in batches])
            if not seat.out
            else np.full(games, -1, dtype=np.int64)
            for seat in seats
        ]
    )
    best = totals.max(axis=0)
    first = totals == best
    share = first / first.sum(axis=0)
    return [float(x) for x in share.mean(axis=1)]


def course(
    values: np.ndarray,
    seats: int,
    steps: list[tuple[int, Scoresheet]],
    n: int = 1000,
    seed: int = 0,
) -> list[list[float]]:
    """Every seat's chance of finishing first at the start and after each step of a game (a step: the
    seat that wrote a box and its sheet after it). A step moves one seat, so each seat's futures are
    played once per sheet it had (`win_chances`' cache); the start is even by symmetry."""
    sheets = [Scoresheet()] * seats
    cache: dict = {}
    out = [[1 / seats] * seats]
    for seat, sheet in steps:
        sheets = [*sheets[:seat], sheet, *sheets[seat + 1 :]]
        out.append(win_chances(values, [SeatPosition(s) for s in sheets], n=n, seed=seed, cache=cache))
    return out


def largest_swings(chances: list[list[float]], movers: list[int], count: int = 3) -> list[int]:
    """The steps (1-based, as in `course`) whose mover's chance changed most, largest first."""
    moves = [(abs(chances[i][m] - chances[i - 1][m]), i) for i, m in enumerate(movers, start=1)]
    moves.sort(key=lambda t: (-t[0], t[1]))
    return [i for delta, i in moves[:count] if delta > 0]
