"""Token counts as pi prints them (`formatTokens`): 999, 1.2k, 45k, 1.2M, 12M.

One function for every place that shows such a count (the footer, the activity line, cache-miss
notices), so the same count never reads two ways. Rounding is JavaScript's `Math.round` (halves up),
as in pi; Python's `round` halves to even.
"""

from __future__ import annotations

import math


def js_round(value: float) -> int:
    """JavaScript's `Math.round`."""
    return math.floor(value + 0.5)


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{js_round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{js_round(count / 1_000_000)}M"
