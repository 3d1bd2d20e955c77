"""Whether a request could read what the previous one wrote to an Anthropic-style marker cache.

Each marker of a request writes the prefix ending there. The next request reads a written prefix only if
it is a prefix of it and ends at most `LOOKBACK` content blocks before one of the next request's own
markers: the provider looks back that far from each marker, no further. pi-tui moves the newest-message
marker every turn by design; that costs nothing while the earlier prefix ends within the lookback of a
marker. It breaks the cache when it does not: the marker that wrote it is gone, or more than `LOOKBACK`
blocks (a long run of tool calls and results) separate it from the next marker.

Only the previous request's markers are weighed: when the current request repeats the previous one whole,
earlier requests wrote nothing longer that it could still read (their markers end no later).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.context.accounting.wire_facts import Marker

LOOKBACK = 20
"""Anthropic's documented lookback, in content blocks, from each cache marker."""


@dataclass(frozen=True)
class MarkerBreak:
    lost: Marker
    """The previous request's longest written prefix, which the current request could not read."""
    gap: int | None
    """Blocks from its end to the current request's next marker (None: no marker at or after it)."""
    read: Marker | None
    """The longest prefix the current request could still read (None: nothing)."""


def gap_to_next_marker(block_end: int, markers: Sequence[Marker]) -> int | None:
    ahead = [end - block_end for _, end in markers if end >= block_end]
    return min(ahead) if ahead else None


def readable(block_end: int, markers: Sequence[Marker]) -> bool:
    gap = gap_to_next_marker(block_end, markers)
    return gap is not None and gap <= LOOKBACK


def marker_break(written: Sequence[Marker], current: Sequence[Marker]) -> MarkerBreak | None:
    """None if the longest prefix `written` by the previous request (all of which the current request
    repeats) is readable through the `current` markers; else what was lost and what could be read."""
    if not written:
        return None
    longest_first = sorted(written, key=lambda marker: marker[1], reverse=True)
    lost = longest_first[0]
    if readable(lost[1], current):
        return None
    read = next((marker for marker in longest_first[1:] if readable(marker[1], current)), None)
    return MarkerBreak(lost, gap_to_next_marker(lost[1], current), read)
