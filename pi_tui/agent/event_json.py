"""The JSON of agent and session events (`--mode json`): `PiEvent.to_json`, one encoder for them all.

Event field values are encoded as `plain_value_json` does, except the two that are not pi's shape as
dataclasses: a `ToolResult` (pi's `AgentToolResult`) and a `StreamEvent` (pi-ai's `AssistantMessageEvent`).
"""

from __future__ import annotations

from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.camel_json import camel_json, plain_value_json
from pi_tui.ai.messages import TextContent, ThinkingContent, ToolCall
from pi_tui.ai.stream import StreamEvent


class PiEvent:
    """Base of the event dataclasses: `to_json()` is the object pi's `JSON.stringify(event)` would give."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return camel_json(self, event_value_json)


def event_value_json(value: Any) -> Any:
    if isinstance(value, ToolResult):
        return tool_result_json(value)
    if isinstance(value, StreamEvent):
        return stream_event_json(value)
    return plain_value_json(value)


def tool_result_json(result: ToolResult) -> dict[str, Any]:
    """pi's `AgentToolResult`: `{content, details}` (+ `terminate` when set); `isError` travels beside it."""
    obj: dict[str, Any] = {"content": [block.to_json_obj() for block in result.content]}
    if result.details is not None:
        obj["details"] = plain_value_json(result.details)
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
