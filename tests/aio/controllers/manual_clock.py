"""A clock the test moves by hand: ``advance(seconds)`` runs the timers that came due."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable


class _Timer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.time = start
        self._timers: list[tuple[float, int, _Timer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer()
        heapq.heappush(self._timers, (self.time + delay, next(self._order), timer, callback))
        return timer

    @property
    def pending(self) -> int:
        return sum(1 for _, _, t, _ in self._timers if not t.cancelled)

    def advance(self, seconds: float) -> None:
        self.time += seconds
        while self._timers and self._timers[0][0] <= self.time:
            _, _, timer, callback = heapq.heappop(self._timers)
            if not timer.cancelled:
                callback()
