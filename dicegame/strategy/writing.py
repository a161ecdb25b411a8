"""Every way to write every final roll, for many sheet states at once: legal or not, the points it
gains (the upper bonus and the Penta bonus included) and the sheet state it leads to.

The solver folds these into a maximum as it goes; the tables that follow the points themselves (the
final-total distributions in `outcomes`, the chances in `reach` and `winner`) need them spelled out,
box by box, so that a box's points can move a whole distribution along. Pure numpy, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicegame.rules.scoring import JOKER_LOWER_BOXES, PENTA_BONUS, PENTA_SCORE, UPPER_BONUS, Box

from . import tables as T

N_BOX = T.N_BOXES
_BITS = np.array([1 << b.value for b in Box], dtype=np.int64)
_IS_UPPER = np.array([b.is_upper for b in Box])
_JOKER_LOWER = np.array([b in JOKER_LOWER_BOXES for b in Box])
_PENTA = Box.PENTA.value
# Points of each roll in each box: ordinary, and for the six Pentas as a joker in a lower box.
_SCORE = T.SCORE.T.astype(np.int64)  # (13, 252)
_FACE_OF_ROLL = T.ROLL_COUNTS.argmax(axis=1)  # face-1 of a Penta roll (meaningful for Pentas only)
_JOKER_POINTS = T.JOKER_SCORE[_FACE_OF_ROLL].T.astype(np.int64)  # (13, 252): a Penta of that face
_OWN_BOX = np.zeros((N_BOX, T.N_ROLLS), dtype=bool)  # [box, roll]: the Penta's own upper box
_OWN_BOX[_FACE_OF_ROLL[T.PENTA_ROLLS], T.PENTA_ROLLS] = True


def flat_index(m: np.ndarray, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Index into a (8192, 64, 2) table raveled (as the solver's `_index`)."""
    return (m * T.N_UPPER + u) * 2 + p


@dataclass(frozen=True)
class Writes:
    """For n states (last axis), every box (first axis) and every final roll (second axis)."""

    legal: np.ndarray  # (13, 252, n) bool: the forced joker respected
    gain: np.ndarray  # (13, 252, n) int64: box points + upper bonus + Penta bonus
    next_state: np.ndarray  # (13, 252, n) int64: flat index of the sheet state after writing


def writes(m: np.ndarray, u: np.ndarray, p: np.ndarray) -> Writes:
    """Every legal way to write every roll in states (m, u, p), each with at least one open box."""
    m, u, p = (np.asarray(x, dtype=np.int64) for x in (m, u, p))
    n = len(m)
    open_ = (m[None, :] & _BITS[:, None]) == 0  # (13, n)
    points = np.broadcast_to(_SCORE[:, :, None], (N_BOX, T.N_ROLLS, n)).copy()
    legal = np.broadcast_to(open_[:, None, :], points.shape).copy()
    joker = T.IS_PENTA_ROLL[:, None] & (p[None, :] == 1)  # (252, n): a Penta with 50 in the Penta box
    if joker.any():
        rows, cols = np.nonzero(joker)
        own = _OWN_BOX[:, rows]  # (13, k)
        own_open = (own & open_[:, cols]).any(axis=0)
        lower_open = (_JOKER_LOWER[:, None] & open_[:, cols]).any(axis=0)
        # Its own upper box while open; else a lower joker box, at joker points; else 0 in any open box.
        may = np.where(
            own_open[None, :],
            own,
            np.where(lower_open[None, :], _JOKER_LOWER[:, None] & open_[:, cols], open_[:, cols]),
        )
        pts = np.where(
            own_open[None, :],
            _SCORE[:, rows],
            np.where(lower_open[None, :], _JOKER_POINTS[:, rows], 0),
        )
        legal[:, rows, cols] = may
        points[:, rows, cols] = pts
    upper_points = np.where(_IS_UPPER[:, None, None], points, 0)
    raw_upper = u[None, None, :] + upper_points
    next_u = np.where(_IS_UPPER[:, None, None], np.minimum(raw_upper, T.UPPER_CAP), u[None, None, :])
    bonus = np.where(
        _IS_UPPER[:, None, None] & (u[None, None, :] < T.UPPER_CAP) & (raw_upper >= T.UPPER_CAP),
        UPPER_BONUS,
        0,
    )
    next_p = np.broadcast_to(p[None, None, :], points.shape).copy()
    next_p[_PENTA] = (points[_PENTA] == PENTA_SCORE).astype(np.int64)
    gain = points + bonus + np.where(joker, PENTA_BONUS, 0)[None, :, :]
    next_m = m[None, None, :] | _BITS[:, None, None]
    return Writes(legal, gain, flat_index(next_m, next_u, next_p))
