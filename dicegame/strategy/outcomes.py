"""How a sheet's final total falls under the expected-total strategy: for every state between turns,
the exact distribution of the points still to come when the optimal solitaire player plays on.

This is what the computer that plays to win (`winner`) knows of every future: its own after each
choice it weighs, and its opponents'. It is the next best thing to exact tables of "the chance of
scoring at least t more under the play that maximises that chance": those take a maximum per t, so
they cost the solver's work once for every t (hundreds of times over) and a value for every state and
t; this table follows one fixed play, which collapses a turn into one distribution of the final roll
(docs/analysis.md, "Playing to win", has the estimate and the measurements).

How a state's distribution is made, layer by layer from the full sheet backwards, as the solver does:

- The expected-total play in the state: the best box for each final roll, the best hold for each roll
  with one and with two rolls left, ties broken as `Strategy` breaks them (the hard computer's play).
- The chance of each final roll under that play: the first roll's chances pushed through the holds
  chosen, two 462 x 252 products per chunk of states (holding all five stops the turn).
- The distribution of the points still to come: each final roll's box gains some points and leads to a
  state of the next layers, whose distribution is already known; the state's distribution is their
  mixture, each moved along by the points gained. Only the distinct (next state, points) pairs are
  summed (a few dozen per state), so a state costs a few dozen times its distribution's length.

Distributions are stored from their first total with mass to their last, the tails with less than
TAIL of mass folded into the edge totals. Pure numpy, no Django.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import solver
from . import tables as T
from .turn import State
from .writing import flat_index, writes

Progress = Callable[[int, int], None]

TAIL = 1e-10  # the mass a distribution's tails may fold into their edge totals, at each end
CHUNK = 128
N_FLAT = (1 << T.N_BOXES) * T.N_UPPER * 2
_GAIN_SPAN = 256  # more than any one box's points with its bonuses (a joker's 100 + 40 + 35)

# Each roll's sub-keeps in the order that settles ties as Strategy.best_keep does (more dice first, then
# the lexicographically smaller keep); the padding (N_KEEPS) points at a -inf row.
_SORTED_SUBKEEPS = np.array(
    [
        sorted(
            row,
            key=lambda k: (0, -int(T.KEEP_SIZE[k]), int(T.KEEP_LEX_RANK[k])) if k < T.N_KEEPS else (1, 0, 0),
        )
        for row in T.SUBKEEPS
    ],
    dtype=np.intp,
)


@dataclass(frozen=True)
class Outcomes:
    """The distributions of the points still to come, one row per class of states with equal futures.

    `row_of[flat state]`: its row, -1 where the table has none (unreachable, or a layer not built).
    Row r holds the chances of lo[r], lo[r] + 1, ... more points in data[start[r]:start[r + 1]].
    """

    row_of: np.ndarray
    lo: np.ndarray
    start: np.ndarray
    data: np.ndarray
    min_layer: int  # every state with at least this many boxes filled has its row

    def row(self, state: State) -> int:
        return int(self.row_of[(state.mask * T.N_UPPER + state.upper) * 2 + state.penta])

    def covers(self, state: State) -> bool:
        return self.row(state) >= 0

    def future(self, state: State) -> tuple[int, np.ndarray]:
        """(lo, chances): the chance of lo, lo + 1, ... more points from the start of the next turn."""
        r = self.row(state)
        if r < 0:
            raise KeyError(f"no distribution for {state}")
        return int(self.lo[r]), self.data[self.start[r] : self.start[r + 1]]

    @property
    def rows(self) -> int:
        return len(self.lo)


def expected_total_play(values: np.ndarray, m, u, p):
    """The expected-total play in states (m, u, p): (best box per roll (252, n), the Writes, the chance
    of each final roll (252, n))."""
    w = writes(m, u, p)
    flat = values.reshape(-1)
    future = np.nan_to_num(flat[w.next_state], nan=0.0)
    value = np.where(w.legal, w.gain + future, -np.inf)  # (13, 252, n)
    box = np.round(value, 9).argmax(axis=0)  # the first best in sheet order, as Strategy.best_box
    final = np.take_along_axis(value, box[None], axis=0)[0]  # (252, n)
    k1 = T.TRANSITION @ final  # (462, n): hold a keep, roll once more
    best1 = _best_keeps(k1)
    one_left = np.take_along_axis(k1, best1, axis=0)
    k2 = T.TRANSITION @ one_left  # holding all five with two rolls left: the roll kept in hand
    best2 = _best_keeps(k2)
    return box, w, final_roll_chances(best1, best2)


def _best_keeps(keep_values: np.ndarray) -> np.ndarray:
    """(252, n) the best keep (index into KEEPS) for each roll, ties as Strategy settles them."""
    padded = np.vstack([np.round(keep_values, 9), np.full((1, keep_values.shape[1]), -np.inf)])
    choice = padded[_SORTED_SUBKEEPS].argmax(axis=1)  # (252, n): the first best of each roll's keeps
    return _SORTED_SUBKEEPS[np.arange(T.N_ROLLS)[:, None], choice]


def final_roll_chances(best1: np.ndarray, best2: np.ndarray) -> np.ndarray:
    """(252, n): the chance of each final roll when a turn holds best2 after its first roll (all five:
    stop) and best1 after its second."""
    n = best1.shape[1]
    cols = np.arange(n)
    stop = T.KEEP_SIZE[best2] == 5
    first = np.broadcast_to(T.FIRST_ROLL[:, None], best2.shape)
    w = np.where(stop, first, 0.0)
    mass2 = np.bincount(
        (best2 * n + cols).ravel(), weights=np.where(stop, 0.0, first).ravel(), minlength=T.N_KEEPS * n
    ).reshape(T.N_KEEPS, n)
    second = T.TRANSITION.T @ mass2
    mass1 = np.bincount((best1 * n + cols).ravel(), weights=second.ravel(), minlength=T.N_KEEPS * n)
    return w + T.TRANSITION.T @ mass1.reshape(T.N_KEEPS, n)


class _Builder:
    def __init__(self, tail: float):
        self.tail = tail
        self.row_of = np.full(N_FLAT, -1, dtype=np.int64)
        full = flat_index(np.array([T.ALL_FILLED]), np.arange(T.N_UPPER)[:, None], np.arange(2)[None, :])
        self.row_of[full.ravel()] = 0
        self.lo = [np.zeros(1, dtype=np.int64)]
        self.lengths = [np.ones(1, dtype=np.int64)]
        self.chunks = [np.ones(1)]
        self.rows = 1
        self._flush()

    def _flush(self) -> None:
        self.lo_all = np.concatenate(self.lo)
        lengths = np.concatenate(self.lengths)
        self.start_all = np.concatenate([[0], np.cumsum(lengths)])
        self.data_all = np.concatenate(self.chunks)
        self.lo, self.lengths, self.chunks = [self.lo_all], [lengths], [self.data_all]

    def states(self, values: np.ndarray, m, u, p) -> None:
        """Add the rows of states (m, u, p), whose next states all have theirs."""
        box, w, chances = expected_total_play(values, m, u, p)
        n = len(m)
        gain = np.take_along_axis(w.gain, box[None], axis=0)[0]
        row = self.row_of[np.take_along_axis(w.next_state, box[None], axis=0)[0]]
        if (row < 0).any():
            raise AssertionError("a next state has no distribution yet")
        state = np.broadcast_to(np.arange(n), gain.shape)
        keys, inverse = np.unique(
            ((state * self.rows + row) * _GAIN_SPAN + gain).ravel(), return_inverse=True
        )
        weight = np.bincount(inverse, weights=chances.ravel())
        j_state, rest = np.divmod(keys, self.rows * _GAIN_SPAN)
        j_row, j_gain = np.divmod(rest, _GAIN_SPAN)
        first = j_gain + self.lo_all[j_row]
        length = self.start_all[j_row + 1] - self.start_all[j_row]
        lo = np.full(n, np.iinfo(np.int64).max)
        np.minimum.at(lo, j_state, first)
        hi = np.zeros(n, dtype=np.int64)
        np.maximum.at(hi, j_state, first + length)
        width = int((hi - lo).max())
        offset = j_state * width + first - lo[j_state]
        # Every mass of every pair, moved along and summed into the state's row, in one bincount.
        total = int(length.sum())
        pair = np.repeat(np.arange(len(keys)), length)
        pos = np.arange(total) - np.repeat(np.cumsum(length) - length, length)
        masses = self.data_all[self.start_all[j_row][pair] + pos] * weight[pair]
        dense = np.bincount(offset[pair] + pos, weights=masses, minlength=n * width).reshape(n, width)
        for i in range(n):
            self._add(lo[i], dense[i, : hi[i] - lo[i]])

    def _add(self, lo: int, masses: np.ndarray) -> None:
        """One row, its tails of less than `tail` folded into the edge totals."""
        left = np.cumsum(masses)
        a = int(np.searchsorted(left, self.tail, side="right"))
        right = np.cumsum(masses[::-1])
        b = len(masses) - int(np.searchsorted(right, self.tail, side="right"))
        a = min(a, b - 1)
        kept = masses[a:b].copy()
        kept[0] += left[a - 1] if a else 0.0
        kept[-1] += right[len(masses) - b - 1] if b < len(masses) else 0.0
        self.lo.append(np.array([lo + a]))
        self.lengths.append(np.array([len(kept)]))
        self.chunks.append(kept)
        self.rows += 1


def build(
    values: np.ndarray,
    *,
    min_layer: int = 0,
    progress: Progress | None = None,
    chunk: int = CHUNK,
    tail: float = TAIL,
) -> Outcomes:
    """The distributions of every state with at least `min_layer` boxes filled (0: every state), in
    float64, from the solved table `values` (Strategy.values)."""
    reach = solver.reachable_mask()
    values = class_values(values, reach)
    layers = {layer: solver._layer_states(layer, reach) for layer in range(min_layer, T.N_BOXES)}
    total = sum(len(m) for m, _u, _p in layers.values())
    done = 0
    b = _Builder(tail)
    for layer in range(T.N_BOXES - 1, min_layer - 1, -1):
        m, u, p = layers[layer]
        first_row = b.rows
        for lo in range(0, len(m), chunk):
            sl = slice(lo, lo + chunk)
            b.states(values, m[sl], u[sl], p[sl])
            done += len(m[sl])
            if progress is not None:
                progress(done, total)
        b.row_of[flat_index(m, u, p)] = np.arange(first_row, b.rows)
        _share_rows(b.row_of, layer, reach)
        b._flush()
    return Outcomes(b.row_of, b.lo_all, b.start_all, b.data_all, min_layer)


def class_values(values: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """The table with the value of every class's representative: the solver computes the class of "no
    upper bonus left to win" at upper total 63 even where 63 cannot occur, and marks it NaN afterwards
    (unreachable); the builder needs it, and it is the value of any reachable member of the class."""
    out = values.copy()
    m, u, p = np.nonzero(reach)
    no_bonus = solver.UPPER_REP[m & T.UPPER_MASK, u] == T.UPPER_CAP
    out[m[no_bonus], T.UPPER_CAP, p[no_bonus]] = values[m[no_bonus], u[no_bonus], p[no_bonus]]
    return out


def _share_rows(row_of: np.ndarray, layer: int, reach: np.ndarray) -> None:
    """Every reachable state of the layer reads the row of its class's representative (solver.UPPER_REP)."""
    masks = np.flatnonzero(layer == T.POPCOUNT)
    m, u, p = np.nonzero(reach[masks])
    m = masks[m]
    row_of[flat_index(m, u, p)] = row_of[flat_index(m, solver.UPPER_REP[m & T.UPPER_MASK, u], p)]
