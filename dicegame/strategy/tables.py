"""Small constant tables about five dice: every roll, every keep, how they connect, what they score.

Everything here is derived from `dicegame.rules.scoring` once, at import (about 0.1 s), so the solver
and the per-turn queries never call the pure-Python rules in a hot loop, and cannot disagree with them.

Keeps are multisets of 0 to 5 dice (462 of them); the 252 rolls are exactly the keeps of size 5.
Keeps are ordered by size, then by number of distinct faces (most first), then lexicographically.
The order matters for the solver: within each size the keeps with at least j distinct faces form a
prefix of the block, so "max over the j-th one-die-smaller parent" is an operation on a contiguous
slice, not on a scattered subset.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from dicegame.rules.scoring import JOKER_LOWER_BOXES, Box, joker_score, ordinary_score

N_BOXES = len(Box)
PENTA_BIT = 1 << Box.PENTA.value
UPPER_MASK = (1 << 6) - 1
ALL_FILLED = (1 << N_BOXES) - 1
UPPER_CAP = 63
N_UPPER = UPPER_CAP + 1
FACES = (1, 2, 3, 4, 5, 6)


def _keep_order(keep: tuple[int, ...]) -> tuple:
    return (len(keep), -len(set(keep)), keep)


KEEPS: tuple[tuple[int, ...], ...] = tuple(
    sorted(
        (k for size in range(6) for k in combinations_with_replacement(FACES, size)),
        key=_keep_order,
    )
)
KEEP_INDEX: dict[tuple[int, ...], int] = {k: i for i, k in enumerate(KEEPS)}
N_KEEPS = len(KEEPS)  # 462

# SIZE_START[s]:SIZE_START[s+1] is the block of keeps with s dice.
SIZE_START = np.array([sum(1 for k in KEEPS if len(k) < s) for s in range(7)], dtype=np.intp)
ROLL_OFFSET = int(SIZE_START[5])  # 210: the first roll's index among the keeps
ROLLS: tuple[tuple[int, ...], ...] = KEEPS[ROLL_OFFSET:]
ROLL_INDEX: dict[tuple[int, ...], int] = {r: i for i, r in enumerate(ROLLS)}
N_ROLLS = len(ROLLS)  # 252

KEEP_COUNTS = np.array([[k.count(f) for f in FACES] for k in KEEPS], dtype=np.int8)  # (462, 6)
ROLL_COUNTS = KEEP_COUNTS[ROLL_OFFSET:]  # (252, 6)
KEEP_SIZE = KEEP_COUNTS.sum(axis=1)
KEEP_LEX_RANK = np.empty(N_KEEPS, dtype=np.intp)  # rank of each keep as a tuple (for tie-breaking)
KEEP_LEX_RANK[sorted(range(N_KEEPS), key=KEEPS.__getitem__)] = np.arange(N_KEEPS)


def _multiset_probability(values: tuple[int, ...]) -> float:
    """Probability that len(values) fresh dice show exactly this multiset."""
    ways = factorial(len(values))
    for c in Counter(values).values():
        ways //= factorial(c)
    return ways / 6 ** len(values)


# CHILDREN[k, f-1]: the keep k with one more die of face f (only meaningful for keeps of size < 5).
CHILDREN = np.zeros((N_KEEPS, 6), dtype=np.intp)
for _i, _k in enumerate(KEEPS):
    if len(_k) < 5:
        for _f in FACES:
            CHILDREN[_i, _f - 1] = KEEP_INDEX[tuple(sorted((*_k, _f)))]

# PARENTS[k, j]: k with one die of its j-th distinct face removed; N_PARENTS[k] = distinct faces of k.
N_PARENTS = np.array([len(set(k)) for k in KEEPS], dtype=np.intp)
PARENTS = np.zeros((N_KEEPS, 5), dtype=np.intp)
for _i, _k in enumerate(KEEPS):
    for _j, _f in enumerate(sorted(set(_k))):
        _rest = list(_k)
        _rest.remove(_f)
        PARENTS[_i, _j] = KEEP_INDEX[tuple(_rest)]

# TRANSITION[k, r]: probability that rerolling the dice not in keep k gives roll r (dense, 462 x 252).
TRANSITION = np.zeros((N_KEEPS, N_ROLLS))
for _i, _k in enumerate(KEEPS):
    for _extra in combinations_with_replacement(FACES, 5 - len(_k)):
        TRANSITION[_i, ROLL_INDEX[tuple(sorted(_k + _extra))]] += _multiset_probability(_extra)
FIRST_ROLL = TRANSITION[0].copy()  # (252,) probability of each roll from no dice kept

# SUBKEEPS[r]: the keeps that are sub-multisets of roll r (at most 32), padded with N_KEEPS: append a
# -inf to a vector of keep values and SUBKEEPS gathers each roll's choices, the padding never winning.
_is_sub = (KEEP_COUNTS[None, :, :] <= ROLL_COUNTS[:, None, :]).all(axis=2)  # (252, 462)
SUBKEEPS = np.full((N_ROLLS, int(_is_sub.sum(axis=1).max())), N_KEEPS, dtype=np.intp)
for _r in range(N_ROLLS):
    _ks = np.flatnonzero(_is_sub[_r])
    SUBKEEPS[_r, : len(_ks)] = _ks

# SCORE[r, b]: ordinary points of roll r in box b (no joker).
SCORE = np.array([[ordinary_score(b, r) for b in Box] for r in ROLLS], dtype=np.int64)
PENTA_ROLLS = np.array([ROLL_INDEX[(f,) * 5] for f in FACES], dtype=np.intp)  # by face 1..6
IS_PENTA_ROLL = np.zeros(N_ROLLS, dtype=bool)
IS_PENTA_ROLL[PENTA_ROLLS] = True
# JOKER_SCORE[f-1, b]: points of a Penta of face f in lower box b played as a joker (0 elsewhere).
JOKER_SCORE = np.zeros((6, N_BOXES), dtype=np.int64)
for _f in FACES:
    for _b in JOKER_LOWER_BOXES:
        JOKER_SCORE[_f - 1, _b.value] = joker_score(_b, _f)


def reachable_uppers(filled_upper: int) -> np.ndarray:
    """The capped upper totals (0..63) a sheet whose filled upper boxes are `filled_upper` can show."""
    totals = {0}
    for f in FACES:
        if filled_upper >> (f - 1) & 1:
            totals = {min(UPPER_CAP, t + f * c) for t in totals for c in range(6)}
    return np.array(sorted(totals), dtype=np.intp)


# REACHABLE_UPPER[m]: bool (64,) for each 6-bit set of filled upper boxes.
REACHABLE_UPPER = np.zeros((64, N_UPPER), dtype=bool)
for _m in range(64):
    REACHABLE_UPPER[_m, reachable_uppers(_m)] = True

POPCOUNT = np.array([bin(m).count("1") for m in range(1 << N_BOXES)], dtype=np.intp)

del _i, _k, _f, _j, _rest, _extra, _r, _ks, _b, _m, _is_sub
