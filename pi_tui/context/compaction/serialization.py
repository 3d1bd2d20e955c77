"""The conversation as plain text for a summariser: pi's `serializeConversation`.

Sending the span as text, not as chat turns, keeps the summariser from continuing the conversation.
Custom kinds (bash runs, summaries, extension messages) arrive as `[User]:` lines because the
messages are converted with `convert_to_llm` first. Tool results are cut to 2000 characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.stream import LlmMessage
from pi_tui.context.compaction.js_strings import js_len, js_slice

TOOL_RESULT_MAX_CHARS = 2000


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """The first `max_chars` (JavaScript) characters and pi's count of what was dropped."""
    length = js_len(text)
    if length <= max_chars:
        return text
    return f"{js_slice(text, max_chars)}\n\n[... {length - max_chars} more characters truncated]"


def _call_text(call: ToolCall) -> str:
    arguments = ", ".join(f"{key}={js_dumps(value)}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def _assistant_parts(message: AssistantMessage) -> list[str]:
    texts = [block.text for block in message.content if isinstance(block, TextContent)]
    thinking = [block.thinking for block in message.content if isinstance(block, ThinkingContent)]
    calls = [_call_text(block) for block in message.content if isinstance(block, ToolCall)]
    parts: list[str] = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Sequence[LlmMessage]) -> str:
    """Converted messages as `[User]: …` / `[Assistant]: …` / `[Tool result]: …` parts, blank-line joined."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            text = (
                content
                if isinstance(content, str)
                else "".join(block.text for block in content if isinstance(block, TextContent))
            )
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            parts += _assistant_parts(message)
        elif isinstance(message, ToolResultMessage):
            text = message.text
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


def serialize_messages(messages: Sequence[AgentMessage]) -> str:
    """`serialize_conversation(convert_to_llm(messages))`, what every summary request carries."""
    return serialize_conversation(convert_to_llm(messages))
