"""Events serialise to pi's JSON shape (`--mode json`)."""

from __future__ import annotations

from pi_tui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
)
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi_tui.ai.stream import StreamEvent

from .fakes import user


def test_simple_events() -> None:
    assert AgentStartEvent().to_json() == {"type": "agent_start"}
    assert AgentStartEvent().type == "agent_start"
    message = user("hi")
    assert AgentEndEvent([message]).to_json() == {
        "type": "agent_end",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}],
    }


def test_turn_end_uses_camel_case_and_message_json() -> None:
    assistant = AssistantMessage(content=[TextContent(text="x")], stop_reason="toolUse", timestamp=5)
    result = ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=[TextContent(text="r")], timestamp=6
    )
    obj = TurnEndEvent(assistant, [result]).to_json()
    assert list(obj) == ["type", "message", "toolResults"]
    assert obj["message"]["stopReason"] == "toolUse"
    assert obj["toolResults"][0]["toolCallId"] == "c1"


def test_message_update_carries_pi_assistant_message_event() -> None:
    partial = AssistantMessage(content=[TextContent(text="hel")])
    delta = MessageUpdateEvent(
        partial, StreamEvent("text_delta", partial, content_index=0, delta="l")
    ).to_json()
    assert list(delta) == ["type", "message", "assistantMessageEvent"]
    event = delta["assistantMessageEvent"]
    assert list(event) == ["type", "contentIndex", "delta", "partial"]
    assert (event["type"], event["contentIndex"], event["delta"]) == ("text_delta", 0, "l")

    call = ToolCall(id="c1", name="ls", arguments={"path": "."})
    with_call = AssistantMessage(content=[TextContent(text="x"), call])
    end = MessageUpdateEvent(with_call, StreamEvent("toolcall_end", with_call, content_index=1)).to_json()
    assert end["assistantMessageEvent"]["toolCall"] == {
        "type": "toolCall",
        "id": "c1",
        "name": "ls",
        "arguments": {"path": "."},
    }
    text_end = MessageUpdateEvent(with_call, StreamEvent("text_end", with_call, content_index=0)).to_json()
    assert text_end["assistantMessageEvent"]["content"] == "x"


def test_tool_events() -> None:
    start = ToolExecutionStartEvent("c1", "bash", {"command": "ls"}).to_json()
    assert start == {
        "type": "tool_execution_start",
        "toolCallId": "c1",
        "toolName": "bash",
        "args": {"command": "ls"},
    }

    update = ToolExecutionUpdateEvent("c1", "bash", {"command": "ls"}, ToolResult.text("part")).to_json()
    assert update["partialResult"] == {"content": [{"type": "text", "text": "part"}]}

    end = ToolExecutionEndEvent(
        "c1", "bash", ToolResult.text("boom", details={}, is_error=True), True
    ).to_json()
    assert end == {
        "type": "tool_execution_end",
        "toolCallId": "c1",
        "toolName": "bash",
        "result": {"content": [{"type": "text", "text": "boom"}], "details": {}},
        "isError": True,
    }
    assert js_dumps(end).startswith('{"type":"tool_execution_end","toolCallId":"c1"')


def test_terminate_appears_only_when_set() -> None:
    result = ToolResult(content=[TextContent(text="t")], terminate=True)
    assert ToolExecutionEndEvent("c", "x", result, False).to_json()["result"]["terminate"] is True
