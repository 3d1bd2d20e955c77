"""The loop's event order and turn structure."""

from __future__ import annotations

import pytest

from pi_tui.agent.events import MessageEndEvent, MessageStartEvent, MessageUpdateEvent, TurnEndEvent
from pi_tui.agent.loop import ContinueError, run_continue, run_prompt
from pi_tui.agent.loop_types import AgentContext, LoopConfig
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    ToolResultMessage,
    UserMessage,
)

from .fakes import (
    MODEL,
    EchoTool,
    FakeStream,
    Recorder,
    Reply,
    SleepTool,
    StopTool,
    call,
    run_prompt_loop,
    user,
)


async def test_text_only_reply_emits_pi_event_order() -> None:
    run = await run_prompt_loop([Reply(text="hello there world")])

    assert run.types == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",  # text_start
        "message_update",
        "message_update",
        "message_update",
        "message_update",  # text_end
        "message_end",
        "turn_end",
        "agent_end",
    ]
    updates = run.recorder.of("message_update")
    assert [u.assistant_event.type for u in updates] == [
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
    ]
    # Each update carries the message as it was at that step.
    assert [u.message.text for u in updates] == [
        "",
        "hello",
        "hello there",
        "hello there world",
        "hello there world",
    ]
    final = run.recorder.of("message_end")[1].message
    assert isinstance(final, AssistantMessage) and final.text == "hello there world"
    assert final.stop_reason == "stop"
    assert [m.role for m in run.messages] == ["user", "assistant"]
    assert run.recorder.of("agent_end")[0].messages == run.messages
    assert run.recorder.of("turn_end")[0].tool_results == []


async def test_stream_without_start_event_appends_with_message_start() -> None:
    run = await run_prompt_loop([Reply(text="quiet", emit_start=False)])

    assert run.types[4:] == ["message_start", "message_end", "turn_end", "agent_end"]
    start = run.recorder.events[4]
    assert isinstance(start, MessageStartEvent) and isinstance(start.message, AssistantMessage)
    assert start.message.text == "quiet"


async def test_one_tool_call_then_final_answer() -> None:
    echo = EchoTool()
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "echo", text="ping")]), Reply(text="done")],
        tools=[echo],
    )

    assert run.types == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",  # toolcall_start
        "message_update",  # toolcall_end
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_update",
        "message_update",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assert [m.role for m in run.messages] == ["user", "assistant", "toolResult", "assistant"]
    result = run.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert (result.tool_call_id, result.tool_name, result.text, result.is_error) == (
        "c1",
        "echo",
        "ping",
        False,
    )
    assert result.details == {"echoed": True}
    first_turn_end = run.recorder.of("turn_end")[0]
    assert first_turn_end.tool_results == [result]
    # The second request sees the tool result; the tool schema was sent both times.
    second = run.stream.requests[1].context
    assert [m.role for m in second.messages] == ["user", "assistant", "toolResult"]
    assert [spec.name for spec in second.tools] == ["echo"]
    assert second.system_prompt == "system"


async def test_error_reply_ends_run_without_running_tools() -> None:
    echo = EchoTool()
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "echo", text="x")], error="upstream 500")], tools=[echo]
    )

    assert run.types[-3:] == ["message_end", "turn_end", "agent_end"]
    assert "tool_execution_start" not in run.types
    assert echo.seen == []
    last = run.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert last.error_message == "upstream 500"


async def test_terminate_stops_without_another_model_call() -> None:
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "stop")]), Reply(text="never")], tools=[StopTool()]
    )

    assert len(run.stream.requests) == 1
    assert run.types[-4:] == ["message_start", "message_end", "turn_end", "agent_end"]
    assert [m.role for m in run.messages] == ["user", "assistant", "toolResult"]


async def test_terminate_needs_every_result_to_terminate() -> None:
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "stop"), call("c2", "echo", text="x")]), Reply(text="again")],
        tools=[StopTool(), EchoTool()],
    )

    assert len(run.stream.requests) == 2


async def test_steering_polled_at_start_and_after_each_turn() -> None:
    polls: list[list[AgentMessage]] = [[user("early")], [user("late")], []]

    def steering() -> list[AgentMessage]:
        return polls.pop(0) if polls else []

    run = await run_prompt_loop([Reply(text="one"), Reply(text="two")], get_steering_messages=steering)

    texts = [m.content[0].text for m in run.messages if isinstance(m, UserMessage)]  # type: ignore[union-attr]
    assert texts == ["hi", "early", "late"]
    # The early message joins the first request; the late one starts a new turn after the first reply.
    assert [m.role for m in run.stream.requests[0].context.messages] == ["user", "user"]
    assert [m.role for m in run.messages] == ["user", "user", "assistant", "user", "assistant"]
    assert run.types.count("turn_start") == 2


async def test_follow_ups_only_when_the_agent_would_stop() -> None:
    follow_ups: list[list[AgentMessage]] = [[user("and then?")]]
    steering_polls = 0

    def steering() -> list[AgentMessage]:
        nonlocal steering_polls
        steering_polls += 1
        return []

    run = await run_prompt_loop(
        [
            Reply(tool_calls=[call("c1", "echo", text="x")]),
            Reply(text="first stop"),
            Reply(text="second stop"),
        ],
        tools=[EchoTool()],
        get_steering_messages=steering,
        get_follow_up_messages=lambda: follow_ups.pop(0) if follow_ups else [],
    )

    assert [m.role for m in run.messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    assert len(run.stream.requests) == 3
    assert steering_polls == 4  # the initial poll, then one after each of the three turns


async def test_abort_during_streaming_keeps_aborted_message() -> None:
    signal = AbortSignal()
    recorder = Recorder()

    async def sink(event: object) -> None:
        await recorder(event)  # type: ignore[arg-type]
        if isinstance(event, MessageUpdateEvent) and event.message.text == "partial":
            signal.abort()

    stream = FakeStream(Reply(text="partial", hang=True))
    messages = await run_prompt(
        [user("hi")], AgentContext("", [], []), LoopConfig(model=MODEL), sink, signal, stream
    )

    assert recorder.types[-3:] == ["message_end", "turn_end", "agent_end"]
    last = messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted" and last.text == "partial"
    assert last.error_message == "Request was aborted"


async def test_tools_finishing_under_abort_make_next_call_aborted_without_request() -> None:
    signal = AbortSignal()
    sleeper = SleepTool()
    sleeper.on_start = lambda label: signal.abort()
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "sleep", ms=5000, label="a")]), Reply(text="unreached")],
        tools=[sleeper],
        signal=signal,
    )

    assert len(run.stream.requests) == 1
    assert sleeper.signals == [signal] and sleeper.finished == []
    result = run.messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error and result.text == "Operation aborted"
    last = run.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    assert run.types[-6:] == [
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]


async def test_continue_requires_a_non_assistant_last_message() -> None:
    stream = FakeStream(Reply(text="x"))
    with pytest.raises(ContinueError, match="no messages"):
        await run_continue(
            AgentContext("", [], []), LoopConfig(model=MODEL), Recorder(), AbortSignal(), stream
        )
    with pytest.raises(ContinueError, match="Cannot continue from message role: assistant"):
        await run_continue(
            AgentContext("", [user("a"), AssistantMessage()], []),
            LoopConfig(model=MODEL),
            Recorder(),
            AbortSignal(),
            stream,
        )
    assert stream.requests == []


async def test_continue_emits_no_prompt_events_and_returns_only_new_messages() -> None:
    recorder = Recorder()
    stream = FakeStream(Reply(text="resumed"))
    messages = await run_continue(
        AgentContext("", [user("a")], []), LoopConfig(model=MODEL), recorder, AbortSignal(), stream
    )

    assert recorder.types[:3] == ["agent_start", "turn_start", "message_start"]
    assert isinstance(recorder.events[2], MessageStartEvent)
    assert isinstance(recorder.events[2].message, AssistantMessage)
    assert [m.role for m in messages] == ["assistant"]


async def test_default_conversion_drops_custom_kinds_and_options_reach_provider() -> None:
    transformed: list[int] = []

    async def transform(messages: list[AgentMessage], signal: AbortSignal) -> list[AgentMessage]:
        transformed.append(len(messages))
        return messages

    recorder = Recorder()
    stream = FakeStream(Reply(text="ok"))
    context = AgentContext("", [BashExecutionMessage(command="ls")], [])
    await run_prompt(
        [user("hi")],
        context,
        LoopConfig(
            model=MODEL,
            transform_context=transform,
            get_api_key=lambda provider: f"key-for-{provider}",
            reasoning="high",
            session_id="s1",
        ),
        recorder,
        AbortSignal(),
        stream,
    )

    request = stream.requests[0]
    assert transformed == [2]
    assert [m.role for m in request.context.messages] == ["user"]
    assert (request.options.api_key, request.options.reasoning, request.options.session_id) == (
        "key-for-fake",
        "high",
        "s1",
    )
    assert request.options.signal is not None


async def test_turn_end_carries_the_final_assistant_message() -> None:
    run = await run_prompt_loop([Reply(text="a b")])
    turn_end = run.recorder.of("turn_end")[0]
    message_end = run.recorder.of("message_end")[-1]
    assert isinstance(turn_end, TurnEndEvent) and isinstance(message_end, MessageEndEvent)
    assert turn_end.message is message_end.message
