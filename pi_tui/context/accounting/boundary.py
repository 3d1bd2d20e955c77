"""The keep-recent boundary: where the next compaction would cut, without re-walking the whole branch.

The answer is the compaction algorithm's `find_cut_point(items, start, len(items), keepRecentTokens)
.first_kept_index` over the span `prepare_compaction` uses (from the previous compaction's first kept
entry to the leaf), built from the same pieces (`is_valid_cut`, `estimate_tokens`) but in a different
order: `find_cut_point` first lists every legal cut of the span, O(branch) per call; here the budget
walk from the leaf comes first and legal cuts are looked for only where they matter, with each entry's
chars/4 estimate cached by entry id (entries never change). A property test checks the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.cut_point import is_valid_cut
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.context.path_items import PathItem


def span_start(
    items: Sequence[PathItem], compaction_index: int, position: Callable[[str], int | None]
) -> int:
    """pi's boundary start: the previous compaction's first kept entry (else just after it), or 0."""
    if compaction_index < 0:
        return 0
    info = items[compaction_index].compaction
    found = position(info.first_kept_entry_id) if info is not None else None
    return found if found is not None else compaction_index + 1


class BoundaryFinder:
    """Finds the first kept index; remembers each message entry's estimate."""

    def __init__(self) -> None:
        self._estimates: dict[str, int] = {}

    def _estimate(self, item: PathItem) -> int:
        value = self._estimates.get(item.entry_id)
        if value is None and item.message is not None:
            value = estimate_tokens(item.message)
            self._estimates[item.entry_id] = value
        return value or 0

    def first_kept_index(self, items: Sequence[PathItem], start: int, keep_recent_tokens: int) -> int:
        end = len(items)
        crossing = None
        accumulated = 0
        for index in range(end - 1, start - 1, -1):
            item = items[index]
            if item.kind != "message" or item.message is None:
                continue
            accumulated += self._estimate(item)
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
        while cut > start and items[cut - 1].kind not in ("compaction", "message"):
            cut -= 1
        return cut

    def keep_boundary(
        self,
        items: Sequence[PathItem],
        settings: CompactionSettings,
        compaction_index: int,
        position: Callable[[str], int | None],
    ) -> str | None:
        """The id of the first entry the next compaction would keep; None when the branch is empty or
        ends with a compaction (nothing to compact)."""
        if not items or items[-1].kind == "compaction":
            return None
        start = span_start(items, compaction_index, position)
        cut = self.first_kept_index(items, start, settings.keep_recent_tokens)
        return items[cut].entry_id if cut < len(items) else None
