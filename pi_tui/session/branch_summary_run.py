"""Which entries a branch summary covers, and the summary call for them (pi's `navigateTree`).

The prompt, the token budget, file operations and the preamble are pi's rules as implemented in
`pi_tui.context.compaction.branch_summary`; this module supplies the session side: the abandoned
entries between the old leaf and the common ancestor with the target, in chronological order.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tui.ai.abort import AbortSignal
from pi_tui.context.compaction.branch_summary import BranchSummary, generate_branch_summary
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel
from pi_tui.session.path_view import path_items
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


async def summarize_branch(
    entries: list[SessionEntry],
    target: SummaryModel,
    reserve_tokens: int,
    *,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    signal: AbortSignal | None = None,
) -> BranchSummary | SummaryFailure:
    """One model call without tools; `No content to summarize` when nothing in `entries` counts."""
    return await generate_branch_summary(
        path_items(entries),
        target,
        reserve_tokens,
        custom_instructions=custom_instructions,
        replace_instructions=replace_instructions,
        signal=signal,
    )
