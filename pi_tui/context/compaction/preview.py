"""`/compact --preview` (pi-tui's own): what a compaction would do, without calling a model.

Shows the cut point, which entries would be summarised (history and split-turn prefix) and which kept,
with pi's chars/4 estimate for each (what the cut point reads), and the whole request's tokens before
and after as the caller's `RequestSizer` measures them (the session layer measures the system prompt,
tools and messages as a request record does). The summary's size is not known before it is written;
the estimate assumes it is as large as the previous summary (an update mostly keeps its size) plus the
file lists, and `summary_budget` gives its upper bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.file_ops import format_file_operations
from pi_tui.context.compaction.preparation import (
    CompactionPreparation,
    nothing_to_summarise,
    prepare_compaction,
    unprepared_reason,
)
from pi_tui.context.compaction.summaries import history_max_tokens
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import SessionEntry

RequestSizer = Callable[[str, str], tuple[int, int]]
"""(first kept entry id, summary) → the whole request's tokens before and after such a compaction."""


def counted(count: int, noun: str) -> str:
    """`1 message`, `2 messages`."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class PreviewItem:
    entry_id: str
    role: str
    """The message role."""
    tokens: int

    def to_json_obj(self) -> dict[str, Any]:
        return {"id": self.entry_id, "role": self.role, "tokens": self.tokens}


@dataclass(frozen=True)
class CompactionPreview:
    first_kept_entry_id: str
    first_kept_index: int
    is_split_turn: bool
    summarized: list[PreviewItem]
    turn_prefix: list[PreviewItem]
    kept: list[PreviewItem]
    tokens_before: int
    tokens_after_estimate: int
    summary_budget: int
    has_previous_summary: bool
    read_files: list[str]
    modified_files: list[str]

    @property
    def summarised_rows(self) -> list[PreviewItem]:
        """Every row the summaries replace, as listed: the history, then the split turn's prefix."""
        return [*self.summarized, *self.turn_prefix]

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "firstKeptEntryId": self.first_kept_entry_id,
            "isSplitTurn": self.is_split_turn,
            "tokensBefore": self.tokens_before,
            "tokensAfterEstimate": self.tokens_after_estimate,
            "summaryBudget": self.summary_budget,
            "hasPreviousSummary": self.has_previous_summary,
            "summarized": [item.to_json_obj() for item in self.summarized],
            "turnPrefix": [item.to_json_obj() for item in self.turn_prefix],
            "kept": [item.to_json_obj() for item in self.kept],
            "readFiles": self.read_files,
            "modifiedFiles": self.modified_files,
        }


def _preview_items(items: Sequence[SessionEntry], start: int, end: int) -> list[PreviewItem]:
    return [
        PreviewItem(entry.id, message.role, estimate_tokens(message))
        for entry in items[max(start, 0) : end]
        if (message := entry_message(entry)) is not None
    ]


def rows_text(items: Sequence[PreviewItem]) -> str:
    """`2 messages, ~310 tokens`: how many rows and their chars/4 total."""
    return f"{counted(len(items), 'message')}, ~{sum(item.tokens for item in items):,} tokens"


def preview_from_preparation(
    items: Sequence[SessionEntry], prepared: CompactionPreparation, sizer: RequestSizer
) -> CompactionPreview:
    read_files, modified_files = prepared.file_ops.lists()
    assumed_summary = (prepared.previous_summary or "") + format_file_operations(read_files, modified_files)
    tokens_before, tokens_after = sizer(prepared.first_kept_entry_id, assumed_summary)
    prefix_start = prepared.turn_start_index if prepared.is_split_turn else prepared.first_kept_index
    return CompactionPreview(
        first_kept_entry_id=prepared.first_kept_entry_id,
        first_kept_index=prepared.first_kept_index,
        is_split_turn=prepared.is_split_turn,
        summarized=_preview_items(items, prepared.boundary_start, prepared.history_end),
        turn_prefix=_preview_items(items, prefix_start, prepared.first_kept_index),
        kept=_preview_items(items, prepared.first_kept_index, len(items)),
        tokens_before=tokens_before,
        tokens_after_estimate=tokens_after,
        summary_budget=history_max_tokens(prepared.settings.reserve_tokens),
        has_previous_summary=prepared.previous_summary is not None,
        read_files=read_files,
        modified_files=modified_files,
    )


def preview_compaction(
    items: Sequence[SessionEntry], settings: CompactionSettings, sizer: RequestSizer
) -> CompactionPreview | str:
    """The preview, or pi's reason why there is nothing to compact."""
    prepared = prepare_compaction(items, settings)
    if prepared is None:
        return unprepared_reason(items)
    empty = nothing_to_summarise(prepared)
    if empty is not None:  # what /compact would say
        return empty
    return preview_from_preparation(items, prepared, sizer)
