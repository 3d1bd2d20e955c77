"""One summariser call: a single model request without tools, never an agent loop (docs/compaction.md).

The provider's stream contract never raises, so the outcome is read from the final message: a
`done` reply's text blocks joined with `\\n` (as pi does), or a failure value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingLevel, Usage, UserMessage
from pi_tui.ai.stream import LlmContext, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT

UNKNOWN_ERROR = "Unknown error"


@dataclass(frozen=True)
class SummaryText:
    text: str
    usage: Usage


@dataclass(frozen=True)
class SummaryFailure:
    """`cancelled`: the call was aborted (`message` is then the provider's abort text)."""

    message: str
    cancelled: bool = False


SummaryOutcome = SummaryText | SummaryFailure


@dataclass(frozen=True)
class SummaryModel:
    """Who writes the summary: the session's current model, its key and thinking level."""

    model: ModelConfig
    stream_fn: StreamFunction
    api_key: str | None = None
    thinking_level: ThinkingLevel | None = None


async def complete(
    target: SummaryModel,
    prompt: str,
    *,
    max_tokens: int | None,
    signal: AbortSignal | None,
    reasoning: bool,
) -> AssistantMessage:
    """Stream one reply to a single user message under the summarisation system prompt (`max_tokens`
    None: the model's own output limit, as pi 1.6 asks)."""
    context = LlmContext(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt)], timestamp=int(time.time() * 1000))],
    )
    return await complete_context(target, context, max_tokens=max_tokens, signal=signal, reasoning=reasoning)


async def complete_context(
    target: SummaryModel,
    context: LlmContext,
    *,
    max_tokens: int | None,
    signal: AbortSignal | None,
    reasoning: bool,
    tool_choice: str | None = None,
) -> AssistantMessage:
    """Stream one reply to `context`: never an agent loop, so a tool call in it is not run."""
    level = target.thinking_level if reasoning and target.model.reasoning else None
    options = StreamOptions(
        api_key=target.api_key,
        # The budget comes from reserveTokens; a model that can only write fewer (a small local one)
        # would otherwise be asked for more than it can give, or generate far past what is useful.
        max_tokens=None if max_tokens is None else min(max_tokens, target.model.max_tokens),
        reasoning=level if level != "off" else None,
        signal=signal,
        tool_choice=tool_choice,
    )
    final: AssistantMessage | None = None
    async for event in target.stream_fn(target.model, context, options):
        if event.terminal:
            final = event.message or event.partial
    if final is None:
        return AssistantMessage(stop_reason="error", error_message="stream ended without a final message")
    return final


def reply_outcome(reply: AssistantMessage, failure_prefix: str) -> SummaryOutcome:
    """Text of a finished reply, or `<failure_prefix>: <message>` for an error reply."""
    if reply.stop_reason == "aborted":
        return SummaryFailure(reply.error_message or "aborted", cancelled=True)
    if reply.stop_reason == "error":
        return SummaryFailure(f"{failure_prefix}: {reply.error_message or UNKNOWN_ERROR}")
    text = "\n".join(block.text for block in reply.content if isinstance(block, TextContent))
    return SummaryText(text, reply.usage)
