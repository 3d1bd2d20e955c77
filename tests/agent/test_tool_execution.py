"""Tool batches: preparation failures, hooks, parallel vs sequential order."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar

from pydantic import BaseModel

from pi_tui.agent.events import (
    AgentEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.agent.hooks import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi_tui.agent.loop import run_prompt
from pi_tui.agent.loop_types import AgentContext, LoopConfig
from pi_tui.agent.tool import AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import TextContent, ToolCall, ToolResultMessage
from pi_tui.ai.tool_arguments import make_tool_call

from .fakes import (
    MODEL,
    EchoParams,
    EchoTool,
    FailTool,
    FakeStream,
    LoopRun,
    ProgressTool,
    Recorder,
    Reply,
    SequentialSleepTool,
    SleepTool,
    call,
    run_prompt_loop,
    user,
)


def tool_events(run: LoopRun) -> list[tuple[str, str]]:
    """(event type, tool call id) for tool events and tool-result messages, in emission order."""
    out: list[tuple[str, str]] = []
    for event in run.recorder.events:
        if isinstance(event, ToolExecutionStartEvent | ToolExecutionEndEvent | ToolExecutionUpdateEvent):
            out.append((event.type, event.tool_call_id))
        elif event.type in ("message_start", "message_end") and isinstance(event.message, ToolResultMessage):
            out.append((event.type, event.message.tool_call_id))
    return out


def results(run: LoopRun) -> list[ToolResultMessage]:
    return [m for m in run.messages if isinstance(m, ToolResultMessage)]


async def one_call(tool_call: ToolCall, tools: list[Any], **config: Any) -> tuple[LoopRun, ToolResultMessage]:
    run = await run_prompt_loop([Reply(tool_calls=[tool_call]), Reply(text="ok")], tools=tools, **config)
    [result] = results(run)
    return run, result


async def test_parallel_ends_in_completion_order_results_in_call_order() -> None:
    sleeper = SleepTool()
    run = await run_prompt_loop(
        [
            Reply(
                tool_calls=[
                    call("slow", "sleep", ms=80, label="slow"),
                    call("fast", "sleep", ms=10, label="fast"),
                    call("bad", "missing"),
                ]
            ),
            Reply(text="ok"),
        ],
        tools=[sleeper],
    )

    assert tool_events(run) == [
        ("tool_execution_start", "slow"),
        ("tool_execution_start", "fast"),
        ("tool_execution_start", "bad"),
        ("tool_execution_end", "bad"),  # immediate failure: ends during preparation
        ("tool_execution_end", "fast"),
        ("tool_execution_end", "slow"),
        ("message_start", "slow"),
        ("message_end", "slow"),
        ("message_start", "fast"),
        ("message_end", "fast"),
        ("message_start", "bad"),
        ("message_end", "bad"),
    ]
    assert sleeper.started == ["slow", "fast"]
    assert sleeper.finished == ["fast", "slow"]  # the fast call ran while the slow one slept
    assert [r.text for r in results(run)] == ["slept slow", "slept fast", "Tool missing not found"]


async def test_sequential_mode_runs_each_call_to_completion() -> None:
    run = await run_prompt_loop(
        [
            Reply(tool_calls=[call("a", "sleep", ms=30, label="a"), call("b", "sleep", ms=1, label="b")]),
            Reply(text="ok"),
        ],
        tools=[SleepTool()],
        tool_execution="sequential",
    )

    assert tool_events(run) == [
        ("tool_execution_start", "a"),
        ("tool_execution_end", "a"),
        ("message_start", "a"),
        ("message_end", "a"),
        ("tool_execution_start", "b"),
        ("tool_execution_end", "b"),
        ("message_start", "b"),
        ("message_end", "b"),
    ]


async def test_a_tool_declaring_sequential_makes_the_batch_sequential() -> None:
    run = await run_prompt_loop(
        [
            Reply(tool_calls=[call("a", "sleep", ms=30, label="a"), call("b", "sleep_seq", ms=1, label="b")]),
            Reply(text="ok"),
        ],
        tools=[SleepTool(), SequentialSleepTool()],
    )

    assert [kind for kind, _ in tool_events(run)][:4] == [
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
    ]


async def test_unknown_tool_result() -> None:
    run, result = await one_call(call("c1", "nope", x=1), [EchoTool()])

    assert result.is_error
    assert result.content == [TextContent(text="Tool nope not found")]
    assert result.details == {}
    end = run.recorder.of("tool_execution_end")[0]
    assert end.is_error and end.result.text_content == "Tool nope not found"


class Inner(BaseModel):
    name: str


class StrictParams(BaseModel):
    path: str
    count: int = 1
    inner: Inner | None = None
    limit: int | None = None


class StrictTool(EchoTool):
    name: ClassVar[str] = "strict"
    parameters: ClassVar[type[BaseModel]] = StrictParams

    async def execute(
        self, tool_call_id: str, params: Any, signal: AbortSignal, on_update: Any = None
    ) -> Any:
        self.seen.append(params)
        return ToolResult.text(params.path)


async def test_validation_failure_text_is_exact() -> None:
    tool = StrictTool()
    _, result = await one_call(call("c1", "strict", count="many", inner={"name": 5}, extra="é"), [tool])

    assert result.is_error and tool.seen == []
    assert result.text == (
        'Validation failed for tool "strict":\n'
        "  - path: must have required properties path\n"
        "  - count: must be integer\n"
        "  - inner.name: must be string\n"
        "\n"
        "Received arguments:\n"
        "{\n"
        '  "count": "many",\n'
        '  "inner": {\n'
        '    "name": 5\n'
        "  },\n"
        '  "extra": "é"\n'
        "}"
    )


async def test_validation_coerces_like_pi_and_drops_optional_nulls() -> None:
    tool = StrictTool()
    _, coerced = await one_call(call("c1", "strict", path="a.txt", count="3", limit="7"), [tool])
    # `count` does not take None, so a null means "use the default"; `limit` takes None as given.
    _, nulls = await one_call(call("c1", "strict", path="b.txt", count=None, limit=None), [tool])

    assert not coerced.is_error and not nulls.is_error
    assert tool.seen == [
        StrictParams(path="a.txt", count=3, limit=7),
        StrictParams(path="b.txt", count=1, limit=None),
    ]


async def test_invalid_json_arguments_report_the_raw_text() -> None:
    tool = EchoTool()
    _, result = await one_call(make_tool_call("c1", "echo", '{"text": "unterminated'), [tool])

    assert result.is_error and tool.seen == []
    assert result.text == (
        'Validation failed for tool "echo":\n'
        "  - root: must be object (the arguments are not valid JSON)\n"
        "\n"
        "Received arguments:\n"
        '{"text": "unterminated'
    )


async def test_invalid_arguments_field_loaded_from_a_session_is_honoured() -> None:
    broken = ToolCall.model_validate(
        {"id": "c1", "name": "echo", "arguments": {}, "invalidArguments": "{oops"}
    )
    _, result = await one_call(broken, [EchoTool()])

    assert result.is_error and result.text.endswith("Received arguments:\n{oops")


async def test_before_hook_blocks_with_reason_or_default_text() -> None:
    seen: list[BeforeToolCallContext] = []

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> BeforeToolCallResult | None:
        seen.append(ctx)
        if ctx.tool_call.id == "c2":
            return BeforeToolCallResult(block=True)
        return BeforeToolCallResult(block=True, reason="not in this folder")

    tool = EchoTool()
    run = await run_prompt_loop(
        [Reply(tool_calls=[call("c1", "echo", text="a"), call("c2", "echo", text="b")]), Reply(text="ok")],
        tools=[tool],
        before_tool_call=before,
    )

    assert tool.seen == []
    assert [(r.text, r.is_error) for r in results(run)] == [
        ("not in this folder", True),
        ("Tool execution was blocked", True),
    ]
    assert seen[0].args == EchoParams(text="a")
    assert seen[0].assistant_message.tool_calls[0].id == "c1"


async def test_after_hook_overrides_field_by_field() -> None:
    def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        assert ctx.result.text_content == "a" and not ctx.is_error
        return AfterToolCallResult(content=[TextContent(text="rewritten")], is_error=True)

    run, result = await one_call(call("c1", "echo", text="a"), [EchoTool()], after_tool_call=after)

    assert (result.text, result.is_error) == ("rewritten", True)
    assert result.details == {"echoed": True}  # not overridden, so kept
    assert run.recorder.of("tool_execution_end")[0].is_error


async def test_raising_after_hook_becomes_error_result() -> None:
    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        raise ValueError("hook exploded")

    _, result = await one_call(call("c1", "echo", text="a"), [EchoTool()], after_tool_call=after)

    assert (result.text, result.is_error, result.details) == ("hook exploded", True, {})


async def test_tool_exception_becomes_error_result_and_run_goes_on() -> None:
    run, result = await one_call(call("c1", "fail", message="disk on fire"), [FailTool()])

    assert (result.text, result.is_error, result.details) == ("disk on fire", True, {})
    assert len(run.stream.requests) == 2
    assert run.types[-1] == "agent_end"


async def test_prepare_arguments_runs_before_validation_and_errors_echo_the_original() -> None:
    class LegacyEcho(EchoTool):
        def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
            if "message" in raw:
                raw = {"text": raw["message"]}
            return raw

    tool = LegacyEcho()
    _, result = await one_call(call("c1", "echo", message="old style"), [tool])

    assert result.text == "old style" and tool.seen == [EchoParams(text="old style")]


async def test_updates_are_all_emitted_before_the_end() -> None:
    run, result = await one_call(call("c1", "progress", steps=4), [ProgressTool()])

    assert [kind for kind, _ in tool_events(run)] == [
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_update",
        "tool_execution_update",
        "tool_execution_update",
        "tool_execution_end",
        "message_start",
        "message_end",
    ]
    updates = run.recorder.of("tool_execution_update")
    assert [u.partial_result.text_content for u in updates] == ["step 0", "step 1", "step 2", "step 3"]
    assert updates[0].args == {"steps": 4}
    assert result.text == "finished"


class StopsStreamingMidDelivery(AgentTool[EchoParams]):
    """Streams through a task of its own that awaits each delivery, and cancels that task when its work
    is done, as the bash tool's throttled updates do; the listener is still busy with the update then."""

    name: ClassVar[str] = "streamer"
    description: ClassVar[str] = "Stream, then stop streaming."
    parameters: ClassVar[type[BaseModel]] = EchoParams

    def __init__(self, listener_may_finish: asyncio.Event) -> None:
        self.listener_may_finish = listener_may_finish

    async def execute(
        self,
        tool_call_id: str,
        params: EchoParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        assert on_update is not None
        handed_over = asyncio.Event()

        async def stream() -> None:
            delivery = on_update(ToolResult.text("partial"))
            handed_over.set()
            if delivery is not None:
                await delivery

        streaming = asyncio.create_task(stream())
        await handed_over.wait()
        streaming.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await streaming
        self.listener_may_finish.set()
        return ToolResult.text(params.text)


async def test_a_tool_that_stops_awaiting_an_update_does_not_end_the_run() -> None:
    """The bash tool stops its update loop while the loop awaits a delivery; that cancelled the delivery,
    and with it the whole run, silently, before the command's result was recorded (seen under load in
    the TUI: a `seq 1 50000` whose block stayed `[running]` and a turn that never answered)."""
    listener_may_finish = asyncio.Event()
    recorder = Recorder()

    async def slow_listener(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionUpdateEvent):
            await listener_may_finish.wait()
        await recorder(event)

    stream = FakeStream(Reply(tool_calls=[call("c1", "streamer", text="finished")]), Reply(text="ok"))
    tool = StopsStreamingMidDelivery(listener_may_finish)
    context = AgentContext("system", [], [tool])
    messages = await run_prompt(
        [user("go")], context, LoopConfig(model=MODEL), slow_listener, AbortSignal(), stream
    )
    [result] = [message for message in messages if isinstance(message, ToolResultMessage)]
    assert result.text == "finished" and not result.is_error
    assert [update.partial_result.text_content for update in recorder.of("tool_execution_update")] == [
        "partial"
    ]
    assert recorder.types[-1] == "agent_end"
