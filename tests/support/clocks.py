"""Clocks for tests that must not depend on how long the machine has been up."""

from __future__ import annotations

import time
from collections.abc import Callable


def clock_started_at(start: float) -> Callable[[], float]:
    """A monotonic clock that reads `start` now and then runs at real speed: `time.monotonic()` counts
    from boot, so on a machine booted a moment ago it is small. Code that takes 0.0 for "long ago"
    breaks there and nowhere else."""
    real = time.monotonic
    offset = real() - start
    return lambda: real() - offset
