"""The running account of one branch: its context messages, their token counts and pi's context usage.

`BranchLedger` is fed the branch root→leaf as session entries. `append` handles one new entry in
O(that entry) (a compaction rebuilds, which is rare); `reset` takes a whole branch, recounting only
entries it has not seen before (counts are kept per entry id, and entries never change). The context is
the one rebuild of `session_file.context_rebuild`, each message tagged with its zone: the compaction
summary, the kept entries before the compaction, the new ones after it. pi 1.6's context edits are
applied (an edited entry is counted as it is sent; one left out is not counted), and its system
messages are left out: pi-tui sends its own system prompt, counted with the tools.

Context usage is pi's `getContextUsage()`: the last reply's reported usage plus an estimate of the
messages after it, here offline tiktoken counts (`tokens.count_message`) in place of pi's chars/4.
The compaction *trigger* keeps pi's conservative chars/4 estimate; that lives with compaction, not here.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.ai import tokens
from pi_tui.ai.messages import AgentMessage, AssistantMessage, BashExecutionMessage, SystemMessage
from pi_tui.context.accounting.measure import COMPACTION_SUMMARY_KEY
from pi_tui.session_file.context_rebuild import (
    ProjectedEntry,
    Zone,
    context_projection,
    edited_messages,
    entry_messages,
)
from pi_tui.session_file.entries import CompactionEntry, ContextEditEntry, SessionEntry

__all__ = ["BranchLedger", "ContextUsage", "UsageSource", "Zone"]
UsageSource: TypeAlias = Literal["usage", "estimate", "unknown"]


@dataclass(frozen=True)
class ContextUsage:
    """pi's `getContextUsage()`: `tokens`/`percent` are None (shown as `?`) after a compaction until
    a reply after it reports usage. `source` says whether the figure is anchored on provider usage."""

    tokens: int | None
    context_window: int
    percent: float | None
    usage_tokens: int
    trailing_tokens: int
    last_usage_entry_id: str | None
    source: UsageSource


class BranchLedger:
    def __init__(self, count_message: Callable[[AgentMessage], int] = tokens.count_message) -> None:
        self._count_message = count_message
        self._counts: dict[str, int] = {}
        self.reset([])

    # --- feeding --------------------------------------------------------------------------------

    def reset(self, entries: Sequence[SessionEntry]) -> None:
        """Take a whole branch (root first)."""
        self.entries: list[SessionEntry] = list(entries)
        self._path_pos = {entry.id: i for i, entry in enumerate(self.entries)}
        self.keys: list[str] = []
        self.message_tokens: list[int] = []
        self.zones: list[Zone] = []
        self._before: list[int] = [0]
        self._context_pos: dict[str, int] = {}
        self.zone_tokens: dict[Zone, int] = {"summary": 0, "kept": 0, "new": 0}
        self.turn_sizes: list[int] = []
        self.compaction: CompactionEntry | None = None
        self._anchor: int | None = None
        self._anchor_tokens = 0
        self._trailing = 0
        self._fresh_after_compaction: int | None = None
        self.projection: list[ProjectedEntry] = context_projection(self.entries)
        for projected in self.projection:
            if projected.zone == "summary":
                assert isinstance(projected.entry, CompactionEntry)
                self.compaction = projected.entry
                for message in projected.messages:
                    if not isinstance(message, SystemMessage):
                        self._add(COMPACTION_SUMMARY_KEY, message, self._count_message(message), "summary")
            else:
                self._add_projected(projected)

    def append(self, entry: SessionEntry) -> None:
        """One new entry at the end of the branch (a child of the current leaf)."""
        if isinstance(entry, CompactionEntry | ContextEditEntry):
            self.reset([*self.entries, entry])
            return
        self._path_pos[entry.id] = len(self.entries)
        self.entries.append(entry)
        projected = ProjectedEntry(entry, "new", edited_messages(entry_messages(entry), None))
        self.projection.append(projected)
        self._add_projected(projected)

    def _add_projected(self, projected: ProjectedEntry) -> None:
        entry = projected.entry
        for message in projected.messages:
            if isinstance(message, SystemMessage):
                continue
            # An edited entry is counted as sent; its edit is part of the key (entries never change).
            cache_key = entry.id if projected.edit is None else f"{entry.id}@{projected.edit.id}"
            count = self._counts.get(cache_key)
            if count is None:
                count = self._count_message(message)
                self._counts[cache_key] = count
            self._add(entry.id, message, count, projected.zone)

    def _add(self, key: str, message: AgentMessage, count: int, zone: Zone) -> None:
        self._context_pos[key] = len(self.keys)
        self.keys.append(key)
        self.message_tokens.append(count)
        self.zones.append(zone)
        self._before.append(self._before[-1] + count)
        self.zone_tokens[zone] += count
        if zone != "summary":
            starts_turn = message.role == "user" or (
                isinstance(message, BashExecutionMessage) and not message.exclude_from_context
            )
            if starts_turn or not self.turn_sizes:
                self.turn_sizes.append(0)
            self.turn_sizes[-1] += count
        if isinstance(message, AssistantMessage) and not message.failed:
            self._anchor = len(self.keys) - 1
            self._anchor_tokens = message.usage.context_tokens()
            self._trailing = 0
            if zone == "new" and self.compaction is not None:
                self._fresh_after_compaction = self._anchor_tokens
        else:
            self._trailing += count

    # --- reading --------------------------------------------------------------------------------

    @property
    def leaf_id(self) -> str | None:
        return self.entries[-1].id if self.entries else None

    @property
    def context_tokens(self) -> int:
        """tiktoken total of the context messages (no system prompt or tools)."""
        return self._before[-1]

    def tokens_from(self, entry_id: str) -> int | None:
        """Tokens of the context messages from `entry_id`'s position in the branch to the end (the kept
        tail if the next cut fell there); None if the entry is not on the branch."""
        position = self._path_pos.get(entry_id)
        if position is None:
            return None
        for entry in self.entries[position:]:
            index = self._context_pos.get(entry.id)
            if index is not None and self.zones[index] != "summary":
                return self._before[-1] - self._before[index]
        return 0

    def context_usage(self, context_window: int) -> ContextUsage | None:
        """pi's `getContextUsage()`; None without a usable window (pi's `undefined`)."""
        if context_window <= 0:
            return None
        anchor_id = self.keys[self._anchor] if self._anchor is not None else None
        if self.compaction is not None and not self._fresh_after_compaction:
            return ContextUsage(None, context_window, None, 0, 0, None, "unknown")
        if self._anchor is None:
            total = self._before[-1]
            return ContextUsage(
                total, context_window, total / context_window * 100, 0, total, None, "estimate"
            )
        total = self._anchor_tokens + self._trailing
        return ContextUsage(
            total,
            context_window,
            total / context_window * 100,
            self._anchor_tokens,
            self._trailing,
            anchor_id,
            "usage",
        )

    def position(self, entry_id: str) -> int | None:
        """Where `entry_id` is on the branch (0 = root), or None if it is not on it."""
        return self._path_pos.get(entry_id)

    def largest(self, count: int) -> list[tuple[str, Zone, int]]:
        """The `count` biggest context messages as (key, zone, tokens), biggest first (O(messages))."""
        rows = zip(self.keys, self.zones, self.message_tokens, strict=True)
        return heapq.nlargest(count, rows, key=lambda row: row[2])
