"""The bridge keeps every structural event and only the latest state of each stream per frame."""

from __future__ import annotations

from pi_tui.agent.events import (
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.messages import AssistantMessage, BashExecutionMessage, TextContent
from pi_tui.ai.stream import StreamEvent
from pi_tui.session.session_events import BashEndEvent, BashOutputEvent
from pi_tui.tui.bridge import coalesce


def reply(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)])


def update(text: str) -> MessageUpdateEvent:
    message = reply(text)
    return MessageUpdateEvent(message, StreamEvent("text_delta", message, 0, text[-1:]))


def tool_update(call_id: str, text: str) -> ToolExecutionUpdateEvent:
    return ToolExecutionUpdateEvent(call_id, "bash", {}, ToolResult.text(text))


def test_runs_of_updates_collapse_to_the_latest() -> None:
    start, end = MessageStartEvent(reply("")), MessageEndEvent(reply("abc"))
    events = [start, update("a"), update("ab"), update("abc"), end]
    assert coalesce(events) == [start, events[3], end]


def test_tool_updates_collapse_per_call_and_stop_at_the_end() -> None:
    a1, b1, a2 = tool_update("a", "1"), tool_update("b", "1"), tool_update("a", "2")
    end = ToolExecutionEndEvent("a", "bash", ToolResult.text("2"), False)
    a3 = tool_update("a", "3")
    assert coalesce([a1, b1, a2, end, a3]) == [b1, a2, end, a3]


def test_bash_output_keeps_only_the_newest_preview() -> None:
    first, second = BashOutputEvent("ls", "a"), BashOutputEvent("ls", "a\nb")
    done = BashEndEvent(BashExecutionMessage(command="ls", output="a\nb"), pending=False)
    assert coalesce([first, second, done]) == [second, done]
