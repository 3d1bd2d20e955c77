"""The context pi rebuilds from a branch, computed from `PathItem`s (pi-behaviour §3.4 step 5).

Compaction needs it twice: `tokensBefore` is estimated from the context the branch rebuilds to, and
the size after (`session.compaction_sizes`) from the context after the new compaction. This mirrors the
session's `build_session_context` compaction rule: the latest compaction's summary first, then the items from
its `firstKeptEntryId` up to it, then every item after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pi_tui.ai.messages import AgentMessage, CompactionSummaryMessage
from pi_tui.context.path_items import CompactionInfo, PathItem

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ContextMessage:
    """A message of the rebuilt context and the item it came from (None: the compaction summary)."""

    entry_id: str | None
    message: AgentMessage


def iso_ms(text: str) -> int:
    """Unix ms of an entry's ISO timestamp (0 when unparsable, where pi would get NaN)."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return 0
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (parsed - _EPOCH) // timedelta(milliseconds=1)


def summary_message(info: CompactionInfo, timestamp: str) -> CompactionSummaryMessage:
    return CompactionSummaryMessage(
        summary=info.summary, tokens_before=info.tokens_before, timestamp=iso_ms(timestamp)
    )


def last_compaction_index(items: Sequence[PathItem]) -> int:
    """Index of the last compaction item, -1 if none."""
    for index in range(len(items) - 1, -1, -1):
        if items[index].kind == "compaction":
            return index
    return -1


def _emit(items: Sequence[PathItem]) -> list[ContextMessage]:
    return [ContextMessage(item.entry_id, item.message) for item in items if item.message is not None]


def rebuild_context(items: Sequence[PathItem]) -> list[ContextMessage]:
    """The messages a model continues from at the end of `items` (root first)."""
    position = last_compaction_index(items)
    if position < 0:
        return _emit(items)
    compaction = items[position]
    assert compaction.compaction is not None
    result = [ContextMessage(None, summary_message(compaction.compaction, compaction.timestamp))]
    first_kept = next(
        (
            index
            for index in range(position)
            if items[index].entry_id == compaction.compaction.first_kept_entry_id
        ),
        position,
    )
    result += _emit(items[first_kept:position])
    result += _emit(items[position + 1 :])
    return result


def rebuild_messages(items: Sequence[PathItem]) -> list[AgentMessage]:
    return [part.message for part in rebuild_context(items)]
