"""Which entries a branch summary covers: pi's `collectEntriesForBranchSummary`.

The summary call itself (prompt, token budget, file operations, preamble) is
`pi_tui.context.compaction.branch_summary.generate_branch_summary`; this module supplies the session
side: the abandoned entries between the old leaf and the common ancestor with the target, in
chronological order.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tui.session_file.entries import SessionEntry
from pi_tui.session_file.store import SessionStore


@dataclass(frozen=True)
class BranchEntries:
    """The entries to summarise (oldest first) and the deepest entry both paths share (None: none)."""

    entries: list[SessionEntry]
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    store: SessionStore, old_leaf_id: str | None, target_id: str
) -> BranchEntries:
    """pi's `collectEntriesForBranchSummary`: walk up from the old leaf until the common ancestor.

    Compaction boundaries are not respected: their summaries become part of the summarised content.
    """
    if old_leaf_id is None:
        return BranchEntries([], None)
    target_path = {entry.id for entry in store.get_branch(target_id)}
    old_path = store.get_branch(old_leaf_id)
    ancestor = next((entry.id for entry in reversed(old_path) if entry.id in target_path), None)
    abandoned: list[SessionEntry] = []
    for entry in reversed(old_path):
        if entry.id == ancestor:
            break
        abandoned.append(entry)
    abandoned.reverse()
    return BranchEntries(abandoned, ancestor)
