"""Test doubles for the agent loop: a scripted StreamFunction and a few small tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from pi_tui.agent.events import AgentEvent
from pi_tui.agent.loop import run_prompt
from pi_tui.agent.loop_types import AgentContext, LoopConfig
from pi_tui.agent.tool import AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    StopReason,
    TextContent,
    ToolCall,
    Usage,
    UserMessage,
)
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig

MODEL = ModelConfig(id="fake-model", provider="fake")


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


@dataclass
class Reply:
    """One scripted assistant reply."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: StopReason | None = None
    error: str | None = None
    delay: float = 0.0
    hang: bool = False
    emit_start: bool = True
    raises: Exception | None = None


@dataclass
class Request:
    context: LlmContext
    options: StreamOptions


class FakeStream:
    """A StreamFunction that plays `Reply`s in order and records each request."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[Request] = []

    def __call__(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        self.requests.append(Request(context, options))
        reply = self.replies.pop(0) if self.replies else Reply(text="(script exhausted)")
        if reply.raises is not None:
            raise reply.raises
        return self._play(model, reply, options.signal or AbortSignal())

    async def _play(
        self, model: ModelConfig, reply: Reply, signal: AbortSignal
    ) -> AsyncIterator[StreamEvent]:
        message = AssistantMessage(provider=model.provider, model=model.id, timestamp=1, usage=Usage(input=1))
        if reply.emit_start:
            yield StreamEvent("start", message)
        if reply.text:
            message = message.model_copy(update={"content": [TextContent(text="")]})
            yield StreamEvent("text_start", message, content_index=0)
            for word in reply.text.split(" "):
                delta = word if not message.text else " " + word
                if await _aborted_within(signal, reply.delay):
                    yield _aborted(message)
                    return
                message = message.model_copy(update={"content": [TextContent(text=message.text + delta)]})
                yield StreamEvent("text_delta", message, content_index=0, delta=delta)
            yield StreamEvent("text_end", message, content_index=0)
        if reply.hang:
            await signal.wait()
            yield _aborted(message)
            return
        for tool_call in reply.tool_calls:
            message = message.model_copy(update={"content": [*message.content, tool_call]})
            index = len(message.content) - 1
            yield StreamEvent("toolcall_start", message, content_index=index)
            yield StreamEvent("toolcall_end", message, content_index=index)
        if reply.error is not None:
            final = message.model_copy(update={"stop_reason": "error", "error_message": reply.error})
            yield StreamEvent("error", final, message=final)
            return
        stop = reply.stop_reason or ("toolUse" if reply.tool_calls else "stop")
        final = message.model_copy(update={"stop_reason": stop})
        yield StreamEvent("done", final, message=final)


async def _aborted_within(signal: AbortSignal, delay: float) -> bool:
    if delay <= 0:
        return signal.aborted
    try:
        await asyncio.wait_for(signal.wait(), delay)
    except TimeoutError:
        return False
    return True


def _aborted(message: AssistantMessage) -> StreamEvent:
    final = message.model_copy(update={"stop_reason": "aborted", "error_message": "Request was aborted"})
    return StreamEvent("error", final, message=final)


class Recorder:
    """An event sink that keeps every event."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    async def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def of(self, kind: str) -> list[Any]:
        return [event for event in self.events if event.type == kind]


# --- tools ----------------------------------------------------------------------------------------


class EchoParams(BaseModel):
    text: str


class EchoTool(AgentTool[EchoParams]):
    name: ClassVar[str] = "echo"
    description: ClassVar[str] = "Echo the text back."
    parameters: ClassVar[type[BaseModel]] = EchoParams

    def __init__(self) -> None:
        self.seen: list[EchoParams] = []

    async def execute(
        self,
        tool_call_id: str,
        params: EchoParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        self.seen.append(params)
        return ToolResult.text(params.text, details={"echoed": True})


class SleepParams(BaseModel):
    ms: int = Field(ge=0)
    label: str = ""


class SleepTool(AgentTool[SleepParams]):
    """Sleeps, then answers `slept <label>`; stops early with an error when the signal fires."""

    name: ClassVar[str] = "sleep"
    description: ClassVar[str] = "Sleep a while."
    parameters: ClassVar[type[BaseModel]] = SleepParams

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finished: list[str] = []
        self.signals: list[AbortSignal] = []
        self.on_start: Any = None
        self.started_event = asyncio.Event()

    async def execute(
        self,
        tool_call_id: str,
        params: SleepParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        self.started.append(params.label)
        self.signals.append(signal)
        self.started_event.set()
        if self.on_start is not None:
            self.on_start(params.label)
        if await _aborted_within(signal, params.ms / 1000):
            raise RuntimeError("Operation aborted")
        self.finished.append(params.label)
        return ToolResult.text(f"slept {params.label}")


class SequentialSleepTool(SleepTool):
    name: ClassVar[str] = "sleep_seq"
    execution_mode = "sequential"


class FailParams(BaseModel):
    message: str = "boom"


class FailTool(AgentTool[FailParams]):
    name: ClassVar[str] = "fail"
    description: ClassVar[str] = "Raise."
    parameters: ClassVar[type[BaseModel]] = FailParams

    async def execute(
        self,
        tool_call_id: str,
        params: FailParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        raise RuntimeError(params.message)


class StopParams(BaseModel):
    pass


class StopTool(AgentTool[StopParams]):
    """Returns a result that asks the loop not to call the model again."""

    name: ClassVar[str] = "stop"
    description: ClassVar[str] = "Finish."
    parameters: ClassVar[type[BaseModel]] = StopParams

    async def execute(
        self,
        tool_call_id: str,
        params: StopParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        return ToolResult(content=[TextContent(text="done")], terminate=True)


class ProgressParams(BaseModel):
    steps: int


class ProgressTool(AgentTool[ProgressParams]):
    """Reports progress through `on_update`, once awaited and once not, then finishes."""

    name: ClassVar[str] = "progress"
    description: ClassVar[str] = "Report progress."
    parameters: ClassVar[type[BaseModel]] = ProgressParams

    async def execute(
        self,
        tool_call_id: str,
        params: ProgressParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        assert on_update is not None
        for step in range(params.steps):
            pending = on_update(ToolResult.text(f"step {step}"))
            if step % 2 == 0 and pending is not None:
                await pending
        return ToolResult.text("finished")


# --- running the loop directly --------------------------------------------------------------------


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


@dataclass
class LoopRun:
    recorder: Recorder
    stream: FakeStream
    messages: list[AgentMessage]

    @property
    def types(self) -> list[str]:
        return self.recorder.types


async def run_prompt_loop(
    replies: list[Reply],
    tools: list[AgentTool[Any]] | None = None,
    prompt: str = "hi",
    signal: AbortSignal | None = None,
    **config: Any,
) -> LoopRun:
    """`run_prompt` with a fresh context, a FakeStream playing `replies` and a recording sink."""
    recorder = Recorder()
    stream = FakeStream(*replies)
    context = AgentContext("system", [], list(tools or []))
    messages = await run_prompt(
        [user(prompt)], context, LoopConfig(model=MODEL, **config), recorder, signal or AbortSignal(), stream
    )
    return LoopRun(recorder, stream, messages)
