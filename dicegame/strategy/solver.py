"""The optimal solitaire strategy as a table of state values, by backward induction over the sheet.

A state between turns is (filled boxes as a 13-bit mask, upper total capped at 63, Penta box holds 50).
Its value is the expected number of points still to come under optimal play (box points, the upper
bonus if it is still to be earned, Penta bonuses). Filling a box only ever adds a bit to the mask, so
the states fall into layers by number of filled boxes and each layer depends only on the next one.

How a layer is computed fast, in plain numpy (each trick measured in bench/strategy_bench.py):

- Vectorise across states. Each numpy call works on a chunk of 512 states, laid out as the last
  (contiguous) axis, so the Python overhead of the ~250 calls per chunk is shared by 512 states, and a
  chunk's 462 keep values (1.9 MB) stay close to the cache.
- Skip what cannot happen, and what cannot matter. Only upper totals that the filled upper boxes can
  make are computed (536,448 reachable of 1,048,576 slots). And the upper total matters only through
  the bonus: two totals that need the same smallest achievable amount from the open upper boxes to
  reach 63 (or can no longer win the bonus, like 63 itself) have equal values, so one state per class
  is computed: 314,878 in all.
- Final rolls: the sacrifice values of all boxes merge into one row, and only the rolls where a box
  scores are patched (a full house scores on 30 rolls of 252, a large straight on 2).
- Keep values one die at a time. The value of holding k dice is the average, over the six faces, of
  holding k plus one more die of that face: 6 additions per keep instead of a 462 x 252 matrix product.
- Best keep per roll by passing maxima up the lattice of sub-multisets: the best sub-keep of k is the
  better of k itself and the best sub-keeps of its (at most 5) one-die-smaller parents. Keeps are
  ordered so that every such step works on a contiguous slice.
- np.take(..., out=..., mode="clip"): the default mode="raise" copies through a temporary buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import JOKER_LOWER_BOXES, PENTA_BONUS, UPPER_BONUS, Box

from . import tables as T

Progress = Callable[[int, int], None]
"""Called as progress(states_done, states_total) after each chunk of states."""

DEFAULT_CHUNK = 512
_NEG = -np.inf


def reachable_mask() -> np.ndarray:
    """bool (8192, 64, 2): which (filled mask, capped upper total, Penta holds 50) can occur in a game."""
    reach = np.zeros((1 << T.N_BOXES, T.N_UPPER, 2), dtype=bool)
    masks = np.arange(1 << T.N_BOXES)
    reach[:, :, 0] = T.REACHABLE_UPPER[masks & T.UPPER_MASK]
    has_penta = (masks & T.PENTA_BIT) != 0
    reach[has_penta, :, 1] = reach[has_penta, :, 0]
    return reach


def _upper_representatives() -> np.ndarray:
    """rep[filled_upper, u]: the upper total whose state has the same value as (filled_upper, u).

    Only the upper bonus looks at the upper total, and it asks one question: will the points still to
    come in the open upper boxes reach 63 - u? Two totals that need the same smallest achievable
    amount (or can no longer earn the bonus at all) lead to identical futures. Representatives are
    reachable totals, except 63, which stands for every total with no bonus left to win.
    """
    rep = np.full((64, T.N_UPPER), T.UPPER_CAP, dtype=np.intp)
    for filled in range(64):
        to_come = {0}
        for f in T.FACES:
            if not filled >> (f - 1) & 1:
                to_come = {t + f * c for t in to_come for c in range(6)}
        first_with: dict[int, int] = {}
        for u in np.flatnonzero(T.REACHABLE_UPPER[filled]):
            needed = [t for t in to_come if u + t >= T.UPPER_CAP]
            if u < T.UPPER_CAP and needed:
                rep[filled, u] = first_with.setdefault(min(needed), u)
    return rep


UPPER_REP = _upper_representatives()


def _layer_states(layer: int, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The states of a layer that need computing: one per class of equal value (see UPPER_REP),
    and u=63 for every mask and flag (the class of "no bonus left to win")."""
    masks = np.flatnonzero(layer == T.POPCOUNT)
    m, u, p = np.nonzero(reach[masks])
    m = masks[m]
    own = (UPPER_REP[m & T.UPPER_MASK, u] == u) & (u < T.UPPER_CAP)
    with_penta = masks[(masks & T.PENTA_BIT) != 0]
    m = np.concatenate([m[own], masks, with_penta])
    u = np.concatenate([u[own], np.full(len(masks) + len(with_penta), T.UPPER_CAP)])
    p = np.concatenate([p[own], np.zeros(len(masks), np.intp), np.ones(len(with_penta), np.intp)])
    return m, u, p


def _fill_shared(values: np.ndarray, layer: int, reach: np.ndarray) -> None:
    """Give every reachable state of the layer the value of its class representative."""
    masks = np.flatnonzero(layer == T.POPCOUNT)
    m, u, p = np.nonzero(reach[masks])
    m = masks[m]
    values[m, u, p] = values[m, UPPER_REP[m & T.UPPER_MASK, u], p]


class _Workspace:
    """Buffers reused across chunks, so the hot loop allocates nothing large."""

    def __init__(self, n: int):
        self.keeps = np.empty((T.N_KEEPS, n))
        self.tmp = np.empty((T.N_ROLLS, n))


_FACE_BITS = np.array([1 << (f - 1) for f in T.FACES], dtype=np.intp)
_UPPER_POINTS = np.array([[f * c for c in range(6)] for f in T.FACES], dtype=np.intp)  # [face-1, count]
_LOWER = (
    Box.THREE_OF_A_KIND,
    Box.FOUR_OF_A_KIND,
    Box.FULL_HOUSE,
    Box.SMALL_STRAIGHT,
    Box.LARGE_STRAIGHT,
    Box.CHANCE,
    Box.PENTA,
)
_LOWER_BITS = np.array([1 << b.value for b in _LOWER], dtype=np.intp)
# Boxes that score on few rolls are handled as "sacrifice value on every roll, patched where they score":
# the sacrifice values of all of them merge into one row before touching the (252, n) array.
_SPARSE = (Box.FOUR_OF_A_KIND, Box.FULL_HOUSE, Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT, Box.PENTA)
_SCORING_ROLLS = {b: np.flatnonzero(T.SCORE[:, b.value]) for b in _SPARSE}
_JOKER_LOWER = np.array([_LOWER.index(b) for b in JOKER_LOWER_BOXES], dtype=np.intp)
_JOKER_POINTS = T.JOKER_SCORE[:, [b.value for b in JOKER_LOWER_BOXES]]  # [face-1, joker lower box]


def _index(masks: np.ndarray, uppers: np.ndarray, penta: np.ndarray | int) -> np.ndarray:
    """Flat index into the (8192, 64, 2) value table."""
    return (masks * T.N_UPPER + uppers) * 2 + penta


@dataclass(frozen=True)
class _Afterwards:
    """For n states (last axis): points now plus the value of the sheet after, for each way to write a
    roll, -inf where the box is filled. The ordinary table only: the joker is applied afterwards."""

    upper: np.ndarray  # (6, 6, n): [face-1, count] c dice of that face in its upper box (bonus included)
    lower: np.ndarray  # (7, n): 0 points in _LOWER[i] (in the Penta box: a sacrifice, joker stays off)
    penta_written: np.ndarray  # (n,): the value after 50 in the Penta box, the 50 not included
    upper_open: np.ndarray  # (6, n) bool
    lower_open: np.ndarray  # (7, n) bool


def _afterwards(flat: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray) -> _Afterwards:
    new_upper = u + _UPPER_POINTS[:, :, None]
    bonus = np.where((u < T.UPPER_CAP) & (new_upper >= T.UPPER_CAP), UPPER_BONUS, 0)
    upper = flat[_index((m | _FACE_BITS[:, None])[:, None, :], np.minimum(new_upper, T.UPPER_CAP), p)]
    upper += _UPPER_POINTS[:, :, None] + bonus
    upper_open = (m & _FACE_BITS[:, None]) == 0
    np.copyto(upper, _NEG, where=~upper_open[:, None, :])
    lower_masks = m | _LOWER_BITS[:, None]
    lower_open = (m & _LOWER_BITS[:, None]) == 0
    lower_penta = np.where(_LOWER_BITS[:, None] == T.PENTA_BIT, 0, p)
    lower = np.where(lower_open, flat[_index(lower_masks, u, lower_penta)], _NEG)
    i_penta = _LOWER.index(Box.PENTA)
    penta_written = np.where(lower_open[i_penta], flat[_index(lower_masks[i_penta], u, 1)], _NEG)
    return _Afterwards(upper, lower, penta_written, upper_open, lower_open)


def _joker(aft: _Afterwards, states: np.ndarray) -> np.ndarray:
    """(6, len(states)): the value of a Penta of each face in states whose Penta box holds 50, placed
    by the forced joker (own upper box, else a lower box as a joker, else 0 in an upper box) + bonus."""
    own = aft.upper[:, 5, states]  # computed with penta=1 for these states, as the joker keeps it on
    lower_best = (aft.lower[_JOKER_LOWER][None, :, states] + _JOKER_POINTS[:, :, None]).max(axis=1)
    upper_zero = aft.upper[:, 0, states].max(axis=0)
    any_lower_open = aft.lower_open[_JOKER_LOWER][:, states].any(axis=0)
    fallback = np.where(any_lower_open, lower_best, upper_zero)
    return np.where(aft.upper_open[:, states], own, fallback) + PENTA_BONUS


def final_roll_values(
    values: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray, out: np.ndarray, ws: _Workspace
) -> np.ndarray:
    """out (252, n): for each final roll in each state, the best over legal boxes of points now plus
    the next state's value (upper and Penta bonuses included).

    `values` must hold the next layer; m, u, p are the states (n,), each with at least one open box.
    Works row by row through a reused buffer, so large chunks allocate nothing of size (252, n).
    """
    aft = _afterwards(values.reshape(-1), m, u, p)
    tmp = ws.tmp[:, : len(m)]
    out[:] = np.maximum(aft.upper[:, 0].max(axis=0), aft.lower.max(axis=0))
    for f in T.FACES:
        np.take(aft.upper[f - 1], T.ROLL_COUNTS[:, f - 1], axis=0, out=tmp, mode="clip")
        np.maximum(out, tmp, out=out)
    for box in (Box.THREE_OF_A_KIND, Box.CHANCE):
        np.add(T.SCORE[:, box.value, None], aft.lower[_LOWER.index(box)], out=tmp)
        np.maximum(out, tmp, out=out)
    for box in _SPARSE:
        rows = _SCORING_ROLLS[box]
        w = aft.penta_written if box is Box.PENTA else aft.lower[_LOWER.index(box)]
        out[rows] = np.maximum(out[rows], T.SCORE[rows, box.value, None] + w)
    joker = np.flatnonzero(p == 1)  # the Penta box holds 50: Pentas are placed by the forced joker
    if len(joker):
        out[np.ix_(T.PENTA_ROLLS, joker)] = _joker(aft, joker)
    return out


_FACE_ROWS = np.arange(6)[None, :]
_ORDINARY_LOWER = [_LOWER.index(b) for b in _LOWER if b is not Box.PENTA]
_ORDINARY_LOWER_SCORE = T.SCORE[:, [_LOWER[i].value for i in _ORDINARY_LOWER]]  # (252, 6)


def final_roll_values_one(values: np.ndarray, mask: int, upper: int, penta: int) -> np.ndarray:
    """(252,): final_roll_values for a single state, with whole-array operations (fewer numpy calls
    than the chunk version, which matters when there is one state and the call overhead dominates)."""
    m, u, p = (np.array([x], dtype=np.intp) for x in (mask, upper, penta))
    aft = _afterwards(values.reshape(-1), m, u, p)
    best = aft.upper[_FACE_ROWS, T.ROLL_COUNTS, 0].max(axis=1)
    best = np.maximum(best, (_ORDINARY_LOWER_SCORE + aft.lower[_ORDINARY_LOWER, 0]).max(axis=1))
    i_penta = _LOWER.index(Box.PENTA)
    scored = T.SCORE[:, Box.PENTA.value] + np.where(
        T.IS_PENTA_ROLL, aft.penta_written[0], aft.lower[i_penta, 0]
    )
    best = np.maximum(best, scored)
    if penta:
        best[T.PENTA_ROLLS] = _joker(aft, np.array([0]))[:, 0]
    return best


def roll_values_with_reroll(keeps: np.ndarray, tmp: np.ndarray) -> None:
    """One reroll, in place: keeps[210:] holds each roll's value with no roll left (n states as
    columns); afterwards keeps[k] is the value of holding k and rolling the rest once, and
    keeps[210:] each roll's value with that one reroll still available (best sub-keep)."""
    start = T.SIZE_START
    # Keep values, one die at a time: holding k = mean over faces of holding k plus that face.
    for s in range(4, -1, -1):
        lo, hi = start[s], start[s + 1]
        block = keeps[lo:hi]
        children = T.CHILDREN[lo:hi]
        np.take(keeps, children[:, 0], axis=0, out=block, mode="clip")
        t = tmp[: hi - lo]
        for f in range(1, 6):
            np.take(keeps, children[:, f], axis=0, out=t, mode="clip")
            block += t
        block *= 1.0 / 6.0
    # Best sub-keep: pass maxima up the lattice, size by size; parents of the prefix are contiguous.
    for s in range(1, 6):
        lo = start[s]
        for j in range(5):
            nj = _PREFIX[s][j]
            if nj == 0:
                break
            t = tmp[:nj]
            np.take(keeps, T.PARENTS[lo : lo + nj, j], axis=0, out=t, mode="clip")
            np.maximum(keeps[lo : lo + nj], t, out=keeps[lo : lo + nj])


# _PREFIX[s][j]: how many keeps of size s have more than j distinct faces (a prefix of their block).
_PREFIX = [
    [int((T.N_PARENTS[T.SIZE_START[s] : T.SIZE_START[s + 1]] > j).sum()) for j in range(5)] for s in range(6)
]


def turn_start_values(
    values: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray, ws: _Workspace
) -> np.ndarray:
    """(n,) the expected future points of states (m, u, p), given the next layer's values."""
    n = len(m)
    keeps = ws.keeps[:, :n]
    final_roll_values(values, m, u, p, keeps[T.ROLL_OFFSET :], ws)
    roll_values_with_reroll(keeps, ws.tmp[:, :n])
    roll_values_with_reroll(keeps, ws.tmp[:, :n])
    return T.FIRST_ROLL @ keeps[T.ROLL_OFFSET :]


def solve(progress: Progress | None = None, chunk: int = DEFAULT_CHUNK) -> np.ndarray:
    """float64 (8192, 64, 2) of state values; NaN marks states no game can reach.

    Single-threaded on purpose: numpy's gathers (np.take, fancy indexing) hold the GIL, and a thread
    pool measured no faster on two cores.
    """
    reach = reachable_mask()
    values = np.zeros(reach.shape)
    layers = [_layer_states(layer, reach) for layer in range(T.N_BOXES)]
    total = sum(len(m) for m, _, _ in layers)
    done = 0
    ws = _Workspace(chunk)
    for layer in range(T.N_BOXES - 1, -1, -1):
        m, u, p = layers[layer]
        for lo in range(0, len(m), chunk):
            sl = slice(lo, lo + chunk)
            values[m[sl], u[sl], p[sl]] = turn_start_values(values, m[sl], u[sl], p[sl], ws)
            done += len(m[sl])
            if progress is not None:
                progress(done, total)
        _fill_shared(values, layer, reach)
    values[~reach] = np.nan
    return values
