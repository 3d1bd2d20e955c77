"""Moving the leaf to another entry of the tree, optionally summarising what is left (pi's `navigateTree`).

`navigate_tree` works on the store alone: it decides the new leaf (a user or custom message is
re-opened in the editor, so the leaf goes to its parent), writes the `branch_summary` entry when one
was asked for, and places the label. The caller rebuilds the agent's messages from the store after.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import TextContent, Usage, UserBlock, UserMessage
from pi_tui.context.compaction.branch_summary import generate_branch_summary
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel
from pi_tui.session.branch_summary_run import collect_entries_for_branch_summary
from pi_tui.session.session_events import AnyEvent, BranchSummaryEndEvent, BranchSummaryStartEvent
from pi_tui.session_file.entries import BranchSummaryEntry, CustomMessageEntry, MessageEntry, SessionEntry
from pi_tui.session_file.store import SessionError, SessionStore


class TreeNavigationError(SessionError):
    """Navigation that cannot happen (unknown target, a summary without a model, a failed summary)."""


@dataclass(frozen=True)
class NavigationResult:
    """`editor_text`: the re-opened message's text; `cancelled`: the summary call was aborted."""

    cancelled: bool = False
    editor_text: str | None = None
    summary_entry: BranchSummaryEntry | None = None
    old_leaf_id: str | None = None
    new_leaf_id: str | None = None


@dataclass(frozen=True)
class SummaryRequest:
    """What the user asked of the summary: the summariser, its budget and optional instructions."""

    target: SummaryModel | None
    reserve_tokens: int
    custom_instructions: str | None = None
    replace_instructions: bool = False


def content_text(content: str | list[UserBlock]) -> str:
    """A user or custom message's text blocks, joined (what goes back into the editor)."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def _reopened(entry: SessionEntry) -> tuple[str | None, str | None] | None:
    """(new leaf, editor text) for entries that go back to the editor, else None."""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
        return entry.parent_id, content_text(entry.message.content)
    if isinstance(entry, CustomMessageEntry):
        return entry.parent_id, content_text(entry.content)
    return None


async def navigate_tree(
    store: SessionStore,
    target_id: str,
    *,
    summary: SummaryRequest | None = None,
    label: str | None = None,
    signal: AbortSignal | None = None,
    emit: Callable[[AnyEvent], Awaitable[None]] | None = None,
) -> NavigationResult:
    """pi's `navigateTree`: no-op at the current leaf; `summary` None means "no summary". `emit` hears
    `branch_summary_start` / `branch_summary_end` around the summary call (front ends show it runs)."""
    old_leaf = store.leaf_id
    if target_id == old_leaf:
        return NavigationResult(old_leaf_id=old_leaf, new_leaf_id=old_leaf)
    target = store.get_entry(target_id)
    if target is None:
        raise TreeNavigationError(f"entry {target_id} not found")
    if summary is not None and summary.target is None:
        raise TreeNavigationError("No model available to summarise the branch")
    summary_text: str | None = None
    details: dict[str, list[str]] | None = None
    usage: Usage | None = None
    if summary is not None and summary.target is not None:
        abandoned = collect_entries_for_branch_summary(store, old_leaf, target_id).entries
        if abandoned:
            if emit is not None:
                await emit(BranchSummaryStartEvent(len(abandoned)))
            outcome = await generate_branch_summary(
                abandoned,
                summary.target,
                summary.reserve_tokens,
                custom_instructions=summary.custom_instructions,
                replace_instructions=summary.replace_instructions,
                signal=signal,
            )
            cancelled = isinstance(outcome, SummaryFailure) and (
                outcome.cancelled or (signal is not None and signal.aborted)
            )
            if emit is not None:
                failure = outcome.message if isinstance(outcome, SummaryFailure) and not cancelled else None
                await emit(BranchSummaryEndEvent(aborted=cancelled, error_message=failure))
            if isinstance(outcome, SummaryFailure):
                if cancelled:
                    return NavigationResult(cancelled=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
                raise TreeNavigationError(outcome.message)
            summary_text = outcome.summary
            details = {"readFiles": outcome.read_files, "modifiedFiles": outcome.modified_files}
            usage = outcome.usage
    reopened = _reopened(target)
    new_leaf, editor_text = reopened if reopened is not None else (target_id, None)
    entry = None
    if summary_text:
        entry = store.branch_with_summary(new_leaf, summary_text, details, from_hook=False, usage=usage)
        if label:
            store.append_label(entry.id, label)
    else:
        if new_leaf is None:
            store.reset_leaf()
        else:
            store.branch(new_leaf)
        if label:
            store.append_label(target_id, label)
    return NavigationResult(
        editor_text=editor_text, summary_entry=entry, old_leaf_id=old_leaf, new_leaf_id=store.leaf_id
    )
