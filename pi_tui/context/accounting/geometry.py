"""Budget geometry: the window, the reserve, the auto-compaction threshold and how the window is
currently split between the static prefix, the summary, the kept tail, the new tail and free space.

One figure for what the context uses, computed once here, and every other number read from it: the
provider-reported size of the last request plus the calibrated estimate of what came after it, or, with
no usable report, the calibrated estimate of the whole request (see `calibration`). The split adds up
to it (`prefix + summary + kept + new_tail == used_tokens`, the message parts apportioned by their token
counts), `free` is the room left before auto-compaction, equal to `tokens_left`, and the split always
fills `max(window, used)`: `reserve` shrinks once the used part eats into it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_tui.config.bounds import reserve_note, reserve_within_window
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.calibration import UNCALIBRATED, Calibration
from pi_tui.context.accounting.ledger import BranchLedger, ContextUsage, UsageSource
from pi_tui.session_file.entries import SessionEntry

BoundaryFn = Callable[[Sequence[SessionEntry], CompactionSettings], "str | None"]
"""Where the next compaction would cut: the id of the first entry it would keep, or None if nothing
would be cut. The session layer passes the compaction algorithm's answer (`find_cut_point` over the span
`prepare_compaction` would use); accounting never decides the cut itself."""


@dataclass(frozen=True)
class KeepBoundary:
    entry_id: str
    tokens_kept: int
    """The context messages from the boundary to the leaf, in the split's (calibrated) units."""


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
    """What the context uses: see the module docstring. The split's used parts add up to it."""
    used_source: UsageSource
    reported_tokens: int
    """The part of `used_tokens` the provider reported (0 when all of it is estimated)."""
    tokens_left: int
    """Before auto-compaction triggers; 0 once past the threshold (always `split.free`)."""
    boundary: KeepBoundary | None
    split: BudgetSplit
    prefix_known: bool
    """False when no system prompt / tools were measured (e.g. a pi session without request records):
    the prefix is then what the reported usage leaves after the messages, or 0 without usage."""
    calibration: Calibration
    reserve_note: str | None = None
    """Set when a reserve the settings set was more than half the window and half is used instead."""

    @property
    def estimated_tokens(self) -> int:
        return self.used_tokens - self.reported_tokens

    @property
    def prefix_text(self) -> str:
        """The prefix's figure as every view shows it (`~` and why when it was not measured)."""
        if self.prefix_known:
            return f"{self.split.prefix:,}"
        return f"~{self.split.prefix:,} (inferred)" if self.split.prefix else "? (unknown)"


def used_how(geometry: BudgetGeometry) -> str:
    """The used figure's share of the window and how much of it was reported, for every view."""
    window = geometry.context_window
    percent = f"{geometry.used_tokens / window * 100:.1f}%; " if window > 0 else ""
    if geometry.used_source != "usage":
        return f"{percent}all estimated"
    if not geometry.estimated_tokens:
        return f"{percent}reported"
    return f"{percent}{geometry.reported_tokens:,} reported + {geometry.estimated_tokens:,} estimated"


def split_budget(
    window: int, reserve: int, prefix: int, summary: int, kept: int, new_tail: int
) -> BudgetSplit:
    used = prefix + summary + kept + new_tail
    free = max(0, window - reserve - used)
    reserve_part = max(0, min(reserve, window - used))
    return BudgetSplit(prefix, summary, kept, new_tail, free, reserve_part)


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """`total` split in proportion to `weights` (largest remainder), summing to `total` exactly; with no
    weight at all everything goes to the last part."""
    weight = sum(weights)
    if weight <= 0:
        return [0] * (len(weights) - 1) + [total] if weights else []
    exact = [total * part / weight for part in weights]
    shares = [int(value) for value in exact]
    order = sorted(range(len(weights)), key=lambda i: exact[i] - shares[i], reverse=True)
    for index in order[: total - sum(shares)]:
        shares[index] += 1
    return shares


def budget_geometry(
    ledger: BranchLedger,
    *,
    context_window: int,
    settings: CompactionSettings,
    prefix_tokens: int | None,
    usage: ContextUsage | None,
    boundary_fn: BoundaryFn | None = None,
    calibration: Calibration = UNCALIBRATED,
) -> BudgetGeometry:
    """The geometry of the ledger's branch. `prefix_tokens` is system prompt + tool schemas as measured
    (None: unknown); `calibration` corrects every estimate (see `calibration`)."""
    reserve = reserve_within_window(settings.reserve_tokens, context_window)
    threshold = context_window - reserve
    zones = [ledger.zone_tokens["summary"], ledger.zone_tokens["kept"], ledger.zone_tokens["new"]]
    raw_messages = sum(zones)
    prefix = calibration.prefix(prefix_tokens or 0)
    source: UsageSource
    if usage is not None and usage.tokens is not None and usage.source == "usage":
        reported = usage.usage_tokens
        used, source = reported + calibration.messages(usage.trailing_tokens), "usage"
        if prefix_tokens is None:  # what the report holds beyond the messages is the unmeasured prefix
            prefix = max(0, used - calibration.messages(raw_messages))
    else:
        reported = 0
        used, source = calibration.request(prefix_tokens or 0, raw_messages), "estimate"
    prefix = min(prefix, used)
    messages = used - prefix
    summary, kept, new_tail = apportion(messages, zones)
    split = split_budget(context_window, reserve, prefix, summary, kept, new_tail)
    boundary = None
    if boundary_fn is not None:
        entry_id = boundary_fn(ledger.entries, settings)
        kept_raw = ledger.tokens_from(entry_id) if entry_id is not None else None
        if entry_id is not None and kept_raw is not None:
            scaled = round(kept_raw * messages / raw_messages) if raw_messages else 0
            boundary = KeepBoundary(entry_id, scaled)
    return BudgetGeometry(
        context_window=context_window,
        reserve_tokens=reserve,
        threshold=threshold,
        keep_recent_tokens=settings.keep_recent_tokens,
        auto_compaction=settings.enabled,
        used_tokens=used,
        used_source=source,
        reported_tokens=reported,
        tokens_left=split.free,
        boundary=boundary,
        split=split,
        prefix_known=prefix_tokens is not None,
        calibration=calibration,
        reserve_note=reserve_note("compaction.reserveTokens", settings, context_window),
    )
