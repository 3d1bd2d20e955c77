"""The OpenAI-compatible provider: one Chat Completions streaming request per reply.

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

import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from pi_tui.ai.chat_request import ProviderRequest, build_chat_request
from pi_tui.ai.messages import AssistantMessage, ModelPrices
from pi_tui.ai.openai_chunks import ReplyAssembler, map_finish_reason
from pi_tui.ai.openai_errors import MalformedStreamData
from pi_tui.ai.provider_call import ProviderCall, final_event, now_ms
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig

STREAM_ENDED_EARLY = "stream ended without finish_reason"


def _create_stream(client: Any, request: ProviderRequest) -> Awaitable[Any]:
    """The SDK names each standard parameter and refuses others; dialect fields (`thinking`,
    `enable_thinking`, `reasoning`, ...) travel as `extra_body`, merged into the same JSON object."""
    body = dict(request.body)
    named = {name: body.pop(name) for name in ("model", "messages", "stream")}
    created: Awaitable[Any] = client.chat.completions.create(
        **named, extra_body=body, extra_headers=request.headers or None
    )
    return created


def chunk_dict(chunk: Any) -> dict[str, Any]:
    if isinstance(chunk, dict):
        return chunk
    if not hasattr(chunk, "model_dump"):
        raise MalformedStreamData(f"expected a JSON object, got {type(chunk).__name__} {str(chunk)[:80]!r}")
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
    call = ProviderCall(model, options)

    def create(client: Any) -> Awaitable[Any]:
        return _create_stream(client, build_chat_request(model, context, options))

    def feed(chunk: Any) -> list[StreamEvent]:
        return assembler.feed(chunk_dict(chunk))

    async with contextlib.aclosing(call.reply(create, feed, assembler.close)) as events:
        async for event in events:
            yield event
    failure = call.failure
    if failure is None and assembler.finish_reason is None:
        failure = (STREAM_ENDED_EARLY, None)
    yield final_event(partial, failure, call.aborted, map_finish_reason(assembler.finish_reason or "stop"))
