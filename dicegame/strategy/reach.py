"""Exact play for a goal in points: the best chance of scoring at least t more, for every t at once.

The solver maximises the expected points to come. Here the aim is a function of the points: U(g), what
ending the game with g more points is worth (1 from t on: "score at least t"; the chance of finishing
first with that total: "win"). Each state gets a vector over g, V_s(g): the most the rest of the game
can be worth to a player who has already gained g points since the reference, the play chosen per g.
Writing a box that gains k points moves the vector along by k. Everything else is the solver's turn,
run on n states x G points as columns (`solver.roll_values_with_reroll` unchanged), so it is vectorised
over g as over states. Beyond G - 1 the aim must not change any more: gains past it are clipped there.

- `chances_at_least`: the tables of the issue, P*(s, t) = the best chance of at least t more points,
  for the states of the last layers (tests, and the measurements of what full tables would add).
- `SubGame`: the exact search near the end of a game: the states one player can still reach, with the
  aim of finishing first against the opponents' distributions (`winner`).

Pure numpy, no Django.
"""

from __future__ import annotations

import numpy as np

from dicegame.rules.scoring import Box

from . import solver
from . import tables as T
from .writing import flat_index, writes

_FULL = int(flat_index(T.ALL_FILLED, 0, 0))
_ILLEGAL = -1.0  # aims are chances in [0, 1]: a box that cannot be written is worth less than any


class PointTable:
    """Vectors over g for a set of states: the rows of `values` (rows, G), found by flat state index."""

    def __init__(self, width: int, terminal: np.ndarray):
        self.width = width
        self.values = np.asarray(terminal, dtype=float).reshape(1, width)
        full = flat_index(T.ALL_FILLED, np.arange(T.N_UPPER)[:, None], np.arange(2)[None, :]).ravel()
        self._keys = [full]
        self._rows = [np.zeros(len(full), dtype=np.intp)]
        self._index()

    def _index(self) -> None:
        keys, rows = np.concatenate(self._keys), np.concatenate(self._rows)
        order = np.argsort(keys, kind="stable")
        self.keys, self.key_rows = keys[order], rows[order]
        self._keys, self._rows = [self.keys], [self.key_rows]

    def add(self, flats: np.ndarray, values: np.ndarray) -> None:
        first = len(self.values)
        self.values = np.concatenate([self.values, values])
        self.alias(flats, np.arange(first, first + len(flats)))

    def alias(self, flats: np.ndarray, rows: np.ndarray) -> None:
        """States `flats` read rows `rows`."""
        self._keys.append(np.asarray(flats, dtype=np.int64))
        self._rows.append(np.asarray(rows, dtype=np.intp))
        self._index()

    def row_indices(self, flats: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.keys, flats)
        if (at >= len(self.keys)).any() or (self.keys[np.minimum(at, len(self.keys) - 1)] != flats).any():
            raise KeyError("a state the table has no vector for")
        return self.key_rows[at]

    def row(self, flat: int) -> int:
        return int(self.row_indices(np.array([flat]))[0])


def representative(flats: np.ndarray) -> np.ndarray:
    """The flat index of the state whose future each state shares (solver.UPPER_REP)."""
    m, rest = np.divmod(flats, T.N_UPPER * 2)
    u, p = np.divmod(rest, 2)
    return flat_index(m, solver.UPPER_REP[m & T.UPPER_MASK, u], p)


def final_over_points(table: PointTable, m, u, p) -> np.ndarray:
    """(252, n, G): each final roll's value for every g, its box chosen per g (the best legal box)."""
    w = writes(m, u, p)
    n, width = len(m), table.width
    rows = table.row_indices(representative(np.where(w.legal, w.next_state, _FULL)))
    # One vector per distinct (next state, points gained): a few dozen per state, then shared by rolls.
    pairs, inverse = np.unique(rows * 256 + w.gain, return_inverse=True)
    pair_rows, pair_gain = np.divmod(pairs, 256)
    g = np.minimum(np.arange(width)[None, :] + pair_gain[:, None], width - 1)
    pair_values = np.vstack([table.values[pair_rows[:, None], g], np.full((1, width), _ILLEGAL)])
    index = np.where(w.legal, inverse.reshape(w.legal.shape), len(pairs))  # (13, 252, n)
    out = np.full((T.N_ROLLS, n, width), _ILLEGAL)
    for b in range(T.N_BOXES):
        if w.legal[b].any():
            np.maximum(out, np.take(pair_values, index[b], axis=0), out=out)
    return out


def start_over_points(table: PointTable, m, u, p) -> np.ndarray:
    """(n, G): V_s(g) from the start of the turn of states (m, u, p), every later state in `table`."""
    n, width = len(m), table.width
    keeps = np.empty((T.N_KEEPS, n * width))
    keeps[T.ROLL_OFFSET :] = final_over_points(table, m, u, p).reshape(T.N_ROLLS, n * width)
    tmp = np.empty((T.N_ROLLS, n * width))
    solver.roll_values_with_reroll(keeps, tmp)
    solver.roll_values_with_reroll(keeps, tmp)
    return (T.FIRST_ROLL @ keeps[T.ROLL_OFFSET :]).reshape(n, width)


def solve_layer(table: PointTable, m: np.ndarray, u: np.ndarray, p: np.ndarray, chunk: int) -> None:
    """Add the states (m, u, p) of one layer to `table`, which holds every state they lead to."""
    out = np.empty((len(m), table.width))
    for lo in range(0, len(m), chunk):
        sl = slice(lo, lo + chunk)
        out[sl] = start_over_points(table, m[sl], u[sl], p[sl])
    table.add(flat_index(m, u, p), out)


def chances_at_least(min_layer: int, width: int, chunk: int = 8) -> tuple[PointTable, np.ndarray]:
    """P*(s, t) for t = 0 .. width - 1 and every state with at least `min_layer` boxes filled (the
    solver's classes of equal futures): (table, t) with P*(s, t) = table.values[row, width - 1 - t].
    Exact for every t below width (the aim is 1 from g = width - 1 on, and clipping there is exact)."""
    terminal = np.zeros(width)
    terminal[-1] = 1.0
    table = PointTable(width, terminal)
    reach = solver.reachable_mask()
    for layer in range(T.N_BOXES - 1, min_layer - 1, -1):
        solve_layer(table, *solver._layer_states(layer, reach), chunk)
        masks = np.flatnonzero(layer == T.POPCOUNT)
        m, u, p = np.nonzero(reach[masks])
        m = masks[m]
        rep = flat_index(m, solver.UPPER_REP[m & T.UPPER_MASK, u], p)
        table.alias(flat_index(m, u, p), table.row_indices(rep))
    return table, np.arange(width)


def descendants(mask: int, upper: int, penta: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The states a sheet at (mask, upper, penta) can reach after one or more turns and before its
    last, one per class of equal futures, by layer from the last back: [(m, u, p) arrays, ...]."""
    open_boxes = [b for b in range(T.N_BOXES) if not mask >> b & 1]
    by_layer: dict[int, set[tuple[int, int, int]]] = {}
    for s in range(1, 1 << len(open_boxes)):
        added = [open_boxes[i] for i in range(len(open_boxes)) if s >> i & 1]
        m = mask | sum(1 << b for b in added)
        if m == T.ALL_FILLED:
            continue
        uppers = {upper}
        for b in added:
            if b < 6:
                uppers = {min(T.UPPER_CAP, x + (b + 1) * c) for x in uppers for c in range(6)}
        pentas = {penta} if Box.PENTA.value not in added or penta else {0, 1}
        layer = by_layer.setdefault(int(T.POPCOUNT[m]), set())
        for x in uppers:
            rep = int(solver.UPPER_REP[m & T.UPPER_MASK, x])
            for q in pentas:
                layer.add((m, rep, q))
    out = []
    for layer in sorted(by_layer, reverse=True):
        states = sorted(by_layer[layer])
        out.append(tuple(np.array(c, dtype=np.int64) for c in zip(*states, strict=True)))
    return out


def best_chances(mask: int, upper: int, penta: int, width: int) -> np.ndarray:
    """(width,): P*(t) for t = 0 .. width - 1 from the start of the next turn of one state, its
    descendants searched exactly (cheap with a few boxes left)."""
    terminal = np.zeros(width)
    terminal[-1] = 1.0
    table = PointTable(width, terminal)
    for m, u, p in descendants(mask, upper, penta):
        solve_layer(table, m, u, p, chunk=16)
    one = [np.array([x], dtype=np.int64) for x in (mask, upper, penta)]
    return start_over_points(table, *one)[0, ::-1]
