"""Token and cost totals over every assistant reply in a session file (pi's footer).

All branches and the history before compactions count: the footer shows what the session has cost,
not what the current context holds. As in pi 1.6, billed calls that are not turns count too: `usage`
entries (cache warming) and the summary calls of compactions and branch summaries (their `usage`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pi_tui.ai.messages import AssistantMessage, Usage
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    MessageEntry,
    SessionEntry,
    UsageEntry,
)


@dataclass(frozen=True)
class UsageTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def plus(self, message: AssistantMessage) -> UsageTotals:
        return self.plus_usage(message.usage)

    def plus_usage(self, usage: Usage) -> UsageTotals:
        return UsageTotals(
            self.input + usage.input,
            self.output + usage.output,
            self.cache_read + usage.cache_read,
            self.cache_write + usage.cache_write,
            self.cost + usage.cost.total,
        )


def billed_usage(entry: SessionEntry) -> Usage | None:
    """What a call that is not a conversation turn cost: a `usage` entry's, or a compaction's or
    branch summary's summary call."""
    if isinstance(entry, UsageEntry):
        return entry.usage
    if isinstance(entry, CompactionEntry | BranchSummaryEntry):
        return entry.usage
    return None


def usage_totals(entries: Iterable[SessionEntry]) -> UsageTotals:
    totals = UsageTotals()
    for entry in entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            totals = totals.plus(entry.message)
        elif (usage := billed_usage(entry)) is not None:
            totals = totals.plus_usage(usage)
    return totals
