"""Session entries → the neutral `PathItem`s that context algorithms (compaction, accounting) read."""

from __future__ import annotations

from collections.abc import Sequence

from pi_tui.context.path_items import CompactionInfo, ItemKind, PathItem
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    SessionEntry,
)

_KINDS: frozenset[str] = frozenset(
    {
        "message",
        "custom_message",
        "branch_summary",
        "compaction",
        "thinking_level_change",
        "model_change",
        "custom",
        "label",
        "session_info",
    }
)


def path_item(entry: SessionEntry) -> PathItem:
    kind: ItemKind = entry.type if entry.type in _KINDS else "other"  # type: ignore[assignment]
    compaction = None
    if isinstance(entry, CompactionEntry):
        compaction = CompactionInfo(
            summary=entry.summary,
            first_kept_entry_id=entry.first_kept_entry_id,
            tokens_before=entry.tokens_before,
            details=entry.details,
            from_hook=bool(entry.from_hook),
        )
    branch = entry if isinstance(entry, BranchSummaryEntry) else None
    custom = entry if isinstance(entry, CustomEntry) else None
    return PathItem(
        entry_id=entry.id,
        kind=kind,
        timestamp=entry.timestamp,
        message=entry_message(entry),
        compaction=compaction,
        branch_details=branch.details if branch else None,
        branch_from_hook=bool(branch.from_hook) if branch else False,
        custom_type=custom.custom_type if custom else None,
        data=custom.data if custom else None,
    )


def path_items(entries: Sequence[SessionEntry]) -> list[PathItem]:
    return [path_item(entry) for entry in entries]
