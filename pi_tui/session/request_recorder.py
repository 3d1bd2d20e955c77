"""A request record for every model call of a session, stored as `pi-tui.request` custom entries.

The stream is wrapped to time it (time to first token, total) and to capture the final reply; times
count from the moment the provider sent the request (its `RequestClock`), so local start-up (importing
the SDK, making a client, leasing a connection) is not taken for the server's latency. The
record is measured from what was sent (system prompt segments, tool schemas, the session's context
messages with their entry ids, in the model's dialect, and the `prompt_cache_key` the call's options
give) and appended right after the reply's own entry. Records hold counts and hashes only. Most are
stored as deltas against a recent full record, so the file grows with the new messages of each request,
not with the whole context every time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace

from pi_tui.ai.chat_request import prompt_cache_key
from pi_tui.ai.messages import AgentMessage, AssistantMessage
from pi_tui.ai.stream import (
    LlmContext,
    RequestClock,
    StreamEvent,
    StreamFunction,
    StreamOptions,
    ToolSpec,
)
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.measure import MeasureCache
from pi_tui.context.accounting.record import (
    REQUEST_CUSTOM_TYPE,
    RequestKind,
    RequestRecord,
    build_request_record,
    record_entry_data,
)
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session_file.store import SessionStore

FULL_RECORD_EVERY = 16
"""A full record is written this often so a delta's base is never far back in the file."""


@dataclass(frozen=True)
class _Sent:
    model: ModelConfig
    system_prompt: SystemPrompt
    tools: Sequence[ToolSpec]
    messages: Sequence[AgentMessage]
    entry_ids: Sequence[str | None]
    cache_key: str | None
    started: float
    time_ms: int


@dataclass(frozen=True)
class _Finished:
    sent: _Sent
    reply: AssistantMessage | None
    ttft_ms: float | None
    duration_ms: float


def _timings(
    started: float, started_ms: int, clock: RequestClock, first: float | None
) -> tuple[float | None, float, int]:
    """(time to first token, duration, epoch ms sent): from when the request was sent, or from when it
    was asked for when the provider never said (no HTTP, or it failed before sending)."""
    sent = clock.sent_at if clock.sent_at is not None else started
    ttft = (first - sent) * 1000 if first is not None else None
    return ttft, (time.monotonic() - sent) * 1000, started_ms + round((sent - started) * 1000)


class RequestRecorder:
    def __init__(self, store: SessionStore) -> None:
        self._store = store
        self._cache = MeasureCache()
        self._pending: _Finished | None = None
        self._base: tuple[str, RequestRecord] | None = None
        self._since_base = 0
        self._previous: RequestRecord | None = None

    def wrap(
        self,
        provider: StreamFunction,
        model: ModelConfig,
        context: LlmContext,
        *,
        system_prompt: SystemPrompt,
        options: StreamOptions,
    ) -> AsyncIterator[StreamEvent]:
        """Call `provider` and record the call. `options` as the provider gets them (session id filled
        in): they decide the cache key."""
        clock = RequestClock()
        stream = provider(model, context, replace(options, clock=clock))
        built = self._store.build_context()
        sent = _Sent(
            model,
            system_prompt,
            list(context.tools),
            built.messages,
            built.entry_ids,
            prompt_cache_key(model, options),
            time.monotonic(),
            int(time.time() * 1000),
        )
        return self._timed(stream, sent, clock)

    async def _timed(
        self, stream: AsyncIterator[StreamEvent], sent: _Sent, clock: RequestClock
    ) -> AsyncIterator[StreamEvent]:
        first: float | None = None
        async for event in stream:
            if first is None and event.type.endswith("_delta"):
                first = time.monotonic()
            if event.terminal:
                # Recorded before yielding: the consumer may stop iterating at the final event.
                ttft, duration, time_ms = _timings(sent.started, sent.time_ms, clock, first)
                reply = event.message or event.partial
                self._pending = _Finished(replace(sent, time_ms=time_ms), reply, ttft, duration)
            yield event

    async def flush(self) -> None:
        """Append the record of the request just answered (call after the reply is persisted)."""
        finished, self._pending = self._pending, None
        if finished is None or not self._store.writable:
            return
        await asyncio.to_thread(self._append, finished)

    def _append(self, finished: _Finished) -> None:
        sent = finished.sent
        record = build_request_record(
            model=sent.model,
            system_prompt=sent.system_prompt,
            tools=sent.tools,
            messages=sent.messages,
            entry_ids=sent.entry_ids,
            response=finished.reply,
            ttft_ms=finished.ttft_ms,
            duration_ms=finished.duration_ms,
            time_ms=sent.time_ms,
            previous=self._previous,
            cache=self._cache,
            cache_key=sent.cache_key,
        )
        base = self._base if self._since_base < FULL_RECORD_EVERY else None
        data = record_entry_data(record, base)
        entry = self._store.append_custom(REQUEST_CUSTOM_TYPE, data)
        self._previous = record
        if "base" in data:
            self._since_base += 1
        else:
            self._base = (entry.id, record)
            self._since_base = 0

    # --- summary calls ------------------------------------------------------------------------------

    def summary_stream(self, provider: StreamFunction, kind: RequestKind) -> StreamFunction:
        """`provider` for compaction and branch summaries: each call leaves a record of its own kind,
        measured from exactly what it sent (the summarisation prompt and one user message). Calls must
        come with the options the provider gets (session id filled in)."""

        def call(
            model: ModelConfig, context: LlmContext, options: StreamOptions
        ) -> AsyncIterator[StreamEvent]:
            clock = RequestClock()
            stream = provider(model, context, replace(options, clock=clock))
            cache_key = prompt_cache_key(model, options)
            return self._summary_timed(stream, model, context, kind, cache_key, clock)

        return call

    async def _summary_timed(
        self,
        stream: AsyncIterator[StreamEvent],
        model: ModelConfig,
        context: LlmContext,
        kind: RequestKind,
        cache_key: str | None,
        clock: RequestClock,
    ) -> AsyncIterator[StreamEvent]:
        started, time_ms = time.monotonic(), int(time.time() * 1000)
        first: float | None = None
        async for event in stream:
            if first is None and event.type.endswith("_delta"):
                first = time.monotonic()
            reply = event.message or event.partial
            # A failed or cancelled summary leaves nothing behind: the branch must not move for it.
            if event.terminal and not reply.failed and self._store.writable:
                ttft, duration, sent_ms = _timings(started, time_ms, clock, first)
                record = build_request_record(
                    model=model,
                    system_prompt=context.system_prompt,
                    tools=context.tools,
                    messages=context.messages,
                    entry_ids=[None] * len(context.messages),
                    kind=kind,
                    response=reply,
                    ttft_ms=ttft,
                    duration_ms=duration,
                    time_ms=sent_ms,
                    cache=self._cache,
                    cache_key=cache_key,
                )
                await asyncio.to_thread(
                    self._store.append_custom, REQUEST_CUSTOM_TYPE, record_entry_data(record)
                )
            yield event
