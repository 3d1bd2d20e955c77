"""What a compaction will summarise and keep: pi's `prepareCompaction`, over the entries of a path.

The span starts where the previous compaction's kept region began (so those messages are
summarised again, merged into the previous summary) and ends at the cut point. Compaction entries
inside the span contribute nothing: their content arrives as `previous_summary`. pi 1.6's context
edits apply (a redacted output is summarised redacted, one left out not at all) and its system
messages are prompt state, not conversation: the summary, its file lists and the loss audit never
see what an edit removed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_tui.ai.messages import AgentMessage, SystemMessage
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.cut_point import find_cut_point
from pi_tui.context.compaction.file_ops import FileOps
from pi_tui.context.compaction.token_estimate import estimate_context_tokens
from pi_tui.session_file.context_rebuild import (
    edited_messages,
    entry_message,
    last_compaction_index,
    path_context,
)
from pi_tui.session_file.entries import CompactionEntry, ContextEditEntry, SessionEntry

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

    Indices refer to the entry list given to `prepare_compaction`. `history` is
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


def span_messages(items: Sequence[SessionEntry], start: int, end: int) -> list[SpanMessage]:
    """Messages of `items[start:end]` as compaction reads them: after the latest context edit of each
    (an edit can only follow its target on the path), system messages left out."""
    edits = {entry.target_id: entry for entry in items[start:] if isinstance(entry, ContextEditEntry)}
    span: list[SpanMessage] = []
    for entry in items[start:end]:
        message = entry_message(entry)
        if message is None or isinstance(message, SystemMessage):
            continue
        span.extend(
            SpanMessage(entry.id, edited) for edited in edited_messages((message,), edits.get(entry.id))
        )
    return span


def boundary_start(
    items: Sequence[SessionEntry], previous: int, position: Callable[[str], int | None] | None = None
) -> int:
    """Where the span starts: the previous compaction's first kept entry (else just after it), or 0.
    `position` finds an entry's index (default: a scan of `items`)."""
    if previous < 0:
        return 0
    compaction = items[previous]
    if not isinstance(compaction, CompactionEntry):
        return previous + 1
    kept_id = compaction.first_kept_entry_id
    if position is None:
        found = next((index for index, entry in enumerate(items) if entry.id == kept_id), None)
    else:
        found = position(kept_id)
    return found if found is not None else previous + 1


def ends_with_compaction(items: Sequence[SessionEntry]) -> bool:
    """pi refuses to compact a branch whose last entry is a compaction ("Already compacted")."""
    return bool(items) and items[-1].type == "compaction"


def prepare_compaction(
    items: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """None when the branch ends with a compaction ("Already compacted") or nothing can be kept."""
    if ends_with_compaction(items):
        return None
    previous = last_compaction_index(items)
    previous_entry = items[previous] if previous >= 0 else None
    previous_info = previous_entry if isinstance(previous_entry, CompactionEntry) else None
    start = boundary_start(items, previous)
    end = len(items)
    tokens_before = estimate_context_tokens(path_context(items).messages).tokens
    cut = find_cut_point(items, start, end, settings.keep_recent_tokens)
    if cut.first_kept_index >= len(items) or not items[cut.first_kept_index].id:
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
        first_kept_entry_id=items[cut.first_kept_index].id,
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


def nothing_to_summarise(prepared: CompactionPreparation) -> str | None:
    """Why a compaction that could be prepared would summarise nothing, or None when it has a span.

    Every message is within the kept recent tokens: a summary call would send the same request again
    and grow the context by an invented summary (pi calls the model anyway; pi-tui does not)."""
    if prepared.span:
        return None
    keep = prepared.settings.keep_recent_tokens
    return (
        f"{NOTHING_TO_COMPACT}: every message is within the newest {keep:,} tokens, which are kept "
        "word for word (compaction.keepRecentTokens)"
    )


def unprepared_reason(items: Sequence[SessionEntry]) -> str:
    """pi's message when `prepare_compaction` returns None for `items`."""
    return ALREADY_COMPACTED if ends_with_compaction(items) else NOTHING_TO_COMPACT
