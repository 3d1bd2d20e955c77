"""The `Agent`, as pi's: state, queues, runs as asyncio tasks, listeners.

The agent owns the transcript. It changes only by reducing the events of its own runs (a message is
appended on `message_end`), so a listener sees the state as of the event it is handed. Listeners are
awaited one after another, in subscription order, for every event, and never concurrently with another
event's listeners.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel

from pi_tui.agent.events import (
    AgentEndEvent,
    AgentEvent,
)
from pi_tui.agent.hooks import AfterToolCallHook, BeforeToolCallHook
from pi_tui.agent.listeners import Listeners
from pi_tui.agent.loop import run_continue, run_prompt
from pi_tui.agent.loop_types import (
    DEFAULT_TOOL_EXECUTION,
    AgentContext,
    ConvertToLlm,
    GetApiKey,
    LoopConfig,
    ToolExecutionMode,
    TransformContext,
    default_convert_to_llm,
)
from pi_tui.agent.maybe_await import maybe_await
from pi_tui.agent.queues import DEFAULT_QUEUE_MODE, PendingMessageQueue, QueueMode
from pi_tui.agent.state import AgentState
from pi_tui.agent.tool import AgentTool
from pi_tui.agent.tool_execution import now_ms
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingLevel,
    UserMessage,
)
from pi_tui.ai.stream import StreamFunction
from pi_tui.config.model_config import ModelConfig

Listener: TypeAlias = Callable[[AgentEvent, AbortSignal], Awaitable[None] | None]

BUSY_PROMPT_TEXT = (
    "Agent is already processing a prompt. "
    "Use steer() or follow_up() to queue messages, or wait for completion."
)
BUSY_CONTINUE_TEXT = "Agent is already processing. Wait for completion before continuing."
NO_MESSAGES_TEXT = "No messages to continue from"
NO_MODEL_TEXT = "No model configured"
NO_STREAM_FN_TEXT = "No stream function configured"


class AgentStateError(RuntimeError):
    """A call the agent's current state does not allow (prompt while running, continue from nothing)."""


@dataclass
class AgentOptions:
    """How runs are made. Everything is optional except a `stream_fn` by the time a run starts."""

    stream_fn: StreamFunction | None = None
    convert_to_llm: ConvertToLlm = default_convert_to_llm
    transform_context: TransformContext | None = None
    get_api_key: GetApiKey | None = None
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    steering_mode: QueueMode = DEFAULT_QUEUE_MODE
    follow_up_mode: QueueMode = DEFAULT_QUEUE_MODE
    tool_execution: ToolExecutionMode = DEFAULT_TOOL_EXECUTION
    session_id: str | None = None


class Agent:
    """Runs the loop over its own transcript; see the module docstring for the guarantees."""

    def __init__(
        self,
        options: AgentOptions | None = None,
        *,
        system_prompt: str = "",
        model: ModelConfig | None = None,
        thinking_level: ThinkingLevel = "off",
        tools: Sequence[AgentTool[Any]] = (),
        messages: Sequence[AgentMessage] = (),
    ) -> None:
        self.options = options or AgentOptions()
        self.state = AgentState()
        self.state.system_prompt = system_prompt
        self.state.model = model
        self.state.thinking_level = thinking_level
        self.state.tools = tools
        self.state.messages = messages
        self._steering = PendingMessageQueue(self.options.steering_mode)
        self._follow_up = PendingMessageQueue(self.options.follow_up_mode)
        self._listeners: Listeners[Listener] = Listeners()
        self._emit_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._signal: AbortSignal | None = None

    # --- listeners -----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event, signal)` for every event; returns a function that unsubscribes."""
        return self._listeners.add(listener)

    # --- queues --------------------------------------------------------------------------------

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = mode

    def steer(self, message: str | AgentMessage) -> None:
        """Deliver `message` after the current turn's tool batch finishes."""
        self._steering.enqueue(_as_message(message))

    def follow_up(self, message: str | AgentMessage) -> None:
        """Deliver `message` when the agent would otherwise stop."""
        self._follow_up.enqueue(_as_message(message))

    @property
    def steering_messages(self) -> tuple[AgentMessage, ...]:
        return self._steering.messages

    @property
    def follow_up_messages(self) -> tuple[AgentMessage, ...]:
        return self._follow_up.messages

    def clear_steering_queue(self) -> list[AgentMessage]:
        return self._steering.clear()

    def clear_follow_up_queue(self) -> list[AgentMessage]:
        return self._follow_up.clear()

    def take_steering(self, index: int) -> AgentMessage:
        """Remove and return the steering message at `index` (oldest first)."""
        return self._steering.take(index)

    def take_follow_up(self, index: int) -> AgentMessage:
        """Remove and return the follow-up message at `index` (oldest first)."""
        return self._follow_up.take(index)

    def clear_all_queues(self) -> list[AgentMessage]:
        """Empty both queues; returns what they held, steering first."""
        return [*self._steering.clear(), *self._follow_up.clear()]

    def has_queued_messages(self) -> bool:
        return bool(len(self._steering) or len(self._follow_up))

    # --- runs ----------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._task is not None

    async def prompt(
        self, prompt: str | AgentMessage | Sequence[AgentMessage], images: Sequence[ImageContent] = ()
    ) -> None:
        """Run the loop with new message(s); returns when the run and its listeners are done."""
        if self.is_running:
            raise AgentStateError(BUSY_PROMPT_TEXT)
        if isinstance(prompt, str):
            messages: list[AgentMessage] = [_user_message(prompt, images)]
        elif isinstance(prompt, BaseModel):
            messages = [prompt]
        else:
            messages = list(prompt)
        await self._run(
            lambda config, context, signal, stream_fn: run_prompt(
                messages, context, config, self._emit, signal, stream_fn
            )
        )

    async def continue_(self) -> None:
        """Resume the transcript (pi's `continue()`): after an assistant message only queued steering, then
        follow-up, messages can start a run; after any other message the run continues from it."""
        if self.is_running:
            raise AgentStateError(BUSY_CONTINUE_TEXT)
        if not self.state.messages:
            raise AgentStateError(NO_MESSAGES_TEXT)
        if self.state.messages[-1].role == "assistant":
            steering = self._steering.drain()
            if steering:
                await self._run(
                    lambda config, context, signal, stream_fn: run_prompt(
                        steering, context, config, self._emit, signal, stream_fn
                    ),
                    skip_initial_steering_poll=True,
                )
                return
            follow_ups = self._follow_up.drain()
            if follow_ups:
                await self._run(
                    lambda config, context, signal, stream_fn: run_prompt(
                        follow_ups, context, config, self._emit, signal, stream_fn
                    )
                )
                return
            raise AgentStateError("Cannot continue from message role: assistant")
        await self._run(
            lambda config, context, signal, stream_fn: run_continue(
                context, config, self._emit, signal, stream_fn
            )
        )

    def abort(self) -> None:
        """Fire the running run's signal: the stream ends aborted and running tools are told to stop."""
        if self._signal is not None:
            self._signal.abort()

    async def wait_for_idle(self) -> None:
        """Return once no run is active (the run and all its listeners have finished)."""
        task = self._task
        if task is not None:
            await asyncio.wait([task])

    def reset(self) -> None:
        """Forget the transcript, the runtime state and both queues (abort a running run first)."""
        self.state.messages = []
        self.state.end_run()
        self.state.error_message = None
        self._steering.clear()
        self._follow_up.clear()

    # --- internals -----------------------------------------------------------------------------

    def _loop_config(self, model: ModelConfig, skip_initial_steering_poll: bool) -> LoopConfig:
        skip = [skip_initial_steering_poll]

        def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._steering.drain()

        options = self.options
        return LoopConfig(
            model=model,
            convert_to_llm=options.convert_to_llm,
            transform_context=options.transform_context,
            get_api_key=options.get_api_key,
            reasoning=None if self.state.thinking_level == "off" else self.state.thinking_level,
            session_id=options.session_id,
            before_tool_call=options.before_tool_call,
            after_tool_call=options.after_tool_call,
            tool_execution=options.tool_execution,
            get_steering_messages=steering,
            get_follow_up_messages=self._follow_up.drain,
        )

    async def _run(
        self,
        start: Callable[
            [LoopConfig, AgentContext, AbortSignal, StreamFunction], Awaitable[list[AgentMessage]]
        ],
        *,
        skip_initial_steering_poll: bool = False,
    ) -> None:
        model = self.state.model
        if model is None:
            raise AgentStateError(NO_MODEL_TEXT)
        signal = AbortSignal()
        config = self._loop_config(model, skip_initial_steering_poll)
        context = AgentContext(self.state.system_prompt, list(self.state.messages), list(self.state.tools))
        stream_fn = self.options.stream_fn

        async def execute() -> None:
            try:
                if stream_fn is None:
                    raise AgentStateError(NO_STREAM_FN_TEXT)
                await start(config, context, signal, stream_fn)
            except Exception as error:
                await self._handle_run_failure(model, error, signal.aborted)
            finally:
                self._finish_run()

        self._signal = signal
        self.state.begin_run()
        task = asyncio.create_task(execute())
        self._task = task
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            # The caller was cancelled: stop the run for good, let it clean up, then pass it on.
            signal.abort()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise

    def _finish_run(self) -> None:
        self.state.end_run()
        self._task = None
        self._signal = None

    async def _handle_run_failure(self, model: ModelConfig, error: Exception, aborted: bool) -> None:
        text = str(error) or type(error).__name__
        message = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stop_reason="aborted" if aborted else "error",
            error_message=text,
            timestamp=now_ms(),
        )
        self.state.messages.append(message)
        self.state.error_message = text
        await self._emit(AgentEndEvent([message]))

    async def _emit(self, event: AgentEvent) -> None:
        signal = self._signal or AbortSignal()
        async with self._emit_lock:
            self.state.apply(event)
            for listener in self._listeners:
                await maybe_await(listener(event, signal))


def _user_message(text: str, images: Sequence[ImageContent]) -> UserMessage:
    """pi's string prompt: one user message, a text block followed by the images."""
    return UserMessage(content=[TextContent(text=text), *images], timestamp=now_ms())


def _as_message(message: str | AgentMessage) -> AgentMessage:
    return _user_message(message, ()) if isinstance(message, str) else message
