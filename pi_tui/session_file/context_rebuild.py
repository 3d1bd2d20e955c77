"""What the model sees when a session continues: pi's `buildSessionContext`, the one rebuild of a context.

After the latest compaction on a path the context is that compaction's summary, the entries from its
`firstKeptEntryId` up to it, then every entry after it; without one, every entry. Only message-like
entries contribute (`entry_message`). The session, compaction (the size before and after) and
accounting (the ledger's zones) all rebuild through `split_at_latest_compaction`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
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
    """The message an entry contributes to the model context, or None: a message entry's message, a
    custom message entry as a `custom` message, a branch summary with text as a `branchSummary` one."""
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


def compaction_summary_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    """The message a compaction entry stands for at the head of the rebuilt context."""
    return CompactionSummaryMessage(
        summary=entry.summary,
        tokens_before=entry.tokens_before,
        timestamp=iso_to_ms(entry.timestamp) or 0,
    )


def last_compaction_index(path: Sequence[SessionEntry]) -> int:
    """Index of the latest compaction entry on `path`, -1 if none."""
    for index in range(len(path) - 1, -1, -1):
        if isinstance(path[index], CompactionEntry):
            return index
    return -1


@dataclass(frozen=True)
class ContextSplit:
    """A path as its context rebuilds: `kept` (entries before the compaction, from its first kept entry;
    none for an id not on the path) and `after` (entries after it; the whole path without a compaction)."""

    compaction: CompactionEntry | None
    kept: Sequence[SessionEntry]
    after: Sequence[SessionEntry]


def split_at_latest_compaction(path: Sequence[SessionEntry]) -> ContextSplit:
    position = last_compaction_index(path)
    if position < 0:
        return ContextSplit(None, (), path)
    compaction = path[position]
    assert isinstance(compaction, CompactionEntry)
    first_kept = next(
        (index for index in range(position) if path[index].id == compaction.first_kept_entry_id), position
    )
    return ContextSplit(compaction, path[first_kept:position], path[position + 1 :])


def context_messages(path: Sequence[SessionEntry]) -> Iterator[tuple[str | None, AgentMessage]]:
    """(entry id, message) of the context `path` (root first) rebuilds to; None: the compaction summary."""
    split = split_at_latest_compaction(path)
    if split.compaction is not None:
        yield None, compaction_summary_message(split.compaction)
    for part in (split.kept, split.after):
        for entry in part:
            message = entry_message(entry)
            if message is not None:
                yield entry.id, message


def path_context(path: Sequence[SessionEntry]) -> SessionContext:
    """The context at the end of `path` (root first): messages, thinking level and model."""
    context = SessionContext()
    for entry in path:
        if isinstance(entry, ThinkingLevelChangeEntry):
            context.thinking_level = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            context.model = ModelRef(entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            context.model = ModelRef(entry.message.provider, entry.message.model)
    for entry_id, message in context_messages(path):
        context.messages.append(message)
        context.entry_ids.append(entry_id)
    return context


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
    return path_context(branch_path(index, (leaf or entries[-1]).id, loop_roots))
