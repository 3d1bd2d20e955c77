"""`/session` statistics (pi's `getSessionStats`), computed from the messages the agent holds now.

Like pi, the numbers describe the current (post-compaction) context, not the whole file: message
counts by role, tool calls, and token and cost sums over the assistant replies' usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.context.compaction.token_estimate import estimate_context_tokens


@dataclass(frozen=True)
class ContextUsage:
    """Estimated context size (last real usage + chars/4 after it) against the model's window."""

    tokens: int
    context_window: int
    window_source: str | None = None
    """Where the window figure came from when not from models.json."""

    @property
    def percent(self) -> float | None:
        return self.tokens / self.context_window * 100 if self.context_window > 0 else None


@dataclass(frozen=True)
class SessionStats:
    session_file: str | None
    session_id: str
    user_messages: int
    assistant_messages: int
    tool_results: int
    tool_calls: int
    total_messages: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: float
    context_usage: ContextUsage | None

    @property
    def total_tokens(self) -> int:
        """pi's total: the sum of the four token counts."""
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def to_json(self) -> dict[str, Any]:
        """pi's `SessionStats` shape (RPC `get_session_stats`)."""
        obj: dict[str, Any] = {
            "sessionFile": self.session_file,
            "sessionId": self.session_id,
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": {
                "input": self.input_tokens,
                "output": self.output_tokens,
                "cacheRead": self.cache_read_tokens,
                "cacheWrite": self.cache_write_tokens,
                "total": self.total_tokens,
            },
            "cost": self.cost,
        }
        if self.context_usage is not None:
            obj["contextUsage"] = {
                "tokens": self.context_usage.tokens,
                "contextWindow": self.context_usage.context_window,
                "percent": self.context_usage.percent,
            }
            if self.context_usage.window_source is not None:
                obj["contextUsage"]["windowSource"] = self.context_usage.window_source
        return obj


def session_stats(
    messages: Sequence[AgentMessage],
    *,
    session_file: str | None,
    session_id: str,
    context_window: int | None,
    window_source: str | None = None,
) -> SessionStats:
    """Counts and sums over `messages`; context usage only when a model (window) is known. pi 1.6's
    system messages (prompt checkpoints) are not counted: the prompt is not a message of the talk."""
    assistants = [message for message in messages if isinstance(message, AssistantMessage)]
    usage = [message.usage for message in assistants]
    context = None
    if context_window is not None and context_window > 0:
        context = ContextUsage(estimate_context_tokens(messages).tokens, context_window, window_source)
    return SessionStats(
        session_file=session_file,
        session_id=session_id,
        user_messages=sum(isinstance(message, UserMessage) for message in messages),
        assistant_messages=len(assistants),
        tool_results=sum(isinstance(message, ToolResultMessage) for message in messages),
        tool_calls=sum(len(message.tool_calls) for message in assistants),
        total_messages=sum(not isinstance(message, SystemMessage) for message in messages),
        input_tokens=sum(item.input for item in usage),
        output_tokens=sum(item.output for item in usage),
        cache_read_tokens=sum(item.cache_read for item in usage),
        cache_write_tokens=sum(item.cache_write for item in usage),
        cost=sum(item.cost.total for item in usage),
        context_usage=context,
    )


def last_assistant_message(messages: Sequence[AgentMessage]) -> AssistantMessage | None:
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            return message
    return None


def last_assistant_text(messages: Sequence[AgentMessage]) -> str | None:
    """pi's `getLastAssistantText`: skips aborted replies that said nothing; text blocks, trimmed."""
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage):
            continue
        if message.stop_reason == "aborted" and not message.content:
            continue
        return "".join(block.text for block in message.content if isinstance(block, TextContent)).strip()
    return None
