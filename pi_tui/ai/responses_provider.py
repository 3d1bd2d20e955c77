"""The Responses API provider (`api: "openai-responses"`): one streaming `POST /responses` per reply.

`stream_responses` is a `StreamFunction` with the Chat Completions provider's guarantees, and shares its
machinery (client per request, abort racing, quiet close, error texts): it never raises; HTTP, network
and stream failures end in an `error` event whose text the retry and overflow classifiers read the same
way; an abort closes the stream at once and ends as `aborted`.

Completeness: a whole reply ends with `response.completed` (or `response.incomplete`). A stream that
stops before one is an error (`stream ended without response.completed`, retryable); `response.failed`
and `error` events end the reply with the server's error text.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from pi_tui.ai.chat_request import ProviderRequest
from pi_tui.ai.messages import AssistantMessage, ModelPrices
from pi_tui.ai.openai_provider import chunk_dict
from pi_tui.ai.provider_call import ProviderCall, final_event, now_ms
from pi_tui.ai.responses_events import ResponsesAssembler
from pi_tui.ai.responses_outcome import map_response_status
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig

RESPONSE_ENDED_EARLY = "stream ended without response.completed"


def _create_stream(client: Any, request: ProviderRequest) -> Awaitable[Any]:
    """Only `model` and `stream` are named: the rest travels as `extra_body`, unchanged by the SDK's
    parameter handling (the replayed reasoning items must reach the server exactly as stored)."""
    body = dict(request.body)
    named = {name: body.pop(name) for name in ("model", "stream")}
    created: Awaitable[Any] = client.responses.create(
        **named, extra_body=body, extra_headers=request.headers or None
    )
    return created


def _as_event(value: Any) -> dict[str, Any]:
    """An event as a dict; JSON that is not an object becomes an empty (ignored) event."""
    if isinstance(value, dict) or hasattr(value, "model_dump"):
        return chunk_dict(value)
    return {}


def _stream_failure(text: str, code: str | None) -> tuple[str, dict[str, Any]]:
    """An error the server reported inside the stream, with a diagnostic like `describe_error`'s."""
    error: dict[str, Any] = {"name": "ResponseStreamError", "message": text}
    if code:
        error["code"] = code
    return text, {"type": "provider_error", "timestamp": now_ms(), "error": error}


async def stream_responses(
    model: ModelConfig, context: LlmContext, options: StreamOptions
) -> AsyncIterator[StreamEvent]:
    """Stream one assistant reply from a Responses API endpoint."""
    partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
    yield StreamEvent("start", partial)
    assembler = ResponsesAssembler(partial, ModelPrices.model_validate(model.cost.model_dump()))
    call = ProviderCall(model, options, raw_events=True)

    def create(client: Any) -> Awaitable[Any]:
        return _create_stream(client, build_responses_request(model, context, options))

    def feed(event: Any) -> list[StreamEvent]:
        return assembler.feed(_as_event(event))

    def stopped() -> bool:
        return assembler.failure is not None

    async with contextlib.aclosing(call.reply(create, feed, assembler.close, stopped)) as events:
        async for stream_event in events:
            yield stream_event
    failure = call.failure
    if failure is None and assembler.failure is not None:
        failure = call.redacted(_stream_failure(assembler.failure, assembler.failure_code))
    if failure is None and not assembler.finished:
        failure = (RESPONSE_ENDED_EARLY, None)
    yield final_event(partial, failure, call.aborted, map_response_status(assembler.status))
