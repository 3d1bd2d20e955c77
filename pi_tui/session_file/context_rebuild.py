"""What the model sees when a session continues: pi's `buildSessionContext` (pi-behaviour §3.4)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ThinkingLevel,
)
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.tree import branch_path, index_by_id, parent_loops

DEFAULT_THINKING_LEVEL: ThinkingLevel = "off"


class _LastEntry:
    """Sentinel: `leaf_id` not given means "the last entry", unlike an explicit None."""


LAST_ENTRY = _LastEntry()


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model_id: str


@dataclass
class SessionContext:
    """Messages in order, and for each the id of the entry it came from (None: the compaction summary)."""

    messages: list[AgentMessage] = field(default_factory=list)
    entry_ids: list[str | None] = field(default_factory=list)
    thinking_level: ThinkingLevel = DEFAULT_THINKING_LEVEL
    model: ModelRef | None = None


def entry_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry contributes to the model context, or None (pi-behaviour §3.4 step 4)."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        return CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            details=entry.details,
            timestamp=iso_to_ms(entry.timestamp) or 0,
        )
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp) or 0
        )
    return None


def build_session_context(
    entries: Sequence[SessionEntry],
    leaf_id: str | _LastEntry | None = LAST_ENTRY,
    by_id: Mapping[str, SessionEntry] | None = None,
    loop_roots: Collection[str] | None = None,
) -> SessionContext:
    """Rebuild the context at `leaf_id`: an explicit None is "before the first entry" (empty context);
    an unknown id falls back to the last entry in file order. Parent loops are cut where the tree cuts
    them (`loop_roots`, found here when not given)."""
    if leaf_id is None or not entries:
        return SessionContext()
    index = by_id if by_id is not None else index_by_id(entries)
    if loop_roots is None:
        loop_roots = {loop.root for loop in parent_loops(entries, index)}
    leaf = index.get(leaf_id) if isinstance(leaf_id, str) else None
    path = branch_path(index, (leaf or entries[-1]).id, loop_roots)

    context = SessionContext()
    compaction: CompactionEntry | None = None
    for entry in path:
        if isinstance(entry, ThinkingLevelChangeEntry):
            context.thinking_level = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            context.model = ModelRef(entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            context.model = ModelRef(entry.message.provider, entry.message.model)
        elif isinstance(entry, CompactionEntry):
            compaction = entry

    def emit(entry: SessionEntry) -> None:
        message = entry_message(entry)
        if message is not None:
            context.messages.append(message)
            context.entry_ids.append(entry.id)

    if compaction is None:
        for entry in path:
            emit(entry)
        return context

    context.messages.append(
        CompactionSummaryMessage(
            summary=compaction.summary,
            tokens_before=compaction.tokens_before,
            timestamp=iso_to_ms(compaction.timestamp) or 0,
        )
    )
    context.entry_ids.append(None)
    position = next(i for i, entry in enumerate(path) if entry is compaction)
    kept = False
    for entry in path[:position]:
        kept = kept or entry.id == compaction.first_kept_entry_id
        if kept:
            emit(entry)
    for entry in path[position + 1 :]:
        emit(entry)
    return context
