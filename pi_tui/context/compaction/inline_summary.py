"""A compaction's summary asked inside the cached conversation (the inline strategy, docs/compaction.md).

The request is `live` (the system prompt, tools and messages the model last saw, unchanged, so the
provider's cache serves them) plus the instructions of `inline_prompts`. One call writes both of a split
turn's summaries. A reply that cannot be used (a tool call, no text, a split turn's reply without its
divider, a server that refuses the request's `tool_choice`) comes back as `InlineFallback`, and the
caller asks again with the serialising strategy; the failed call's usage is kept so it is still billed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, Usage, UserMessage
from pi_tui.ai.prompt_cache import summary_tool_choice
from pi_tui.ai.stream import LlmContext, LlmMessage
from pi_tui.context.compaction.inline_prompts import InlineSpan, inline_instructions, split_reply
from pi_tui.context.compaction.preparation import CompactionPreparation
from pi_tui.context.compaction.prompts import NO_PRIOR_HISTORY, SPLIT_TURN_SEPARATOR
from pi_tui.context.compaction.summaries import (
    COMPACTION_CANCELLED,
    SUMMARIZATION_FAILED,
    CompactionSummary,
    finish_summary,
    history_max_tokens,
)
from pi_tui.context.compaction.summary_call import (
    SummaryFailure,
    SummaryModel,
    complete_context,
    reply_outcome,
)

TOOL_CALLED = "the model called a tool instead of writing the summary"
NO_TEXT = "the reply held no summary"
NO_DIVIDER = "the reply did not divide the two summaries of the split turn"
NOT_A_SUFFIX = "the conversation the model saw does not end with the kept messages"


@dataclass(frozen=True)
class InlineFallback:
    """Why the inline summary is not used; `usage` is what the attempt cost."""

    reason: str
    usage: list[Usage] = field(default_factory=list)


def inline_span(preparation: CompactionPreparation, live: Sequence[LlmMessage]) -> InlineSpan | None:
    """Where the summary stops in `live`; None when `live` does not end with the kept messages."""
    kept = convert_to_llm([part.message for part in preparation.kept])
    if not kept or len(kept) > len(live) or list(live[len(live) - len(kept) :]) != kept:
        return None
    split = preparation.is_split_turn and bool(preparation.turn_prefix)
    turn_start = convert_to_llm([preparation.turn_prefix[0].message]) if split else []
    return InlineSpan(
        kept_first=kept[0],
        kept_count=len(kept),
        turn_start=turn_start[0] if turn_start else None,
        history_empty=split and not preparation.history,
        updates_previous=preparation.previous_summary is not None,
    )


def output_budget(preparation: CompactionPreparation) -> int:
    """pi's budget of the history summary, also for a split turn's two summaries in one reply: the
    request must fit the window with its reply, and at the threshold the conversation already fills all
    but the reserve (pi's two calls each see only their part and may write 0.8 and 0.5 of the reserve)."""
    return history_max_tokens(preparation.settings.reserve_tokens)


def _refused_tool_choice(reply: AssistantMessage) -> bool:
    return reply.stop_reason == "error" and "tool_choice" in (reply.error_message or "")


async def summarize_inline(
    preparation: CompactionPreparation,
    target: SummaryModel,
    live: LlmContext,
    *,
    custom_instructions: str | None = None,
    pins: Sequence[str] = (),
    signal: AbortSignal | None = None,
) -> CompactionSummary | SummaryFailure | InlineFallback:
    span = inline_span(preparation, live.messages)
    if span is None:
        return InlineFallback(NOT_A_SUFFIX)
    instructions = UserMessage(
        content=[TextContent(text=inline_instructions(span, custom_instructions, pins))],
        timestamp=int(time.time() * 1000),
    )
    reply = await complete_context(
        target,
        LlmContext(live.system_prompt, [*live.messages, instructions], live.tools),
        max_tokens=output_budget(preparation),
        signal=signal,
        reasoning=True,
        tool_choice=summary_tool_choice(target.model) if live.tools else None,
    )
    if signal is not None and signal.aborted:
        return SummaryFailure(COMPACTION_CANCELLED, cancelled=True)
    usage = [reply.usage]
    if _refused_tool_choice(reply):
        return InlineFallback(f"the server refused tool_choice: {reply.error_message}", usage)
    if reply.stop_reason != "error" and any(isinstance(block, ToolCall) for block in reply.content):
        return InlineFallback(TOOL_CALLED, usage)
    outcome = reply_outcome(reply, SUMMARIZATION_FAILED)
    if isinstance(outcome, SummaryFailure):
        return SummaryFailure(COMPACTION_CANCELLED, True) if outcome.cancelled else outcome
    text = outcome.text
    if not text.strip():
        return InlineFallback(NO_TEXT, usage)
    if span.turn_start is not None:
        if span.history_empty:
            text = NO_PRIOR_HISTORY + SPLIT_TURN_SEPARATOR + text.strip()
        else:
            parts = split_reply(text)
            if parts is None:
                return InlineFallback(NO_DIVIDER, usage)
            text = parts[0] + SPLIT_TURN_SEPARATOR + parts[1]
    return finish_summary(preparation, text, usage, pins)
