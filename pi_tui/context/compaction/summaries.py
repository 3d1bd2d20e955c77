"""Writing a compaction's summary: pi's `compact()` with `generateSummary` / `generateTurnPrefixSummary`
(as pi builds them), plus pi-tui's pins.

The history summary updates the previous summary when there is one. A split turn's prefix is
summarised by a second call running concurrently; the two are joined with pi's separator. The file
lists are appended last. Failures come back as values with pi's texts.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AgentMessage, Usage
from pi_tui.config.bounds import reserve_within_window
from pi_tui.context.compaction.file_ops import format_file_operations
from pi_tui.context.compaction.pins import ensure_pinned
from pi_tui.context.compaction.preparation import CompactionPreparation
from pi_tui.context.compaction.prompts import (
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
    summary_request_text,
    with_focus,
)
from pi_tui.context.compaction.serialization import serialize_messages
from pi_tui.context.compaction.summary_call import (
    SummaryFailure,
    SummaryModel,
    SummaryOutcome,
    SummaryText,
    complete,
    reply_outcome,
)

HISTORY_BUDGET_SHARE = 0.8
TURN_PREFIX_BUDGET_SHARE = 0.5
SUMMARIZATION_FAILED = "Summarisation failed"
TURN_PREFIX_FAILED = "Turn prefix summarisation failed"
COMPACTION_CANCELLED = "Compaction cancelled"


def history_max_tokens(reserve_tokens: int) -> int:
    return math.floor(HISTORY_BUDGET_SHARE * reserve_tokens)


def turn_prefix_max_tokens(reserve_tokens: int) -> int:
    return math.floor(TURN_PREFIX_BUDGET_SHARE * reserve_tokens)


def history_prompt(
    messages: Sequence[AgentMessage],
    previous_summary: str | None,
    custom_instructions: str | None,
    pins: Sequence[str] = (),
) -> str:
    """The request text of the history summary (initial or update prompt)."""
    base = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    return summary_request_text(
        serialize_messages(messages),
        with_focus(base, custom_instructions),
        previous_summary=previous_summary,
        pins=pins,
    )


def turn_prefix_prompt(messages: Sequence[AgentMessage]) -> str:
    return summary_request_text(serialize_messages(messages), TURN_PREFIX_SUMMARIZATION_PROMPT)


async def generate_summary(
    target: SummaryModel,
    messages: Sequence[AgentMessage],
    reserve_tokens: int,
    *,
    previous_summary: str | None = None,
    custom_instructions: str | None = None,
    pins: Sequence[str] = (),
    signal: AbortSignal | None = None,
) -> SummaryOutcome:
    """pi 1.6's `generateSummary`: the model's own output limit (lowered to what the window leaves, as
    every request's), the session's thinking level if any. `reserve_tokens` no longer sizes it."""
    reply = await complete(
        target,
        history_prompt(messages, previous_summary, custom_instructions, pins),
        max_tokens=None,
        signal=signal,
        reasoning=True,
    )
    return reply_outcome(reply, SUMMARIZATION_FAILED)


async def generate_turn_prefix_summary(
    target: SummaryModel,
    messages: Sequence[AgentMessage],
    reserve_tokens: int,
    *,
    signal: AbortSignal | None = None,
) -> SummaryOutcome:
    """pi 1.6's `generateTurnPrefixSummary`: the model's output limit, no previous summary, no focus."""
    reply = await complete(
        target,
        turn_prefix_prompt(messages),
        max_tokens=None,
        signal=signal,
        reasoning=True,
    )
    return reply_outcome(reply, TURN_PREFIX_FAILED)


@dataclass
class CompactionSummary:
    """pi's `CompactionResult` (summary, first kept id, tokens before, file lists) plus call usage."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    read_files: list[str]
    modified_files: list[str]
    usages: list[Usage] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)


async def _no_history() -> SummaryOutcome:
    return SummaryText(NO_PRIOR_HISTORY, Usage())


async def summarize_compaction(
    preparation: CompactionPreparation,
    target: SummaryModel,
    *,
    custom_instructions: str | None = None,
    pins: Sequence[str] = (),
    signal: AbortSignal | None = None,
) -> CompactionSummary | SummaryFailure:
    """Run the summary call(s) for a prepared compaction and assemble pi's summary text."""
    reserve = reserve_within_window(preparation.settings.reserve_tokens, target.model.context_window)
    history = preparation.messages_to_summarize
    prefix = preparation.turn_prefix_messages
    usages: list[Usage] = []
    outcomes: list[SummaryOutcome]
    if preparation.is_split_turn and prefix:
        history_call = (
            generate_summary(
                target,
                history,
                reserve,
                previous_summary=preparation.previous_summary,
                custom_instructions=custom_instructions,
                pins=pins,
                signal=signal,
            )
            if history
            else _no_history()
        )
        prefix_call = generate_turn_prefix_summary(target, prefix, reserve, signal=signal)
        outcomes = list(await asyncio.gather(history_call, prefix_call))
        called = [bool(history), True]
    else:
        called = [True]
        outcomes = [
            await generate_summary(
                target,
                history,
                reserve,
                previous_summary=preparation.previous_summary,
                custom_instructions=custom_instructions,
                pins=pins,
                signal=signal,
            )
        ]
    if signal is not None and signal.aborted:
        return SummaryFailure(COMPACTION_CANCELLED, cancelled=True)
    texts: list[str] = []
    for outcome, was_called in zip(outcomes, called, strict=True):
        if isinstance(outcome, SummaryFailure):
            return SummaryFailure(COMPACTION_CANCELLED, True) if outcome.cancelled else outcome
        texts.append(outcome.text)
        if was_called:
            usages.append(outcome.usage)
    summary = texts[0] if len(texts) == 1 else texts[0] + SPLIT_TURN_SEPARATOR + texts[1]
    return finish_summary(preparation, summary, usages, pins)


def finish_summary(
    preparation: CompactionPreparation, summary: str, usages: list[Usage], pins: Sequence[str]
) -> CompactionSummary:
    """The summary as stored: the model's text, the pinned items it must repeat, then pi's file lists."""
    summary = ensure_pinned(summary, pins)
    read_files, modified_files = preparation.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)
    return CompactionSummary(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        read_files=read_files,
        modified_files=modified_files,
        usages=usages,
        pinned=list(pins),
    )
