"""The OpenAI-compatible provider: one Chat Completions streaming request per reply (R2.1-R2.3).

`stream_openai` is a `StreamFunction`. It never raises: HTTP and network failures, a stream that ends
without a `finish_reason`, and malformed data all end in an `error` event; an abort ends in an `error`
event with stop reason `aborted`. `openai` is imported on the first call, not with this module (it
costs most of a second; `warm_up` imports it ahead). An SDK client is made per request with that
request's key and dropped with it; its HTTP connections come from `options.http_pool` (kept for the
session, never holding a key), or without a pool are opened and closed with the request.

Completeness: the SDK consumes the `[DONE]` line, so the sign of a whole reply is the choice's
`finish_reason`. A stream that closes after it but without `[DONE]` (seen from some local servers) is
accepted; one that ends before it is an error whose text (`stream ended without ...`) is retryable.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.chat_request import ProviderRequest, build_chat_request
from pi_tui.ai.messages import AssistantMessage, ModelPrices, StopReason
from pi_tui.ai.openai_chunks import ReplyAssembler, map_finish_reason
from pi_tui.ai.openai_errors import describe_error
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig

ABORTED_MESSAGE = "Request was aborted."
STREAM_ENDED_EARLY = "stream ended without finish_reason"
NO_API_KEY = "no-api-key"
"""Sent when no key is configured: local servers ignore it; hosted ones answer 401."""
_CLOSE_GRACE_S = 1.0

T = TypeVar("T")


class _Aborted(Exception):
    pass


def now_ms() -> int:
    return int(time.time() * 1000)


def _make_client(
    model: ModelConfig, options: StreamOptions, http_client: Any = None, *, raw_events: bool = False
) -> Any:
    """A client for one request (over a pooled `http_client` when given); `raw_events`: stream events stay
    plain JSON (see `RawEventsOpenAI`)."""
    from pi_tui.ai.openai_client import PiOpenAI, RawEventsOpenAI

    extra: dict[str, Any] = {}
    if options.timeout_s is not None:
        extra["timeout"] = options.timeout_s
    if options.max_retries is not None:
        extra["max_retries"] = options.max_retries
    if http_client is not None:
        extra["http_client"] = http_client
    client_class = RawEventsOpenAI if raw_events else PiOpenAI
    return client_class(
        api_key=options.api_key or NO_API_KEY,
        base_url=model.base_url,
        default_headers=model.headers or None,
        **extra,
    )


def _create_stream(client: Any, request: ProviderRequest) -> Awaitable[Any]:
    """The SDK names each standard parameter and refuses others; dialect fields (`thinking`,
    `enable_thinking`, `reasoning`, ...) travel as `extra_body`, merged into the same JSON object."""
    body = dict(request.body)
    named = {name: body.pop(name) for name in ("model", "messages", "stream")}
    created: Awaitable[Any] = client.chat.completions.create(
        **named, extra_body=body, extra_headers=request.headers or None
    )
    return created


async def _next_or_none(stream: Any) -> Any:
    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return None


class _Race:
    """Awaits provider I/O against the abort signal, so an abort takes effect at once."""

    def __init__(self, signal: AbortSignal | None) -> None:
        self._waiter = asyncio.ensure_future(signal.wait()) if signal else None

    async def run(self, awaitable: Awaitable[T]) -> T:
        if self._waiter is None:
            return await awaitable
        task = asyncio.ensure_future(awaitable)
        try:
            await asyncio.wait((task, self._waiter), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.wait((task,), timeout=_CLOSE_GRACE_S)
        raise _Aborted

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.cancel()


def _chunk_dict(chunk: Any) -> dict[str, Any]:
    if isinstance(chunk, dict):
        return chunk
    # The SDK does not validate chunks; a field of an unexpected type must not print a warning.
    dumped: dict[str, Any] = chunk.model_dump(exclude_none=True, warnings=False)
    return dumped


async def stream_openai(
    model: ModelConfig, context: LlmContext, options: StreamOptions
) -> AsyncIterator[StreamEvent]:
    """Stream one assistant reply from an OpenAI-compatible Chat Completions endpoint."""
    partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
    yield StreamEvent("start", partial)
    assembler = ReplyAssembler(partial, ModelPrices.model_validate(model.cost.model_dump()))
    signal = options.signal
    race = _Race(signal)
    lease = contextlib.AsyncExitStack()
    shared_http: Any = None
    client: Any = None
    stream: Any = None
    failure: tuple[str, dict[str, Any] | None] | None = None
    aborted = False
    try:
        if signal is not None and signal.aborted:
            raise _Aborted
        request = build_chat_request(model, context, options)
        if options.http_pool is not None:
            shared_http = await lease.enter_async_context(
                options.http_pool.lease(model.provider, model.base_url)
            )
        client = _make_client(model, options, shared_http)
        stream = await race.run(_create_stream(client, request))
        while (chunk := await race.run(_next_or_none(stream))) is not None:
            for event in assembler.feed(_chunk_dict(chunk)):
                yield event
    except _Aborted:
        aborted, failure = True, (ABORTED_MESSAGE, None)
    except Exception as error:
        aborted = signal is not None and signal.aborted
        failure = (ABORTED_MESSAGE, None) if aborted else describe_error(error, options.api_key)
    finally:
        race.close()
        # Closing an SDK client closes its HTTP client, even one lent to it: with a pool, only the
        # response is closed (which hands a finished connection back, or drops an unfinished one).
        await _close_quietly(stream, client if shared_http is None else None)
        await lease.aclose()
    for event in assembler.close():
        yield event
    if failure is None and assembler.finish_reason is None:
        failure = (STREAM_ENDED_EARLY, None)
    yield final_event(partial, failure, aborted, map_finish_reason(assembler.finish_reason or "stop"))


def final_event(
    partial: AssistantMessage,
    failure: tuple[str, dict[str, Any] | None] | None,
    aborted: bool,
    outcome: tuple[StopReason, str | None],
) -> StreamEvent:
    """The reply's terminal event: its failure if it had one, else the stop reason the server gave
    (`outcome`: an error stop reason comes with its text)."""
    if failure is not None:
        text, diagnostic = failure
        partial.stop_reason = "aborted" if aborted else "error"
        partial.error_message = text
        if diagnostic is not None:
            partial.diagnostics = [*(partial.diagnostics or []), diagnostic]
        return StreamEvent("error", partial, message=partial)
    stop_reason, error_message = outcome
    if stop_reason == "stop" and partial.tool_calls:
        stop_reason = "toolUse"  # some servers say "stop" after tool calls; the loop must run them
    partial.stop_reason = stop_reason
    if error_message is not None:
        partial.error_message = error_message
        return StreamEvent("error", partial, message=partial)
    return StreamEvent("done", partial, message=partial)


async def _close_quietly(stream: Any, client: Any) -> None:
    """Close the HTTP response and the client; a failure to close is not the reply's failure."""
    for resource in (stream, client):
        if resource is None:
            continue
        with contextlib.suppress(Exception):
            await asyncio.wait_for(resource.close(), _CLOSE_GRACE_S)
