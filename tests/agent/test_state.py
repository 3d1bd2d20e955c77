"""AgentState: copies on assignment, and the reduction of events."""

from __future__ import annotations

from pi_tui.agent.events import (
    AgentEndEvent,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pi_tui.agent.state import AgentState
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.messages import AssistantMessage

from .fakes import user


def test_assigning_messages_copies_the_list() -> None:
    state = AgentState()
    source = [user("a")]
    state.messages = source
    source.append(user("b"))
    assert len(state.messages) == 1


def test_events_reduce_into_state() -> None:
    state = AgentState()
    state.begin_run()
    message = user("hi")

    state.apply(MessageStartEvent(message))
    assert state.streaming_message is message and state.messages == []
    state.apply(MessageEndEvent(message))
    assert state.streaming_message is None and state.messages == [message]

    state.apply(ToolExecutionStartEvent("c1", "echo", {}))
    state.apply(ToolExecutionStartEvent("c2", "echo", {}))
    state.apply(ToolExecutionEndEvent("c1", "echo", ToolResult.text("x"), False))
    assert state.pending_tool_calls == frozenset({"c2"})

    failed = AssistantMessage(stop_reason="error", error_message="quota")
    state.apply(TurnEndEvent(failed, []))
    assert state.error_message == "quota"
    state.apply(TurnEndEvent(AssistantMessage(), []))
    assert state.error_message == "quota"  # only a failed turn writes it

    state.apply(AgentEndEvent([message]))
    state.end_run()
    assert not state.is_streaming and state.pending_tool_calls == frozenset()
    state.begin_run()
    assert state.is_streaming and state.error_message is None
