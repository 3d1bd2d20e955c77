"""Budget geometry (R8.3): the window, the reserve, the auto-compaction threshold and how the window is
currently split between the static prefix, the summary, the kept tail, the new tail and free space.

The split is built from token counts of the parts, so it always adds up: `prefix + summary + kept +
new_tail + free + reserve == max(window, used)`, where `reserve` shrinks once the used part eats into it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_tui.config.bounds import reserve_note, reserve_within_window
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.ledger import BranchLedger, ContextUsage, UsageSource
from pi_tui.context.path_items import PathItem

BoundaryFn = Callable[[Sequence[PathItem], CompactionSettings], "str | None"]
"""Where the next compaction would cut: the id of the first entry it would keep, or None if nothing
would be cut. The session layer passes the compaction algorithm's answer (`find_cut_point` over the span
`prepare_compaction` would use); accounting never decides the cut itself."""


@dataclass(frozen=True)
class KeepBoundary:
    entry_id: str
    tokens_kept: int
    """tiktoken total of the context messages from the boundary to the leaf."""


@dataclass(frozen=True)
class BudgetSplit:
    prefix: int
    summary: int
    kept: int
    new_tail: int
    free: int
    reserve: int

    @property
    def used(self) -> int:
        return self.prefix + self.summary + self.kept + self.new_tail

    @property
    def total(self) -> int:
        return self.used + self.free + self.reserve


@dataclass(frozen=True)
class BudgetGeometry:
    context_window: int
    reserve_tokens: int
    threshold: int
    """Auto-compaction runs once the context exceeds this (window − reserve, as pi's `shouldCompact`)."""
    keep_recent_tokens: int
    auto_compaction: bool
    used_tokens: int
    """Provider-anchored context usage when known, else the sum of the split's used parts."""
    used_source: UsageSource
    tokens_left: int
    """Before auto-compaction triggers; 0 once past the threshold."""
    boundary: KeepBoundary | None
    split: BudgetSplit
    prefix_known: bool
    """False when no system prompt / tools were measured (e.g. a pi session without request records)."""
    reserve_note: str | None = None
    """Set when a reserve the settings set was more than half the window and half is used instead."""


def split_budget(
    window: int, reserve: int, prefix: int, summary: int, kept: int, new_tail: int
) -> BudgetSplit:
    used = prefix + summary + kept + new_tail
    free = max(0, window - reserve - used)
    reserve_part = max(0, min(reserve, window - used))
    return BudgetSplit(prefix, summary, kept, new_tail, free, reserve_part)


def budget_geometry(
    ledger: BranchLedger,
    *,
    context_window: int,
    settings: CompactionSettings,
    prefix_tokens: int | None,
    usage: ContextUsage | None,
    boundary_fn: BoundaryFn | None = None,
) -> BudgetGeometry:
    """The geometry of the ledger's branch. `prefix_tokens` is system prompt + tool schemas (None:
    unknown, counted as 0 and flagged)."""
    reserve = reserve_within_window(settings.reserve_tokens, context_window)
    threshold = context_window - reserve
    split = split_budget(
        context_window,
        reserve,
        prefix_tokens or 0,
        ledger.zone_tokens["summary"],
        ledger.zone_tokens["kept"],
        ledger.zone_tokens["new"],
    )
    used: int
    source: UsageSource
    if usage is not None and usage.tokens is not None and usage.source == "usage":
        used, source = usage.tokens, usage.source
    else:
        used, source = split.used, "estimate"
    boundary = None
    if boundary_fn is not None:
        entry_id = boundary_fn(ledger.items, settings)
        kept = ledger.tokens_from(entry_id) if entry_id is not None else None
        if entry_id is not None and kept is not None:
            boundary = KeepBoundary(entry_id, kept)
    return BudgetGeometry(
        context_window=context_window,
        reserve_tokens=reserve,
        threshold=threshold,
        keep_recent_tokens=settings.keep_recent_tokens,
        auto_compaction=settings.enabled,
        used_tokens=used,
        used_source=source,
        tokens_left=max(0, threshold - used),
        boundary=boundary,
        split=split,
        prefix_known=prefix_tokens is not None,
        reserve_note=reserve_note("compaction.reserveTokens", settings, context_window),
    )
