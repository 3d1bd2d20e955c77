"""What the model sees when a session continues: pi 1.6's `buildSessionContext`, the one rebuild of a context.

After the latest compaction on a path the context is that compaction (its `systemMessage`, then its
summary), the entries from its `firstKeptEntryId` up to it (system messages left out: the compaction's
checkpoint replaces them), then every entry after it; without one, every entry. Only message-like
entries contribute (`entry_message`). Then pi 1.6's context edits apply: the latest `context_edit` of
each target among those entries replaces the target's content or leaves it out (`context_projection`).
The session, compaction (the size before and after) and accounting (the ledger's zones) all rebuild
through `context_projection`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
    TextContent,
    ThinkingLevel,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.system_messages import PromptCheckpoint, replay_system_messages
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.tree import branch_path, index_by_id, parent_loops

DEFAULT_THINKING_LEVEL: ThinkingLevel = "off"
Zone: TypeAlias = Literal["summary", "kept", "new"]


class _LastEntry:
    """Sentinel: `leaf_id` not given means "the last entry", unlike an explicit None."""


LAST_ENTRY = _LastEntry()


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model_id: str


@dataclass(frozen=True)
class ProjectedEntry:
    """One entry of the rebuilt context: the messages it contributes after its latest context edit
    (`edit`; none when left out), and in `zone` where it stands relative to the latest compaction."""

    entry: SessionEntry
    zone: Zone
    messages: tuple[AgentMessage, ...]
    edit: ContextEditEntry | None = None

    @property
    def edited_out(self) -> bool:
        return self.edit is not None and self.edit.replacement is None


@dataclass
class SessionContext:
    """Messages in order, and for each the id of the entry it came from (None: the compaction summary);
    `projection` is every entry of the context with its edit, `prompt` the system messages' sections
    and tools in force at the leaf (pi 1.6; empty for older files)."""

    messages: list[AgentMessage] = field(default_factory=list)
    entry_ids: list[str | None] = field(default_factory=list)
    thinking_level: ThinkingLevel = DEFAULT_THINKING_LEVEL
    model: ModelRef | None = None
    projection: list[ProjectedEntry] = field(default_factory=list)
    prompt: PromptCheckpoint = field(default_factory=PromptCheckpoint)


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


def entry_messages(entry: SessionEntry) -> tuple[AgentMessage, ...]:
    """pi's `sessionEntryToContextMessages`: `entry_message`, and for a compaction its checkpoint
    (`systemMessage`, pi 1.6) and its summary."""
    if isinstance(entry, CompactionEntry):
        summary = compaction_summary_message(entry)
        return (entry.system_message, summary) if entry.system_message is not None else (summary,)
    message = entry_message(entry)
    return () if message is None else (message,)


def edited_messages(
    messages: Sequence[AgentMessage], edit: ContextEditEntry | None
) -> tuple[AgentMessage, ...]:
    """pi's `projectContextEntry`: the messages after `edit` (none when it leaves them out; text given
    to a reply or tool result becomes one text block; other roles than user, assistant, tool result
    and custom keep theirs)."""
    if edit is None:
        return tuple(messages)
    if edit.replacement is None:
        return ()
    content = edit.replacement.content
    result: list[AgentMessage] = []
    for message in messages:
        if isinstance(message, AssistantMessage | ToolResultMessage):
            blocks = [TextContent(text=content)] if isinstance(content, str) else content
            result.append(message.model_copy(update={"content": blocks}))
        elif isinstance(message, UserMessage | CustomMessage):
            result.append(message.model_copy(update={"content": content}))
        else:
            result.append(message)
    return tuple(result)


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


def _is_system_entry(entry: SessionEntry) -> bool:
    return isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)


def context_projection(path: Sequence[SessionEntry]) -> list[ProjectedEntry]:
    """pi 1.6's `buildSessionProjection` of `path` (root first): every entry of the context in order,
    with what it contributes after the context edits found among those entries (the latest per target
    wins; an edit elsewhere on the path, or on another branch, changes nothing)."""
    split = split_at_latest_compaction(path)
    placed: list[tuple[SessionEntry, Zone]] = []
    if split.compaction is not None:
        placed.append((split.compaction, "summary"))
        placed.extend((entry, "kept") for entry in split.kept if not _is_system_entry(entry))
    placed.extend((entry, "new") for entry in split.after)
    edits = {entry.target_id: entry for entry, _ in placed if isinstance(entry, ContextEditEntry)}
    projected: list[ProjectedEntry] = []
    for index, (entry, zone) in enumerate(placed):
        if isinstance(entry, CompactionEntry) and index > 0:
            # An older compaction inside the kept range: only the latest one contributes.
            projected.append(ProjectedEntry(entry, zone, ()))
            continue
        edit = edits.get(entry.id)
        projected.append(ProjectedEntry(entry, zone, edited_messages(entry_messages(entry), edit), edit))
    return projected


def context_messages(path: Sequence[SessionEntry]) -> Iterator[tuple[str | None, AgentMessage]]:
    """(entry id, message) of the context `path` (root first) rebuilds to; None: the compaction summary
    (its checkpoint carries the compaction's id)."""
    for projected in context_projection(path):
        for message in projected.messages:
            summary = isinstance(message, CompactionSummaryMessage) and projected.zone == "summary"
            yield (None if summary else projected.entry.id), message


def prompt_at(path: Sequence[SessionEntry]) -> PromptCheckpoint:
    """The sections and tools the system messages on `path` leave in force (pi's
    `_restoreToolsFromTranscript` replays every one on the branch, those before a compaction too)."""
    return replay_system_messages(
        entry.message for entry in path if isinstance(entry, MessageEntry) and _is_system_entry(entry)
    )


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
    context.projection = context_projection(path)
    for projected in context.projection:
        for message in projected.messages:
            summary = isinstance(message, CompactionSummaryMessage) and projected.zone == "summary"
            context.messages.append(message)
            context.entry_ids.append(None if summary else projected.entry.id)
    context.prompt = prompt_at(path)
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
