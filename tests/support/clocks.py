"""Clocks for tests that must not depend on how long the machine has been up."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable


def clock_started_at(start: float) -> Callable[[], float]:
    """A monotonic clock that reads `start` now and then runs at real speed: `time.monotonic()` counts
    from boot, so on a machine booted a moment ago it is small. Code that takes 0.0 for "long ago"
    breaks there and nowhere else."""
    real = time.monotonic
    offset = real() - start
    return lambda: real() - offset


class StallingTimerClock:
    """Stands in for the clock Textual's timers read. The next `readings` taken by one-shot timers
    (`set_timer`) each jump a second, as if the process were held up (pre-empted on a busy machine,
    another thread holding the GIL) between such a timer's start and its first check: the timer then
    counts its only tick as missed and never calls back. Readings by repeating timers (the screen's
    refresh) are left alone, so the stall lands where the test means it to."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._stalls = 0

    def stall_next(self, readings: int = 2) -> None:
        self._stalls = readings

    def get_time(self) -> float:
        timer = sys._getframe(1).f_locals.get("self")
        if self._stalls and getattr(timer, "_repeat", None) == 0:
            self._stalls -= 1
            self._offset += 1.0
        return time.monotonic() + self._offset


class SteppedClock:
    """Epoch time that moves only when the test says (`advance`), with a sleep on it: the cache
    warmer's `WarmingClock`, so tests drive half an hour of idleness without waiting."""

    def __init__(self, start: float) -> None:
        self.t = start
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.t + seconds, future))
        await future

    @property
    def sleeping(self) -> int:
        """How many sleepers wait (a cancelled one no longer counts)."""
        return sum(1 for _, future in self._sleepers if not future.done())

    def advance(self, seconds: float) -> None:
        self.t += seconds
        for wake, future in self._sleepers:
            if wake <= self.t and not future.done():
                future.set_result(None)
        self._sleepers = [(wake, future) for wake, future in self._sleepers if not future.done()]
