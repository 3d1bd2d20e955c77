"""Session-level failure handling (docs/reliability.md): retry with backoff, then model fallback.

After a run ends with a transient failure, the failed reply leaves the agent's state (it stays in the
session file, never replayed) and the run continues after a visible, cancellable countdown. Once the
retries are spent, the same context goes to the next untried model of `fallbackModels`.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from pi_tui.agent.agent import Agent
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.context.resources import Resources
from pi_tui.session.retry_policy import retry_delay_ms, should_retry
from pi_tui.session.session_events import AnyEvent, AutoRetryEndEvent, AutoRetryStartEvent, ModelFallbackEvent
from pi_tui.session_file.store import SessionStore


def leave_out_of_context(store: SessionStore, message: AssistantMessage) -> None:
    """A `context_edit` that leaves the written `message` out of every later request on this branch
    (pi 1.6's record of a failed attempt); nothing when it was never written or the file is read-only."""
    if store.read_only_reason is not None or store.write_failure is not None:
        return
    entry_id = store.message_entry_id(message)
    if entry_id is not None:
        store.append_context_edit(entry_id)


RETRY_CANCELLED_TEXT = "Retry cancelled"


class RecoveringSession(Protocol):
    """What recovery needs of the session it works for."""

    agent: Agent
    model: ModelConfig | None
    resources: Resources
    store: SessionStore

    def last_assistant_message(self) -> AssistantMessage | None: ...

    async def emit(self, event: AnyEvent) -> None: ...

    def switch_model(self, model: ModelConfig, api_key: str | None) -> None: ...


class FailureRecovery:
    """Runs after every prompt; `cancel()` ends a retry countdown (Esc)."""

    def __init__(self, session: RecoveringSession) -> None:
        self._session = session
        self._signal: AbortSignal | None = None

    def cancel(self) -> None:
        if self._signal is not None:
            self._signal.abort()

    async def run(self) -> None:
        """Retry transient failures with backoff, then fall back along `fallbackModels`."""
        session = self._session
        settings = session.resources.settings.retry
        tried = {session.model.ref} if session.model else set()
        attempt = 0
        while True:
            last = session.last_assistant_message()
            window = session.model.context_window if session.model else 0
            if not should_retry(last, settings, window):
                if attempt > 0 and last is not None and not last.failed:
                    await session.emit(AutoRetryEndEvent(success=True, attempt=attempt))
                return
            assert last is not None
            attempt += 1
            if attempt > settings.max_retries:
                await session.emit(
                    AutoRetryEndEvent(success=False, attempt=attempt - 1, final_error=last.error_message)
                )
                if not await self._fall_back(tried, last.error_message or ""):
                    return
                attempt = 0
            else:
                delay = retry_delay_ms(attempt, settings, last)
                await session.emit(
                    AutoRetryStartEvent(attempt, settings.max_retries, delay, last.error_message or "")
                )
                self._drop_failed_reply()
                if not await self._wait(delay):
                    await session.emit(
                        AutoRetryEndEvent(success=False, attempt=attempt, final_error=RETRY_CANCELLED_TEXT)
                    )
                    return
            await session.agent.continue_()

    def _drop_failed_reply(self) -> None:
        """The failed reply leaves the state, and the file's context with a `context_edit` that leaves
        it out (pi 1.6 writes one for each failed attempt it retries)."""
        session = self._session
        state = session.agent.state
        messages = state.messages
        if messages and isinstance(messages[-1], AssistantMessage) and messages[-1].failed:
            state.messages = messages[:-1]
            leave_out_of_context(session.store, messages[-1])

    async def _wait(self, delay_ms: int) -> bool:
        """Sleep unless cancelled first; True when the retry should go ahead."""
        self._signal = signal = AbortSignal()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), timeout=delay_ms / 1000)
            return not signal.aborted
        finally:
            self._signal = None

    async def _fall_back(self, tried: set[str], error_message: str) -> bool:
        """Switch to the next untried model of `fallbackModels`; a chain that loops is cut at the repeat."""
        session = self._session
        for ref in session.resources.settings.fallback_models:
            resolution = resolve_model(ref)
            model = resolution.model
            if model is None or model.ref in tried or ref in tried:
                continue
            tried.update({ref, model.ref})
            previous = session.model.ref if session.model else "(none)"
            self._drop_failed_reply()
            session.switch_model(model, resolution.api_key)
            await session.emit(ModelFallbackEvent(previous, model.ref, error_message))
            return True
        return False
