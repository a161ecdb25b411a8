"""The live bar's computation in a process of its own, at a lower CPU priority.

Worked out in a thread of the web process, the simulation (numpy gathers that hold the GIL, about
0.05-0.4 s a position) delayed every socket the process serves: measured with bench/live_games.py,
a move's median latency went from 13 to 62 ms with every game watched. In a child process, niced,
it takes the GIL of no web process and the CPU only when the web processes leave it. One child per
web process, started on first use (spawned: it forks no threads or event loop); it keeps its own
table and its own cache of seats' distributions. Pure: the child imports no Django.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor

from dicegame.rules.scoring import Scoresheet
from dicegame.strategy import Strategy, win_review, win_tables
from dicegame.strategy import winner as WN
from dicegame.strategy import winprob as W

NICENESS = 10
# A seat's distribution of final totals is at most ~13 KB: 2,048 of them stay under 30 MB.
CACHED_SEATS = 2048

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()
_values = None
_cache = None


class _Lru(OrderedDict):
    """A seat's distributions by its position, the least recently used going first when full (clearing
    them all at once made every game's next position re-play all its seats)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def get(self, key, default=None):
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if len(self) > self.size:
            self.popitem(last=False)


def _start() -> None:
    global _values, _cache
    os.nice(NICENESS)

    _values = Strategy.shared().values
    _cache = _Lru(CACHED_SEATS)


def _chances(seats, n: int, seed: int) -> list[float]:
    positions = [
        W.SeatPosition(Scoresheet.from_dict(sheet), dice, left, out) for sheet, dice, left, out in seats
    ]
    return W.win_chances(_values, positions, n=n, seed=seed, cache=_cache)


_win_play = None


def _winner():
    """The child's computer that plays to win: its own tables, loaded (and checked) on first use."""
    global _win_play
    if _win_play is None:
        _win_play = WN.WinPlay(Strategy.shared(), win_tables.shared())
    return _win_play


def _hint(sheet, dice, rolls_left: int, opponents) -> dict:
    return WN.hint_figures(
        _winner(), Scoresheet.from_dict(sheet), dice, rolls_left, [Scoresheet.from_dict(o) for o in opponents]
    )


def _decisions(turns, seats, field) -> dict:
    play = _winner()
    return win_review.decision_chances(play, turns, seats, aim_maker(play.outcomes, field))


EXPECTED_TOTAL_FIELD = "expected-total"


def aim_maker(outcomes, field):
    """The aim of each decision: the share of `field` beaten (a list of chances by total, or
    EXPECTED_TOTAL_FIELD: a field of expected-total players), or, None, finishing first against the
    other seats' sheets as they stood."""
    if field == EXPECTED_TOTAL_FIELD:
        field = WN.final_totals(outcomes, Scoresheet())
        if field is None:  # the tables do not reach back to the empty sheet
            return lambda seat, sheets: None
    if field is not None:
        aim = WN.against_field(field, "field")
        return lambda seat, sheets: aim
    return lambda seat, sheets: WN.against(outcomes, [s for k, s in sheets.items() if k != seat])


def _course(seats: int, steps, n: int, seed: int) -> list[list[float]]:

    steps = [(seat, Scoresheet.from_dict(sheet)) for seat, sheet in steps]
    return W.course(_values, seats, steps, n=n, seed=seed)


def available() -> bool:
    """Whether this process may start the child (a daemonic process, such as the test suite's live
    server, may not: there the work stays in the worker thread)."""
    return not multiprocessing.current_process().daemon


def chances(seats, n: int, seed: int) -> list[float]:
    """win_chances(...) worked out in the child process (the calling thread waits, the GIL free)."""
    # A sheet travels as its dict (a Scoresheet holds a mappingproxy, which does not pickle).
    plain = [(s.sheet.to_dict(), s.dice, s.rolls_left, s.out) for s in seats]
    return _call(_chances, plain, n, seed)


def course(seats: int, steps, n: int, seed: int) -> list[list[float]]:
    """winprob.course(...) (a finished game's chances, for its review) in the child process."""
    return _call(_course, seats, [(seat, sheet.to_dict()) for seat, sheet in steps], n, seed)


def hint(sheet: Scoresheet, dice, rolls_left: int, opponents) -> dict:
    """winner.hint_figures(...) for a position, worked out in the child process."""
    return _call(_hint, sheet.to_dict(), tuple(dice), rolls_left, [o.to_dict() for o in opponents])


def decisions(turns, seats, field) -> dict:
    """win_review.decision_chances(...) of a finished game, in the child process."""
    return _call(_decisions, list(turns), list(seats), field)


def _call(function, *args):
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_start
            )
        pool = _pool
    try:
        return pool.submit(function, *args).result()
    except Exception:
        # A broken pool (the child was killed) is replaced on the next call.
        with _lock:
            if _pool is pool:
                _pool = None
        raise
