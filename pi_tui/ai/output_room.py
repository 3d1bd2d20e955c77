"""How many output tokens a request asks for: pi 1.6's `clampMaxTokensToContext`.

pi 1.6 asks for the model's whole output limit (models.json `maxTokens`, or what the call asked for), lowered
when the context leaves less room: the window minus the input estimate minus a safety margin of 4,096
tokens or 15% of the input, whichever is larger. When that leaves under 32,768 tokens the margin shrinks to
the 4,096, up to 32,768 tokens of output; never less than one token.

One deliberate difference (docs/pi-compatibility.md): the fixed margin is at most a sixth of the window,
so it is pi's 4,096 from a 24,576-token window up and smaller below. pi's 4,096 on an 8,192-token window
left a context of 4,100 tokens one output token: every reply on a small local model was cut off at half
the window, long before compaction could help.

The input estimate is pi 1.6's `estimateContextTokens`: the usage the last valid reply reported, plus
3.5 characters a token (UTF-16 code units, as JavaScript counts them; an image 4,800 characters) for every
message after it; without such a reply, every message, the system prompt and the tool declarations (pi's
`toToolDeclaration`: name, description, parameters and `constrainedSampling`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from pi_tui.ai.stream import LlmContext, LlmMessage
from pi_tui.config.model_config import ModelConfig

CHARS_PER_TOKEN = 3.5
IMAGE_CHARS = 4800
CONTEXT_SAFETY_TOKENS = 4096
CONTEXT_SAFETY_RATIO = 0.15
MIN_OUTPUT_WITH_RATIO_MARGIN = 32_768
SMALL_WINDOW_MARGIN_SHARE = 6
"""Below 6 × 4,096 = 24,576 tokens the fixed margin is window / 6 (pi-tui's difference)."""


def _js_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _content_chars(content: str | Sequence[Any]) -> int:
    if isinstance(content, str):
        return _js_len(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += _js_len(block.text)
        elif isinstance(block, ImageContent):
            chars += IMAGE_CHARS
    return chars


def _message_tokens(message: LlmMessage) -> int:
    if not isinstance(message, AssistantMessage):
        return _tokens(_content_chars(message.content))
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += _js_len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += _js_len(block.thinking)
        elif isinstance(block, ToolCall):
            chars += _js_len(block.name) + _js_len(js_dumps(block.arguments))
    return _tokens(chars)


def _last_usage(messages: Sequence[LlmMessage]) -> tuple[int, int] | None:
    """(index, tokens) of the last reply whose usage counts: not failed, not older than what came before
    it, and reporting tokens."""
    found: tuple[int, int] | None = None
    latest = -math.inf
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.timestamp >= latest and not message.failed:
            used = message.usage.context_tokens()
            if used > 0:
                found = (index, used)
        latest = max(latest, message.timestamp)
    return found


def estimated_input_tokens(context: LlmContext) -> int:
    messages = context.messages
    last = _last_usage(messages)
    if last is not None:
        index, used = last
        return used + sum(_message_tokens(message) for message in messages[index + 1 :])
    declared = [tool.declaration() for tool in context.tools]
    prompt = _tokens(_js_len(context.system_prompt)) + (
        _tokens(_js_len(js_dumps(declared))) if declared else 0
    )
    return prompt + sum(_message_tokens(message) for message in messages)


def safety_margin(window: int) -> int:
    """The fixed part of the margin: pi's 4,096, at most a sixth of a small window."""
    return min(CONTEXT_SAFETY_TOKENS, window // SMALL_WINDOW_MARGIN_SHARE)


def output_tokens(model: ModelConfig, context: LlmContext, requested: int | None = None) -> int:
    """The output cap a request for `context` carries (`requested`: the call's own, else the model's)."""
    wanted = requested or model.max_tokens
    window = model.context_window
    if window <= 0:
        return max(1, wanted)
    used = estimated_input_tokens(context)
    margin = safety_margin(window)
    room = window - used - max(margin, math.ceil(used * CONTEXT_SAFETY_RATIO))
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(MIN_OUTPUT_WITH_RATIO_MARGIN, window - used - margin)
    return min(wanted, max(1, room))
