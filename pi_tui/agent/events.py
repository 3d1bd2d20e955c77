"""The events an agent run emits (pi's list), typed, with pi's JSON shape for `--mode json`.

Every event is a frozen dataclass whose `type` field is a string literal, so a listener can switch on
`event.type` (or `isinstance`). `to_json()` returns the object pi's `JSON.stringify(event)` would give:
camelCase keys, messages as their on-disk JSON, optional values left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from pi_tui.ai.stream import StreamEvent


def _json_value(value: Any) -> Any:
    """Tool details and arguments may hold pydantic models; everything else is JSON already."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value


def tool_result_json(result: ToolResult) -> dict[str, Any]:
    """pi's `AgentToolResult`: `{content, details}` (+ `terminate` when set); `isError` travels beside it."""
    obj: dict[str, Any] = {"content": [block.to_json_obj() for block in result.content]}
    if result.details is not None:
        obj["details"] = _json_value(result.details)
    if result.terminate:
        obj["terminate"] = True
    return obj


def stream_event_json(event: StreamEvent) -> dict[str, Any]:
    """pi-ai's `AssistantMessageEvent` for one stream step (key order as pi's providers build them)."""
    obj: dict[str, Any] = {"type": event.type}
    if event.type in ("done", "error"):
        obj["reason"] = (event.message or event.partial).stop_reason
        obj["message" if event.type == "done" else "error"] = (event.message or event.partial).to_json_obj()
        return obj
    if event.type == "start":
        obj["partial"] = event.partial.to_json_obj()
        return obj
    index = event.content_index if event.content_index is not None else len(event.partial.content) - 1
    obj["contentIndex"] = index
    if event.type.endswith("_delta"):
        obj["delta"] = event.delta or ""
    elif event.type.endswith("_end") and 0 <= index < len(event.partial.content):
        block = event.partial.content[index]
        if isinstance(block, ToolCall):
            obj["toolCall"] = block.to_json_obj()
        elif isinstance(block, TextContent):
            obj["content"] = block.text
        elif isinstance(block, ThinkingContent):
            obj["content"] = block.thinking
    obj["partial"] = event.partial.to_json_obj()
    return obj


@dataclass(frozen=True)
class AgentStartEvent:
    type: Literal["agent_start"] = field(default="agent_start", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True)
class AgentEndEvent:
    """The run is over; `messages` are the ones it added (prompts included), in order."""

    messages: Sequence[AgentMessage]
    type: Literal["agent_end"] = field(default="agent_end", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "messages": [message.to_json_obj() for message in self.messages]}


@dataclass(frozen=True)
class TurnStartEvent:
    type: Literal["turn_start"] = field(default="turn_start", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True)
class TurnEndEvent:
    """One assistant response and the results of the tool calls it made."""

    message: AgentMessage
    tool_results: Sequence[ToolResultMessage]
    type: Literal["turn_end"] = field(default="turn_end", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message.to_json_obj(),
            "toolResults": [result.to_json_obj() for result in self.tool_results],
        }


@dataclass(frozen=True)
class MessageStartEvent:
    message: AgentMessage
    type: Literal["message_start"] = field(default="message_start", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message.to_json_obj()}


@dataclass(frozen=True)
class MessageUpdateEvent:
    """A streaming assistant message grew; `assistant_event` is the provider step that grew it."""

    message: AssistantMessage
    assistant_event: StreamEvent
    type: Literal["message_update"] = field(default="message_update", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message.to_json_obj(),
            "assistantMessageEvent": stream_event_json(self.assistant_event),
        }


@dataclass(frozen=True)
class MessageEndEvent:
    """The message is final; the agent appends it to its transcript on this event."""

    message: AgentMessage
    type: Literal["message_end"] = field(default="message_end", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message.to_json_obj()}


@dataclass(frozen=True)
class ToolExecutionStartEvent:
    """Emitted before validation, so `args` are the raw arguments the model sent."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    type: Literal["tool_execution_start"] = field(default="tool_execution_start", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": _json_value(self.args),
        }


@dataclass(frozen=True)
class ToolExecutionUpdateEvent:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: ToolResult
    type: Literal["tool_execution_update"] = field(default="tool_execution_update", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": _json_value(self.args),
            "partialResult": tool_result_json(self.partial_result),
        }


@dataclass(frozen=True)
class ToolExecutionEndEvent:
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool
    type: Literal["tool_execution_end"] = field(default="tool_execution_end", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "result": tool_result_json(self.result),
            "isError": self.is_error,
        }


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
