"""The process's queue of winning-chance work, fair between people and between games.

Each job belongs to a game (its key: the bar of game 7, the review's course of game 7) and to the
person the game belongs to (its driver: the host of a game against friends, the person of a game
against the computer). The one worker thread of the process takes them in this order:

- round-robin over drivers: the driver whose turn it is gives one job, then goes to the back of the
  line (a person with ten busy games has one turn in the rotation, as a person with one);
- round-robin over a driver's games: their game that has waited longest goes first;
- one job waiting per key: a newer position of a game replaces the one that waits, in its place in the
  line (only the newest position is worth working out; a burst of moves costs one computation);
- at most `per_driver` games of one driver waiting at once: a job for one more is refused (`put` says
  so), and that game's bar comes with its next position instead.

The first version took the newest job of any game first (`dict.popitem`): a game whose positions kept
coming was always the newest and went first, and the others' bars waited behind it for as long as it
kept moving (a victim's bar 26 s late behind ten busy games; a bar that stayed on the same figures
for four written boxes). Pure Python: no Django, so the tests can drive it alone.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable

Work = Callable[[], object]


class FairQueue:
    def __init__(self, per_driver: int):
        self.per_driver = per_driver
        self._jobs: dict[Hashable, tuple[Hashable, Work]] = {}
        # The drivers with work waiting, in turn order; each with its games, longest waiting first.
        self._drivers: OrderedDict[Hashable, deque] = OrderedDict()
        self._ready = threading.Condition()
        self._working = 0

    def put(self, key: Hashable, driver: Hashable, work: Work) -> bool:
        """Queue `work` for `key` (replacing the job that waits for it, if any). False: refused, the
        driver has `per_driver` other games waiting."""
        with self._ready:
            waiting = self._jobs.get(key)
            if waiting is not None:
                self._jobs[key] = (waiting[0], work)
                return True
            games = self._drivers.get(driver)
            if games is not None and len(games) >= self.per_driver:
                return False
            if games is None:
                games = self._drivers[driver] = deque()
            games.append(key)
            self._jobs[key] = (driver, work)
            self._ready.notify()
            return True

    def take(self, timeout: float | None = None) -> tuple[Hashable, Work] | None:
        """The next job (key, work) in the fair order, waiting up to `timeout` seconds for one (None:
        for ever); None if none came."""
        with self._ready:
            if not self._ready.wait_for(lambda: self._drivers, timeout):
                return None
            driver, games = self._drivers.popitem(last=False)
            key = games.popleft()
            if games:
                self._drivers[driver] = games  # the back of the line
            _driver, work = self._jobs.pop(key)
            self._working += 1
            return key, work

    def done(self) -> None:
        """The job last taken is done (its worker says so)."""
        with self._ready:
            self._working -= 1
            self._ready.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until nothing waits and nothing is being worked on (False: still busy after `timeout`)."""
        with self._ready:
            return self._ready.wait_for(lambda: not self._jobs and not self._working, timeout)

    def waiting(self, driver: Hashable | None = None) -> int:
        """How many jobs wait (of one driver, if given)."""
        with self._ready:
            if driver is None:
                return len(self._jobs)
            return len(self._drivers.get(driver, ()))

    def __contains__(self, key: Hashable) -> bool:
        with self._ready:
            return key in self._jobs
