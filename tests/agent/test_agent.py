"""The Agent: state reduction, queues, continue rules, abort, listeners, run failure."""

from __future__ import annotations

import asyncio

import pytest

from pi_tui.agent.agent import Agent, AgentOptions, AgentStateError
from pi_tui.agent.events import AgentEvent
from pi_tui.agent.queues import QueueMode
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from tests.support.waiting import until

from .fakes import MODEL, EchoTool, FakeStream, Reply, SleepTool, call, user


def make_agent(
    *replies: Reply, tools: list[object] | None = None, **options: object
) -> tuple[Agent, FakeStream]:
    stream = FakeStream(*replies)
    agent = Agent(AgentOptions(stream_fn=stream, **options), model=MODEL, tools=tools or [])  # type: ignore[arg-type]
    return agent, stream


class Log:
    """A listener recording event types (and optionally a state snapshot per event)."""

    def __init__(self, agent: Agent | None = None) -> None:
        self.agent = agent
        self.types: list[str] = []
        self.snapshots: list[tuple[str, bool, int, frozenset[str]]] = []

    async def __call__(self, event: AgentEvent, signal: AbortSignal) -> None:
        self.types.append(event.type)
        if self.agent is not None:
            state = self.agent.state
            self.snapshots.append(
                (event.type, state.is_streaming, len(state.messages), state.pending_tool_calls)
            )


def user_texts(agent: Agent) -> list[str]:
    return [user_text(m) for m in agent.state.messages if isinstance(m, UserMessage)]


async def test_prompt_string_builds_user_message_and_reduces_state() -> None:
    agent, stream = make_agent(Reply(text="hello"))
    log = Log(agent)
    agent.subscribe(log)
    image = ImageContent(data="AAAA", mime_type="image/png")

    await agent.prompt("look", [image])

    first = agent.state.messages[0]
    assert isinstance(first, UserMessage)
    assert first.content == [TextContent(text="look"), image]
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert not agent.state.is_streaming and agent.state.streaming_message is None
    # The message is appended on message_end, before listeners see that event.
    assert ("message_end", True, 1, frozenset()) in log.snapshots
    assert log.snapshots[-1] == ("agent_end", True, 2, frozenset())
    assert stream.requests[0].options.reasoning is None


async def test_streaming_message_and_pending_tool_calls_follow_events() -> None:
    agent, _ = make_agent(
        Reply(tool_calls=[call("c1", "sleep", ms=1)]), Reply(text="ok"), tools=[SleepTool()]
    )
    seen: list[tuple[str, object, frozenset[str]]] = []

    def listener(event: AgentEvent, signal: AbortSignal) -> None:
        streaming = agent.state.streaming_message
        seen.append((event.type, streaming.role if streaming else None, agent.state.pending_tool_calls))

    agent.subscribe(listener)
    agent.state.thinking_level = "medium"
    await agent.prompt("go")

    assert ("message_update", "assistant", frozenset()) in seen
    assert ("tool_execution_start", None, frozenset({"c1"})) in seen
    assert ("tool_execution_end", None, frozenset()) in seen
    assert seen[-1] == ("agent_end", None, frozenset())


async def test_thinking_level_is_sent_as_reasoning() -> None:
    agent, stream = make_agent(Reply(text="ok"))
    agent.state.thinking_level = "high"
    await agent.prompt("think")
    assert stream.requests[0].options.reasoning == "high"


async def test_prompt_while_running_raises() -> None:
    agent, _ = make_agent(
        Reply(tool_calls=[call("c1", "sleep", ms=50)]), Reply(text="ok"), tools=[SleepTool()]
    )
    run = asyncio.create_task(agent.prompt("first"))
    await until(lambda: agent.state.is_streaming)

    with pytest.raises(AgentStateError, match=r"steer\(\) or follow_up\(\)"):
        await agent.prompt("second")
    with pytest.raises(AgentStateError, match="already processing"):
        await agent.continue_()
    await run
    assert user_texts(agent) == ["first"]


async def test_steering_is_delivered_after_the_whole_tool_batch() -> None:
    sleeper = SleepTool()
    agent, stream = make_agent(
        Reply(tool_calls=[call("a", "sleep", ms=1, label="a"), call("b", "sleep", ms=30, label="b")]),
        Reply(text="noted"),
        tools=[sleeper],
    )
    sleeper.on_start = lambda label: agent.steer("change of plan") if label == "a" else None

    await agent.prompt("work")

    assert sleeper.finished == ["a", "b"]
    assert [m.role for m in agent.state.messages] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "user",
        "assistant",
    ]
    assert user_texts(agent) == ["work", "change of plan"]
    assert [m.role for m in stream.requests[1].context.messages][-1] == "user"


async def test_follow_up_runs_when_the_agent_would_stop() -> None:
    agent, stream = make_agent(
        Reply(tool_calls=[call("a", "sleep", ms=20)]), Reply(text="one"), Reply(text="two")
    )
    agent.state.tools = [SleepTool()]
    log = Log()
    agent.subscribe(log)

    def on_event(event: AgentEvent, signal: AbortSignal) -> None:
        if event.type == "tool_execution_start":
            agent.follow_up("also this")

    agent.subscribe(on_event)
    await agent.prompt("start")

    assert [m.role for m in agent.state.messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    assert len(stream.requests) == 3
    assert log.types.count("agent_end") == 1
    assert not agent.has_queued_messages()


@pytest.mark.parametrize(("mode", "requests"), [("one-at-a-time", 3), ("all", 2)])
async def test_steering_queue_modes(mode: QueueMode, requests: int) -> None:
    agent, stream = make_agent(
        Reply(tool_calls=[call("a", "sleep", ms=1)]),
        Reply(text="r2"),
        Reply(text="r3"),
        tools=[SleepTool()],
        steering_mode=mode,
    )

    def on_event(event: AgentEvent, signal: AbortSignal) -> None:
        if event.type == "tool_execution_start":
            agent.steer("s1")
            agent.steer("s2")

    agent.subscribe(on_event)
    await agent.prompt("go")

    assert len(stream.requests) == requests
    assert user_texts(agent) == ["go", "s1", "s2"]


async def test_follow_up_mode_all_delivers_everything_at_once() -> None:
    agent, stream = make_agent(Reply(text="r1"), Reply(text="r2"), follow_up_mode="all")
    agent.follow_up("f1")
    agent.follow_up("f2")
    assert agent.has_queued_messages() and len(agent.follow_up_messages) == 2

    await agent.prompt("go")

    assert len(stream.requests) == 2
    assert [m.role for m in stream.requests[1].context.messages] == ["user", "assistant", "user", "user"]


async def test_clear_queues_returns_the_queued_messages() -> None:
    agent, _ = make_agent()
    agent.steer("a")
    agent.follow_up("b")
    cleared = agent.clear_all_queues()
    assert [user_text(m) for m in cleared if isinstance(m, UserMessage)] == ["a", "b"]
    assert not agent.has_queued_messages()


async def test_abort_during_streaming_keeps_the_aborted_message() -> None:
    agent, _ = make_agent(Reply(text="half an answer", hang=True))
    log = Log()
    agent.subscribe(log)

    def on_event(event: AgentEvent, signal: AbortSignal) -> None:
        if event.type == "message_update" and agent.state.streaming_message is not None:
            message = agent.state.streaming_message
            if isinstance(message, AssistantMessage) and message.text == "half an answer":
                agent.abort()

    agent.subscribe(on_event)
    await agent.prompt("talk")

    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert (last.stop_reason, last.text) == ("aborted", "half an answer")
    assert agent.state.error_message == "Request was aborted"
    assert log.types[-3:] == ["message_end", "turn_end", "agent_end"]
    assert not agent.state.is_streaming


async def test_abort_during_a_slow_tool_reaches_the_tool() -> None:
    """The tool would sleep a minute: the abort ends it and the run (the wait gives up at 20 s)."""
    sleeper = SleepTool()
    agent, stream = make_agent(
        Reply(tool_calls=[call("c1", "sleep", ms=60_000)]), Reply(text="x"), tools=[sleeper]
    )
    run = asyncio.create_task(agent.prompt("wait"))
    await sleeper.started_event.wait()

    agent.abort()
    await asyncio.wait_for(run, 20)

    assert sleeper.signals[0].aborted and sleeper.finished == []
    roles = [m.role for m in agent.state.messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    result = agent.state.messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert len(stream.requests) == 1


async def test_continue_rules() -> None:
    agent, stream = make_agent(Reply(text="r1"), Reply(text="r2"), Reply(text="r3"))
    with pytest.raises(AgentStateError, match="No messages to continue from"):
        await agent.continue_()

    # Last message is a user message: a plain continuation, no new prompt events.
    agent.state.messages = [user("pending question")]
    log = Log()
    agent.subscribe(log)
    await agent.continue_()
    assert log.types[:3] == ["agent_start", "turn_start", "message_start"]
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]

    with pytest.raises(AgentStateError, match="Cannot continue from message role: assistant"):
        await agent.continue_()

    # Last message is assistant, steering queued: it runs as a prompt, skipping the initial poll.
    agent.steer("s1")
    agent.steer("s2")
    await agent.continue_()
    assert [m.role for m in stream.requests[1].context.messages][-2:] == ["assistant", "user"]
    assert user_text(stream.requests[1].context.messages[-1]) == "s1"  # type: ignore[arg-type]
    assert user_texts(agent) == ["pending question", "s1", "s2"]
    assert len(stream.requests) == 3


async def test_continue_from_assistant_uses_follow_ups_when_no_steering() -> None:
    agent, stream = make_agent(Reply(text="r1"))
    agent.state.messages = [user("q"), AssistantMessage(content=[TextContent(text="a")])]
    agent.follow_up("more")
    await agent.continue_()
    assert user_texts(agent) == ["q", "more"] and len(stream.requests) == 1


async def test_listeners_are_awaited_in_order_for_every_event() -> None:
    agent, stream = make_agent(Reply(text="a b"))
    order: list[tuple[int, str]] = []

    async def slow(event: AgentEvent, signal: AbortSignal) -> None:
        await asyncio.sleep(0.001)
        order.append((1, event.type))

    def fast(event: AgentEvent, signal: AbortSignal) -> None:
        order.append((2, event.type))

    agent.subscribe(slow)
    unsubscribe = agent.subscribe(fast)
    await agent.prompt("hi")

    types = [t for who, t in order if who == 1]
    assert order == [pair for t in types for pair in ((1, t), (2, t))]
    assert types[0] == "agent_start" and types[-1] == "agent_end"

    unsubscribe()
    order.clear()
    stream.replies.append(Reply(text="c"))
    await agent.prompt("again")
    assert {who for who, _ in order} == {1}


async def test_the_loop_waits_for_listeners() -> None:
    agent, stream = make_agent(Reply(text="ok"))
    requests_seen: list[int] = []

    async def listener(event: AgentEvent, signal: AbortSignal) -> None:
        if event.type == "message_end" and isinstance(getattr(event, "message", None), UserMessage):
            await asyncio.sleep(0.02)
            requests_seen.append(len(stream.requests))

    agent.subscribe(listener)
    await agent.prompt("hi")
    assert requests_seen == [0]


async def test_run_failure_adds_synthetic_error_message_and_agent_end() -> None:
    agent, _ = make_agent(Reply(raises=RuntimeError("401 bad key")))
    log = Log()
    agent.subscribe(log)
    ends: list[list[object]] = []
    agent.subscribe(lambda e, s: ends.append(list(e.messages)) if e.type == "agent_end" else None)

    await agent.prompt("hi")

    failure = agent.state.messages[-1]
    assert isinstance(failure, AssistantMessage)
    assert failure.stop_reason == "error" and failure.error_message == "401 bad key"
    assert failure.content == [TextContent(text="")]
    assert (failure.provider, failure.model, failure.usage.total_tokens) == ("fake", "fake-model", 0)
    assert log.types == ["agent_start", "turn_start", "message_start", "message_end", "agent_end"]
    assert ends == [[failure]]
    assert agent.state.error_message == "401 bad key"
    assert not agent.state.is_streaming and not agent.is_running


async def test_missing_stream_fn_is_a_run_failure() -> None:
    agent = Agent(model=MODEL)
    await agent.prompt("hi")
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.error_message == "No stream function configured"


async def test_prompt_without_model_raises() -> None:
    with pytest.raises(AgentStateError, match="No model configured"):
        await Agent(AgentOptions(stream_fn=FakeStream())).prompt("hi")


async def test_cancelling_the_caller_cancels_the_run_cleanly() -> None:
    sleeper = SleepTool()
    agent, _ = make_agent(Reply(tool_calls=[call("c1", "sleep", ms=5000)]), tools=[sleeper])
    run = asyncio.create_task(agent.prompt("wait"))
    await sleeper.started_event.wait()

    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run

    assert sleeper.signals[0].aborted
    assert not agent.is_running and not agent.state.is_streaming
    assert agent.state.pending_tool_calls == frozenset()
    await agent.wait_for_idle()


async def test_wait_for_idle_and_reset() -> None:
    agent, _ = make_agent(
        Reply(tool_calls=[call("c1", "sleep", ms=20)]), Reply(text="ok"), tools=[EchoTool(), SleepTool()]
    )
    run = asyncio.create_task(agent.prompt("go"))
    await asyncio.sleep(0)
    await agent.wait_for_idle()
    assert run.done() and len(agent.state.messages) == 4

    agent.follow_up("queued")
    agent.reset()
    assert agent.state.messages == [] and not agent.has_queued_messages()
    assert agent.state.error_message is None
