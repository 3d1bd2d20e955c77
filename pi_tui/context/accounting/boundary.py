"""The keep-recent boundary: where the next compaction would cut, without re-walking the whole branch.

The answer is the compaction algorithm's `find_cut_point(items, start, len(items), keepRecentTokens)
.first_kept_index` over the span `prepare_compaction` uses (from the previous compaction's first kept
entry to the leaf), built from the same pieces (`boundary_start`, `is_valid_cut`, `estimate_tokens`,
`move_back_over_settings`) but in a different
order: `find_cut_point` first lists every legal cut of the span, O(branch) per call; here the budget
walk from the leaf comes first and legal cuts are looked for only where they matter, with each entry's
chars/4 estimate cached by entry id (entries never change). A property test checks the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.cut_point import is_valid_cut, move_back_over_settings
from pi_tui.context.compaction.preparation import boundary_start, ends_with_compaction
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import SessionEntry


class BoundaryFinder:
    """Finds the first kept index; remembers each message entry's estimate."""

    def __init__(self) -> None:
        self._estimates: dict[str, int] = {}

    def _estimate(self, entry: SessionEntry) -> int | None:
        """chars/4 of a message entry's message; None for every other entry."""
        if entry.type != "message":
            return None
        value = self._estimates.get(entry.id)
        if value is None:
            message = entry_message(entry)
            if message is None:
                return None
            value = estimate_tokens(message)
            self._estimates[entry.id] = value
        return value

    def first_kept_index(self, items: Sequence[SessionEntry], start: int, keep_recent_tokens: int) -> int:
        end = len(items)
        crossing = None
        accumulated = 0
        for index in range(end - 1, start - 1, -1):
            estimate = self._estimate(items[index])
            if estimate is None:
                continue
            accumulated += estimate
            if accumulated >= keep_recent_tokens:
                crossing = index
                break
        cut = None
        if crossing is not None:
            cut = next((i for i in range(crossing, end) if is_valid_cut(items[i])), None)
        if cut is None:
            # Budget never reached, or only tool results after the crossing: pi keeps from the span's
            # first legal cut (or from `start` when there is none).
            cut = next((i for i in range(start, end) if is_valid_cut(items[i])), None)
            if cut is None:
                return start
        return move_back_over_settings(items, cut, start)

    def keep_boundary(
        self,
        items: Sequence[SessionEntry],
        settings: CompactionSettings,
        compaction_index: int,
        position: Callable[[str], int | None],
    ) -> str | None:
        """The id of the first entry the next compaction would keep; None when the branch is empty or
        ends with a compaction (nothing to compact)."""
        if not items or ends_with_compaction(items):
            return None
        start = boundary_start(items, compaction_index, position)
        cut = self.first_kept_index(items, start, settings.keep_recent_tokens)
        return items[cut].id if cut < len(items) else None
