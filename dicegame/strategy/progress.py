"""A plain text progress bar for long runs (building the table, simulating games), on any stream."""

from __future__ import annotations

import time
from typing import TextIO


class ProgressBar:
    """Call with (done, total); redraws one line at most ~10 times a second, ends it when done."""

    def __init__(self, stream: TextIO, label: str, width: int = 40):
        self.stream = stream
        self.label = label
        self.width = width
        self._start = time.perf_counter()
        self._drawn = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self._drawn < 0.1:
            return
        self._drawn = now
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} {now - self._start:.1f}s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
