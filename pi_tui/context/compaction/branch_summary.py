"""Summarising an abandoned branch on tree navigation (pi's `branch-summarization.ts`).

`prepare_branch_entries` walks the branch newest first within a token budget (tool results are
dropped: their calls carry the context) and `generate_branch_summary` makes one call with pi's
branch prompt (in pi-tui's words), the model's own output limit and the session's thinking level, as
pi 1.6 asks (0.73.1 asked for 2048 tokens without reasoning). The result is prefixed with
pi's preamble and followed by the file lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AgentMessage, ToolResultMessage, Usage
from pi_tui.config.bounds import reserve_within_window
from pi_tui.context.compaction.file_ops import FileOps, format_file_operations
from pi_tui.context.compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    NO_BRANCH_CONTENT,
    NO_BRANCH_SUMMARY,
    summary_request_text,
    with_focus,
)
from pi_tui.context.compaction.serialization import serialize_messages
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel, complete, reply_outcome
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session_file.context_rebuild import compaction_summary_message, entry_message
from pi_tui.session_file.entries import BranchSummaryEntry, CompactionEntry, SessionEntry

SUMMARY_OVERSHOOT_SHARE = 0.9
"""A summary entry over budget is still taken while the running total is under 90 % of it."""
BRANCH_FAILED = "Summarisation failed"


@dataclass
class BranchPreparation:
    messages: list[AgentMessage]
    file_ops: FileOps
    total_tokens: int


def branch_entry_message(entry: SessionEntry) -> AgentMessage | None:
    """pi's branch mapping: messages except tool results, custom messages, branch and compaction summaries."""
    if isinstance(entry, CompactionEntry):
        return compaction_summary_message(entry)
    message = entry_message(entry)
    return None if isinstance(message, ToolResultMessage) else message


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> BranchPreparation:
    """Newest-first selection within `token_budget` (0: unlimited), returned in chronological order."""
    file_ops = FileOps()
    for entry in entries:
        if isinstance(entry, BranchSummaryEntry) and not entry.from_hook:
            file_ops.add_details(entry.details)
    selected: list[AgentMessage] = []
    total = 0
    for entry in reversed(entries):
        message = branch_entry_message(entry)
        if message is None:
            continue
        file_ops.add_message(message)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            is_summary = entry.type in ("compaction", "branch_summary")
            if is_summary and total < token_budget * SUMMARY_OVERSHOOT_SHARE:
                selected.append(message)
                total += tokens
            break
        selected.append(message)
        total += tokens
    selected.reverse()
    return BranchPreparation(selected, file_ops, total)


@dataclass
class BranchSummary:
    summary: str
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    usage: Usage | None = None
    """What the summary call cost (None: no call was made)."""


def branch_prompt(
    messages: Sequence[AgentMessage], custom_instructions: str | None, replace_instructions: bool
) -> str:
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    else:
        instructions = with_focus(BRANCH_SUMMARY_PROMPT, custom_instructions)
    return summary_request_text(serialize_messages(messages), instructions)


async def generate_branch_summary(
    entries: Sequence[SessionEntry],
    target: SummaryModel,
    reserve_tokens: int,
    *,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    signal: AbortSignal | None = None,
) -> BranchSummary | SummaryFailure:
    """pi's `generateBranchSummary`; the budget is the model's window (or 128000) minus `reserve_tokens`
    (at most half the window)."""
    window = target.model.context_window or 128_000
    prepared = prepare_branch_entries(entries, window - reserve_within_window(reserve_tokens, window))
    if not prepared.messages:
        return BranchSummary(NO_BRANCH_CONTENT)
    reply = await complete(
        target,
        branch_prompt(prepared.messages, custom_instructions, replace_instructions),
        max_tokens=None,
        signal=signal,
        reasoning=True,
    )
    if reply.stop_reason == "error":
        return SummaryFailure(reply.error_message or BRANCH_FAILED)
    outcome = reply_outcome(reply, BRANCH_FAILED)
    if isinstance(outcome, SummaryFailure):
        return outcome
    read_files, modified_files = prepared.file_ops.lists()
    summary = BRANCH_SUMMARY_PREAMBLE + outcome.text + format_file_operations(read_files, modified_files)
    return BranchSummary(summary or NO_BRANCH_SUMMARY, read_files, modified_files, reply.usage)
