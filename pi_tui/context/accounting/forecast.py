"""Forecast: how big the next request will be, and how many typical turns fit before
auto-compaction.

A turn is a user message (or a `!cmd` run) and every message after it up to the next one; its growth is
the tiktoken total of those messages. The typical growth is the median of the last `GROWTH_WINDOW`
turns of the current context: the median ignores one huge tool output or one one-word exchange, and a
short window follows the session's current pace.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

GROWTH_WINDOW = 5


@dataclass(frozen=True)
class Forecast:
    next_request_tokens: int
    pending_tokens: int
    typical_turn_tokens: int | None
    turns_sampled: int
    turns_left: int | None
    """None when there is no growth history yet; 0 when the next request already crosses the threshold."""


def forecast(
    *,
    used_tokens: int,
    threshold: int,
    turn_sizes: Sequence[int],
    pending_tokens: int = 0,
    window: int = GROWTH_WINDOW,
) -> Forecast:
    next_request = used_tokens + pending_tokens
    recent = [size for size in turn_sizes[-window:]] if window > 0 else []
    typical = int(statistics.median(recent)) if recent else None
    if next_request > threshold:
        turns_left: int | None = 0
    elif typical is None or typical <= 0:
        turns_left = None
    else:
        turns_left = (threshold - next_request) // typical
    return Forecast(next_request, pending_tokens, typical, len(recent), turns_left)
