"""`AgentSession`: one session's agent, its file, its tools and its system prompt (pi-behaviour §10.3).

Front ends (the TUI and the headless modes) talk to this class only. It owns an `Agent`, feeds it the
rebuilt context of the session file, persists every message at `message_end` (in event order, off the
event loop), and forwards every agent event to its own subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

from pi_tui.agent.agent import Agent, AgentOptions
from pi_tui.agent.events import AgentEvent, MessageEndEvent
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import (
    THINKING_LEVELS,
    AssistantMessage,
    CustomMessage,
    TextContent,
    ThinkingLevel,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.context.resources import Resources
from pi_tui.context.system_prompt import SystemPrompt, ToolPrompt
from pi_tui.session.events import AnyEvent, AutoRetryEndEvent, AutoRetryStartEvent, ModelFallbackEvent
from pi_tui.session.ids import iso_to_ms
from pi_tui.session.retry_policy import retry_delay_ms, should_retry
from pi_tui.session.store import SessionStore
from pi_tui.tools.registry import ToolLimits, build_tools, select_tools

SPILL_FOLDER_NAME = "spill"
DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"

SessionListener: TypeAlias = Callable[[AnyEvent], Awaitable[None] | None]
RETRY_CANCELLED_TEXT = "Retry cancelled"


class SessionBusyError(RuntimeError):
    """A prompt arrived while the agent is running and no queueing behaviour was asked for."""


@dataclass(frozen=True)
class SessionConfig:
    """What a new `AgentSession` is made of; front ends build it from the command line and settings."""

    store: SessionStore
    resources: Resources
    model: ModelConfig | None
    api_key: str | None = None
    thinking_level: ThinkingLevel | None = None
    tool_names: Sequence[str] | None = None
    stream_fn: StreamFunction | None = None


def clamp_thinking(level: ThinkingLevel, model: ModelConfig | None) -> ThinkingLevel:
    """Models without reasoning only take `off`; `xhigh` is sent as `high` by the provider."""
    if model is None or not model.reasoning:
        return "off"
    return level if level in THINKING_LEVELS else DEFAULT_THINKING_LEVEL


def spill_dir_for(store: SessionStore) -> Path | None:
    """Spilled tool output lives beside the session file, so it survives and leaves with the session."""
    if store.path is None:
        return None
    return store.path.parent / SPILL_FOLDER_NAME / store.session_id


class AgentSession:
    """Runs one session: prompts, queues, abort, persistence, events."""

    def __init__(self, config: SessionConfig) -> None:
        self.store = config.store
        self.resources = config.resources
        self.model = config.model
        self._api_key = config.api_key
        self._listeners: list[SessionListener] = []
        self._base_stream_fn = config.stream_fn or _default_stream_fn()
        self._retry_signal: AbortSignal | None = None
        settings = self.resources.settings
        self.tools_by_name = build_tools(
            str(self.resources.cwd),
            limits=ToolLimits(max_lines=settings.tools.max_lines, max_bytes=settings.tools.max_bytes),
            spill_dir=spill_dir_for(self.store),
            shell_path=settings.shell_path,
            command_prefix=settings.shell_command_prefix,
        )
        self.active_tools: list[AgentTool[Any]] = select_tools(self.tools_by_name, config.tool_names)
        existing = self.store.build_context()
        thinking_recorded = _has_thinking_entry(self.store)
        requested = config.thinking_level or (
            existing.thinking_level
            if thinking_recorded
            else settings.default_thinking_level or DEFAULT_THINKING_LEVEL
        )
        self.thinking_level = clamp_thinking(requested, self.model)
        self.system_prompt = self._build_system_prompt()
        self.agent = Agent(
            AgentOptions(
                stream_fn=self._stream,
                convert_to_llm=convert_to_llm,
                get_api_key=self._get_api_key,
                steering_mode=settings.steering_mode,
                follow_up_mode=settings.follow_up_mode,
            ),
            system_prompt=self.system_prompt.text,
            model=self.model,
            thinking_level=self.thinking_level,
            tools=self.active_tools,
            messages=existing.messages,
        )
        self._record_model_and_thinking(existing.model is None, not thinking_recorded)
        self.agent.subscribe(self._on_agent_event)

    # --- construction helpers -------------------------------------------------------------------

    def _build_system_prompt(self) -> SystemPrompt:
        tools = [
            ToolPrompt(tool.name, tool.prompt_snippet, tool.prompt_guidelines) for tool in self.active_tools
        ]
        return self.resources.system_prompt(tools=tools, date=self.session_date)

    @property
    def session_date(self) -> datetime.date:
        """The session's start date: the only date in the prompt, so the prefix stays stable for days."""
        started = iso_to_ms(self.store.header.timestamp)
        if started is None:
            return datetime.date.today()
        return datetime.datetime.fromtimestamp(started / 1000).date()

    def _record_model_and_thinking(self, no_model_recorded: bool, no_thinking_recorded: bool) -> None:
        if self.store.read_only_reason is not None:
            return
        if self.model is not None and (no_model_recorded or not self._model_matches_branch()):
            self.store.append_model_change(self.model.provider, self.model.id)
        if no_thinking_recorded:
            self.store.append_thinking_level_change(self.thinking_level)

    def _model_matches_branch(self) -> bool:
        recorded = self.store.build_context().model
        return (
            self.model is not None
            and recorded is not None
            and self.model.same_model(recorded.provider, recorded.model_id)
        )

    async def _get_api_key(self, provider: str) -> str | None:
        return self._api_key

    def _stream(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        # Session-level retries are visible (countdown, Esc); the SDK's own silent retries would hide them.
        if options.max_retries is None:
            options = replace(options, max_retries=0)
        return self._base_stream_fn(model, context, options)

    # --- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Receive every event, in order; listeners are awaited one after another."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def _on_agent_event(self, event: AgentEvent, signal: AbortSignal) -> None:
        if isinstance(event, MessageEndEvent):
            await self._persist(event)
        await self._emit(event)

    async def _emit(self, event: AnyEvent) -> None:
        for listener in list(self._listeners):
            result = listener(event)
            if result is not None:
                await result

    async def _persist(self, event: MessageEndEvent) -> None:
        message = event.message
        if self.store.read_only_reason is not None:
            return
        if isinstance(message, CustomMessage):
            await asyncio.to_thread(
                self.store.append_custom_message,
                message.custom_type,
                message.content,
                message.display,
                message.details,
            )
        elif isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            await asyncio.to_thread(self.store.append_message, message)

    # --- intents --------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self.agent.is_running

    async def prompt(self, text: str) -> None:
        """Send `text` (after skill and template expansion) and wait until the run is over."""
        if self.agent.is_running:
            raise SessionBusyError("Agent is already processing. Use steer() or follow_up() to queue.")
        if self.model is None:
            raise SessionBusyError("No model configured: pass --model or add one to models.json")
        expanded = self.resources.expand_input(text)
        self.agent.state.system_prompt = self.system_prompt.text
        await self.agent.prompt(expanded)
        await self._recover_from_failures()

    # --- failure handling (SPEC R9) ---------------------------------------------------------------

    async def _recover_from_failures(self) -> None:
        """Retry transient failures with backoff, then fall back along `fallbackModels` (pi §7.3, R9.2).

        The failed reply stays in the session file but leaves the agent's state before each new attempt,
        so it is never replayed.
        """
        settings = self.resources.settings.retry
        tried = {self.model.ref} if self.model else set()
        attempt = 0
        while True:
            last = self.last_assistant_message()
            window = self.model.context_window if self.model else 0
            if not should_retry(last, settings, window):
                if attempt > 0 and last is not None and not last.failed:
                    await self._emit(AutoRetryEndEvent(success=True, attempt=attempt))
                return
            assert last is not None
            attempt += 1
            if attempt > settings.max_retries:
                await self._emit(
                    AutoRetryEndEvent(success=False, attempt=attempt - 1, final_error=last.error_message)
                )
                if not await self._fall_back(tried, last.error_message or ""):
                    return
                attempt = 0
            else:
                delay = retry_delay_ms(attempt, settings, last)
                await self._emit(
                    AutoRetryStartEvent(attempt, settings.max_retries, delay, last.error_message or "")
                )
                self._drop_failed_reply()
                if not await self._wait_for_retry(delay):
                    await self._emit(
                        AutoRetryEndEvent(success=False, attempt=attempt, final_error=RETRY_CANCELLED_TEXT)
                    )
                    return
            await self.agent.continue_()

    def _drop_failed_reply(self) -> None:
        messages = self.agent.state.messages
        if messages and isinstance(messages[-1], AssistantMessage) and messages[-1].failed:
            self.agent.state.messages = messages[:-1]

    async def _wait_for_retry(self, delay_ms: int) -> bool:
        """Sleep unless aborted first; True when the retry should go ahead."""
        self._retry_signal = signal = AbortSignal()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), timeout=delay_ms / 1000)
            return not signal.aborted
        finally:
            self._retry_signal = None

    async def _fall_back(self, tried: set[str], error_message: str) -> bool:
        """Switch to the next untried model of `fallbackModels`; a chain that loops is cut at the repeat."""
        for ref in self.resources.settings.fallback_models:
            resolution = resolve_model(ref)
            model = resolution.model
            if model is None or model.ref in tried or ref in tried:
                continue
            tried.update({ref, model.ref})
            previous = self.model.ref if self.model else "(none)"
            self._drop_failed_reply()
            self._switch_model(model, resolution.api_key)
            await self._emit(ModelFallbackEvent(previous, model.ref, error_message))
            return True
        return False

    def _switch_model(self, model: ModelConfig, api_key: str | None) -> None:
        self.model = model
        self._api_key = api_key
        self.agent.state.model = model
        self.thinking_level = clamp_thinking(self.thinking_level, model)
        self.agent.state.thinking_level = self.thinking_level
        if self.store.read_only_reason is None:
            self.store.append_model_change(model.provider, model.id)

    def steer(self, text: str) -> None:
        self.agent.steer(self.resources.expand_input(text))

    def follow_up(self, text: str) -> None:
        self.agent.follow_up(self.resources.expand_input(text))

    def abort(self) -> None:
        """Stop whatever runs: a retry countdown and the agent's run (Esc / Ctrl+C)."""
        if self._retry_signal is not None:
            self._retry_signal.abort()
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        await self.agent.wait_for_idle()

    # --- queries --------------------------------------------------------------------------------

    def last_assistant_message(self) -> AssistantMessage | None:
        for message in reversed(self.agent.state.messages):
            if isinstance(message, AssistantMessage):
                return message
        return None

    def last_assistant_text(self) -> str | None:
        """pi's `getLastAssistantText`: skips aborted replies that said nothing; text blocks, trimmed."""
        for message in reversed(self.agent.state.messages):
            if not isinstance(message, AssistantMessage):
                continue
            if message.stop_reason == "aborted" and not message.content:
                continue
            text = "".join(block.text for block in message.content if isinstance(block, TextContent))
            return text.strip()
        return None


def _has_thinking_entry(store: SessionStore) -> bool:
    return any(entry.type == "thinking_level_change" for entry in store.get_branch())


def _default_stream_fn() -> StreamFunction:
    from pi_tui.ai.openai_provider import stream_openai

    return stream_openai
