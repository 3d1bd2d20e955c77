"""What a compaction will summarise and keep: pi's `prepareCompaction` (pi-behaviour §4.4).

The span starts where the previous compaction's kept region began (so those messages are
summarised again, merged into the previous summary) and ends at the cut point. Compaction items
inside the span contribute nothing: their content arrives as `previous_summary`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.ai.messages import AgentMessage
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.cut_point import find_cut_point
from pi_tui.context.compaction.file_ops import FileOps
from pi_tui.context.compaction.rebuilt_context import last_compaction_index, rebuild_messages
from pi_tui.context.compaction.token_estimate import estimate_context_tokens
from pi_tui.context.path_items import PathItem

ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"


@dataclass(frozen=True)
class SpanMessage:
    """A message to summarise and the id of the entry it came from."""

    entry_id: str
    message: AgentMessage


@dataclass
class CompactionPreparation:
    """Everything a summary call needs, plus the indices a preview or audit shows.

    Indices refer to the item list given to `prepare_compaction`. `history` is
    `[boundary_start, history_end)`; the turn prefix (split turns only) is
    `[turn_start_index, first_kept_index)`; everything from `first_kept_index` is kept.
    """

    first_kept_entry_id: str
    history: list[SpanMessage]
    turn_prefix: list[SpanMessage]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOps
    settings: CompactionSettings
    boundary_start: int
    boundary_end: int
    first_kept_index: int
    turn_start_index: int
    previous_compaction_index: int
    history_end: int
    kept: list[SpanMessage]
    """The messages that stay word for word (everything from `first_kept_index`)."""

    @property
    def messages_to_summarize(self) -> list[AgentMessage]:
        return [part.message for part in self.history]

    @property
    def turn_prefix_messages(self) -> list[AgentMessage]:
        return [part.message for part in self.turn_prefix]

    @property
    def span(self) -> list[SpanMessage]:
        """Every message the summaries replace: the history, then the turn prefix."""
        return [*self.history, *self.turn_prefix]


def span_messages(items: Sequence[PathItem], start: int, end: int) -> list[SpanMessage]:
    """Messages of `items[start:end]` as compaction reads them (compaction items excluded)."""
    return [
        SpanMessage(item.entry_id, item.message)
        for item in items[start:end]
        if item.message is not None and item.kind != "compaction"
    ]


def boundary_start(items: Sequence[PathItem], previous: int) -> int:
    """Where the span starts: the previous compaction's first kept item (else just after it), or 0."""
    if previous < 0:
        return 0
    info = items[previous].compaction
    kept_id = info.first_kept_entry_id if info is not None else None
    found = next((index for index, item in enumerate(items) if item.entry_id == kept_id), -1)
    return found if found >= 0 else previous + 1


def prepare_compaction(
    items: Sequence[PathItem], settings: CompactionSettings
) -> CompactionPreparation | None:
    """None when the branch ends with a compaction ("Already compacted") or nothing can be kept."""
    if items and items[-1].kind == "compaction":
        return None
    previous = last_compaction_index(items)
    previous_info = items[previous].compaction if previous >= 0 else None
    start = boundary_start(items, previous)
    end = len(items)
    tokens_before = estimate_context_tokens(rebuild_messages(items)).tokens
    cut = find_cut_point(items, start, end, settings.keep_recent_tokens)
    if cut.first_kept_index >= len(items) or not items[cut.first_kept_index].entry_id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    history = span_messages(items, start, history_end)
    prefix = span_messages(items, cut.turn_start_index, cut.first_kept_index) if cut.is_split_turn else []
    file_ops = FileOps()
    if previous_info is not None and not previous_info.from_hook:
        file_ops.add_details(previous_info.details)
    file_ops.add_messages(part.message for part in history)
    file_ops.add_messages(part.message for part in prefix)
    return CompactionPreparation(
        first_kept_entry_id=items[cut.first_kept_index].entry_id,
        history=history,
        turn_prefix=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_info.summary if previous_info is not None else None,
        file_ops=file_ops,
        settings=settings,
        boundary_start=start,
        boundary_end=end,
        first_kept_index=cut.first_kept_index,
        turn_start_index=cut.turn_start_index,
        previous_compaction_index=previous,
        history_end=history_end,
        kept=span_messages(items, cut.first_kept_index, end),
    )


def unprepared_reason(items: Sequence[PathItem]) -> str:
    """pi's message when `prepare_compaction` returns None for `items`."""
    return ALREADY_COMPACTED if items and items[-1].kind == "compaction" else NOTHING_TO_COMPACT
