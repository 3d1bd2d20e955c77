"""The events an agent run emits (pi's list), typed, with pi's JSON shape for `--mode json`.

Every event is a frozen dataclass whose `type` field is a string literal, so a listener can switch on
`event.type` (or `isinstance`). `to_json()` (from `PiEvent`) returns the object pi's
`JSON.stringify(event)` would give: camelCase keys in field order, messages as their on-disk JSON,
optional values left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_tui.agent.event_json import PiEvent
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.camel_json import json_field
from pi_tui.ai.messages import AgentMessage, AssistantMessage, ToolResultMessage
from pi_tui.ai.stream import StreamEvent


@dataclass(frozen=True)
class AgentStartEvent(PiEvent):
    type: Literal["agent_start"] = field(default="agent_start", init=False)


@dataclass(frozen=True)
class AgentEndEvent(PiEvent):
    """The run is over; `messages` are the ones it added (prompts included), in order."""

    messages: Sequence[AgentMessage]
    type: Literal["agent_end"] = field(default="agent_end", init=False)


@dataclass(frozen=True)
class TurnStartEvent(PiEvent):
    type: Literal["turn_start"] = field(default="turn_start", init=False)


@dataclass(frozen=True)
class TurnEndEvent(PiEvent):
    """One assistant response and the results of the tool calls it made."""

    message: AgentMessage
    tool_results: Sequence[ToolResultMessage]
    type: Literal["turn_end"] = field(default="turn_end", init=False)


@dataclass(frozen=True)
class MessageStartEvent(PiEvent):
    message: AgentMessage
    type: Literal["message_start"] = field(default="message_start", init=False)


@dataclass(frozen=True)
class MessageUpdateEvent(PiEvent):
    """A streaming assistant message grew; `assistant_event` is the provider step that grew it."""

    message: AssistantMessage
    assistant_event: StreamEvent = field(metadata=json_field(key="assistantMessageEvent"))
    type: Literal["message_update"] = field(default="message_update", init=False)


@dataclass(frozen=True)
class MessageEndEvent(PiEvent):
    """The message is final; the agent appends it to its transcript on this event."""

    message: AgentMessage
    type: Literal["message_end"] = field(default="message_end", init=False)


@dataclass(frozen=True)
class ToolExecutionStartEvent(PiEvent):
    """Emitted before validation, so `args` are the raw arguments the model sent."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    type: Literal["tool_execution_start"] = field(default="tool_execution_start", init=False)


@dataclass(frozen=True)
class ToolExecutionUpdateEvent(PiEvent):
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: ToolResult
    type: Literal["tool_execution_update"] = field(default="tool_execution_update", init=False)


@dataclass(frozen=True)
class ToolExecutionEndEvent(PiEvent):
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool
    type: Literal["tool_execution_end"] = field(default="tool_execution_end", init=False)


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
