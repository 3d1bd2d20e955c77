"""How a session calls its provider: the session's defaults filled into every call's options, the
agent's calls recorded as turn records, summary calls recorded by their kind.

The defaults: no silent SDK retries (the session's own retries are visible: countdown, Esc), the
session id as the provider's cache key and session-affinity headers, the provider timeout from the
settings, and the connections of the session's pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Protocol

from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.record import RequestKind
from pi_tui.context.resources import Resources
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session.request_recorder import RequestRecorder
from pi_tui.session_file.store import SessionStore


class CallingSession(Protocol):
    """What the calls read from their session, at call time (a reload or tool change replaces them)."""

    store: SessionStore
    resources: Resources
    system_prompt: SystemPrompt


def default_stream_fn() -> StreamFunction:
    from pi_tui.ai.providers import stream_by_api

    return stream_by_api


class ProviderCalls:
    def __init__(
        self,
        session: CallingSession,
        recorder: RequestRecorder,
        base: StreamFunction | None,
        http_pool: HttpPool | None,
    ) -> None:
        self._session = session
        self._recorder = recorder
        self._base = base or default_stream_fn()
        self._http_pool = http_pool

    def options(self, options: StreamOptions) -> StreamOptions:
        """`options` with the session's defaults filled in (idempotent)."""
        if options.max_retries is None:
            options = replace(options, max_retries=0)
        if options.session_id is None:
            options = replace(options, session_id=self._session.store.session_id)
        timeout_ms = self._session.resources.settings.retry.provider.timeout_ms
        if options.timeout_s is None and timeout_ms is not None:
            options = replace(options, timeout_s=timeout_ms / 1000)
        if options.http_pool is None and self._http_pool is not None:
            options = replace(options, http_pool=self._http_pool)
        return options

    def unrecorded(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        """The provider with the session's defaults, leaving no record."""
        return self._base(model, context, self.options(options))

    def agent_turn(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        """The agent's calls: each leaves a turn record of what it sent."""
        return self._recorder.wrap(
            self.unrecorded,
            model,
            context,
            system_prompt=self._session.system_prompt,
            options=self.options(options),
        )

    def summary(self, kind: RequestKind) -> StreamFunction:
        """The provider for summary calls, each leaving a request record of `kind`."""
        recorded = self._recorder.summary_stream(self.unrecorded, kind)

        def call(
            model: ModelConfig, context: LlmContext, options: StreamOptions
        ) -> AsyncIterator[StreamEvent]:
            # The record keeps the cache key, which the filled-in options decide.
            return recorded(model, context, self.options(options))

        return call
