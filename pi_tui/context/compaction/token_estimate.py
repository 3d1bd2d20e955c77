"""pi's conservative chars/4 token estimates and the compaction trigger.

These are deliberately pi's numbers, not tiktoken counts: the trigger and the cut point must stay
conservative (it over-counts rather than under-counts), and matching pi keeps cut points identical on
the same session.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.config.bounds import reserve_within_window
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.js_strings import js_len

CHARS_PER_TOKEN = 4
IMAGE_CHARS = 4800
"""What pi charges an image in a tool result or custom message (≈1200 tokens)."""


def _chars_to_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _blocks_chars(content: str | Sequence[object], *, images: bool) -> int:
    if isinstance(content, str):
        return js_len(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += js_len(block.text)
        elif images and isinstance(block, ImageContent):
            chars += IMAGE_CHARS
    return chars


def estimate_tokens(message: AgentMessage) -> int:
    """pi's `estimateTokens`: ceil(chars / 4) of what the message carries; unknown roles are 0."""
    if isinstance(message, UserMessage):
        return _chars_to_tokens(_blocks_chars(message.content, images=False))
    if isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += js_len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += js_len(block.name) + js_len(js_dumps(block.arguments))
        return _chars_to_tokens(chars)
    if isinstance(message, CustomMessage | ToolResultMessage):
        return _chars_to_tokens(_blocks_chars(message.content, images=True))
    if isinstance(message, BashExecutionMessage):
        return _chars_to_tokens(js_len(message.command) + js_len(message.output))
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return _chars_to_tokens(js_len(message.summary))
    return 0


def usage_tokens(usage: Usage) -> int:
    """pi's `calculateContextTokens`: the reported total, else the sum of the four counts."""
    return usage.context_tokens()


def last_usage_index(messages: Sequence[AgentMessage]) -> int | None:
    """Index of the last assistant reply whose usage is valid (neither error nor aborted)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage) and not message.failed:
            return index
    return None


@dataclass(frozen=True)
class ContextEstimate:
    """pi's `ContextUsageEstimate`: reported usage of the last valid reply plus estimates after it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextEstimate:
    """pi's `estimateContextTokens`; with no valid usage every message is estimated."""
    index = last_usage_index(messages)
    if index is None:
        estimated = sum(estimate_tokens(message) for message in messages)
        return ContextEstimate(estimated, 0, estimated, None)
    reply = messages[index]
    assert isinstance(reply, AssistantMessage)
    used = usage_tokens(reply.usage)
    trailing = sum(estimate_tokens(message) for message in messages[index + 1 :])
    return ContextEstimate(used + trailing, used, trailing, index)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """pi's `shouldCompact`: enabled and over `window - reserve` (a 0 window: any positive count), the
    reserve at most half the window."""
    reserve = reserve_within_window(settings.reserve_tokens, context_window)
    return settings.enabled and context_tokens > context_window - reserve
