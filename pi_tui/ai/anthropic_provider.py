"""The Messages API provider (`api: "anthropic-messages"`): one streaming `POST /v1/messages?beta=true` per
reply, through the official `anthropic` SDK.

`stream_anthropic` is a `StreamFunction` with the other providers' guarantees and shares their machinery
(`ProviderCall`: abort racing, quiet close): it never raises; HTTP, network and stream failures end in an
`error` event whose text the retry and overflow classifiers read as they read pi's (`anthropic_errors`);
an abort closes the stream at once and ends as `aborted`. The SDK retries nothing (pi's agent retries,
with its own backoff and `retry-after`), so each attempt is one request, as pi's are.

The key goes as `x-api-key`, or as `Authorization: Bearer` when it is `ANTHROPIC_AUTH_TOKEN`'s (a
gateway's token, pi's rule) or an OAuth token (`sk-ant-oat…`). `anthropic` is imported on the first
request, in the warm-up thread, never with this module.

Completeness: a whole reply ends with `message_stop`. A stream that stops before it is an error
(`Anthropic stream ended without message_stop`, retryable); an `event: error` ends the reply with the
event's data as its text; a `refusal` stop reason is an error reply that says the model refused.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any

from pi_tui.ai import anthropic_threads as threads
from pi_tui.ai.anthropic_errors import (
    describe_anthropic_error,
    error_code,
    is_strict_limit_error,
    mark_strict_limits_exceeded,
    status_of,
    strict_limits_exceeded,
    strict_tools_fallback_diagnostic,
)
from pi_tui.ai.anthropic_events import AnthropicAssembler
from pi_tui.ai.anthropic_request import (
    AnthropicRequest,
    anthropic_compat,
    build_anthropic_request,
    threads_wanted,
)
from pi_tui.ai.messages import AssistantMessage, ModelPrices
from pi_tui.ai.openai_errors import redact_key
from pi_tui.ai.provider_call import NO_API_KEY, ProviderCall, final_event, now_ms
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.ai.warm_up import ANTHROPIC_CLIENT_MODULE
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import ANTHROPIC_AUTH_TOKEN_ENV

logger = logging.getLogger(__name__)

STREAM_ENDED_EARLY = "Anthropic stream ended without message_stop"
OAUTH_KEY_MARK = "sk-ant-oat"
UNSIGNED_THINKING_NOTE = (
    "{count} thinking block(s) of this conversation have no signature and go to the model as text: "
    "Anthropic's cache of the conversation may miss from there on"
)
UNSIGNED_THINKING_DIAGNOSTIC = "anthropic_unsigned_thinking"
"""Recorded on the first reply of a session that had to send thinking without its signature; the session
says its `message` to the user (`ProviderNoticeEvent`)."""
_told_unsigned: set[str] = set()


def uses_bearer(key: str | None, env: Mapping[str, str] | None = None) -> bool:
    """pi sends a gateway's `ANTHROPIC_AUTH_TOKEN` and OAuth tokens as `Authorization: Bearer`."""
    if not key:
        return False
    environment = os.environ if env is None else env
    return OAUTH_KEY_MARK in key or environment.get(ANTHROPIC_AUTH_TOKEN_ENV) == key


def _make_client(model: ModelConfig, options: StreamOptions) -> Any:
    from pi_tui.ai.anthropic_client import new_anthropic_client

    return new_anthropic_client(
        key=options.api_key or NO_API_KEY,
        bearer=uses_bearer(options.api_key),
        base_url=model.base_url,
        headers=dict(model.headers),
        timeout_s=options.timeout_s,
        max_retries=options.max_retries or 0,
        clock=options.clock,
    )


async def _create(client: Any, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """The body goes out as built, key order included (the SDK's `beta.messages.create` would reorder it
    and check its fields), to the endpoint pi calls."""
    from pi_tui.ai.anthropic_client import open_message_stream

    return await open_message_stream(client, body, headers)


class _Sender:
    """Sends a request, on the session's thread when threads are on, falling back as pi does."""

    def __init__(
        self, model: ModelConfig, options: StreamOptions, request: AnthropicRequest, partial: AssistantMessage
    ) -> None:
        self.model = model
        self.request = request
        self.partial = partial
        threaded = threads_wanted(model, options) and not options.disable_continuation
        self.session_id = options.session_id if threaded else None
        self.threaded = False

    async def open(self, client: Any) -> Any:
        body, headers = self.request.body, self.request.headers
        threaded = (
            threads.threaded_body(self.model, self.session_id, body, headers) if self.session_id else None
        )
        if threaded is None:
            return await _create(client, body, headers)
        try:
            stream = await _create(client, threaded, headers)
            self.threaded = True
            return stream
        except Exception as error:
            assert self.session_id is not None
            text, _ = describe_anthropic_error(error)
            status = status_of(error)
            action = threads.fallback(error_code(error), status, text) if status is not None else None
            if action is None:
                raise
            diagnostic = threads.fallback_diagnostic(text, error_code(error), status)
            self.partial.diagnostics = [*(self.partial.diagnostics or []), diagnostic]
            if action == "create":
                stream = await _create(client, threads.created(body), headers)
                self.threaded = True
                return stream
            stream = await _create(client, body, headers)
            threads.stop_threading(self.session_id)
            return stream

    def record(self, reply: AssistantMessage) -> None:
        if self.threaded and self.session_id is not None:
            compat = anthropic_compat(self.model)
            threads.record_reply(
                self.model,
                self.session_id,
                self.request.body,
                self.request.headers,
                reply,
                allow_empty_signature=compat.allow_empty_signature,
            )


def _tell_unsigned(request: AnthropicRequest, session_id: str | None, partial: AssistantMessage) -> None:
    """Once per session: why the cache may miss, as a diagnostic of the reply the session shows."""
    key = session_id or ""
    if request.unsigned_thinking and key not in _told_unsigned:
        _told_unsigned.add(key)
        text = UNSIGNED_THINKING_NOTE.format(count=request.unsigned_thinking)
        logger.info(text)
        diagnostic = {
            "type": UNSIGNED_THINKING_DIAGNOSTIC,
            "timestamp": now_ms(),
            "message": text,
            "details": {"blocks": request.unsigned_thinking},
        }
        partial.diagnostics = [*(partial.diagnostics or []), diagnostic]


async def stream_anthropic(
    model: ModelConfig, context: LlmContext, options: StreamOptions
) -> AsyncIterator[StreamEvent]:
    """Stream one assistant reply from Anthropic's Messages API."""
    partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
    yield StreamEvent("start", partial)
    assembler = AnthropicAssembler(partial, ModelPrices.model_validate(model.cost.model_dump()))
    call = ProviderCall(
        model,
        options,
        client_factory=_make_client,
        describe=describe_anthropic_error,
        sdk_module=ANTHROPIC_CLIENT_MODULE,
    )
    sender: _Sender | None = None

    async def open_stream(client: Any) -> Any:
        nonlocal sender
        strict_preferred = not strict_limits_exceeded(options.session_id)
        request = build_anthropic_request(model, context, options, strict_preferred=strict_preferred)
        _tell_unsigned(request, options.session_id, partial)
        sender = _Sender(model, options, request, partial)
        try:
            return await sender.open(client)
        except Exception as error:
            if not (strict_preferred and request.preferred_strict and is_strict_limit_error(error)):
                raise
            # pi's rule: the strict set is too large for Claude, so this session's tools that only
            # prefer strict go without from now on (switching back would rewrite the cached tools).
            text, _ = describe_anthropic_error(error)
            mark_strict_limits_exceeded(options.session_id)
            partial.diagnostics = [*(partial.diagnostics or []), strict_tools_fallback_diagnostic(text)]
            request = build_anthropic_request(model, context, options, strict_preferred=False)
            sender = _Sender(model, options, request, partial)
            return await sender.open(client)

    def feed(event: Any) -> list[StreamEvent]:
        return assembler.feed(event if isinstance(event, dict) else {})

    def stopped() -> bool:
        return assembler.failure is not None

    async with contextlib.aclosing(call.reply(open_stream, feed, assembler.close, stopped)) as events:
        async for stream_event in events:
            yield stream_event
    failure = call.failure
    if failure is None and assembler.failure is not None:
        text = redact_key(assembler.failure, options.api_key)
        failure = (
            text,
            {
                "type": "provider_error",
                "timestamp": now_ms(),
                "error": {"name": "StreamError", "message": text},
            },
        )
    if failure is None and not assembler.finished:
        failure = (STREAM_ENDED_EARLY, None)
    if assembler.raw_stop_reason is not None:
        partial.raw_stop_reason = assembler.raw_stop_reason
    final = final_event(partial, failure, call.aborted, assembler.stop or ("stop", None))
    transformed = assembler.transformations_diagnostic()
    if final.type == "done" and transformed is not None:
        partial.diagnostics = [*(partial.diagnostics or []), transformed]
    if final.type == "done" and sender is not None:
        sender.record(partial)
    yield final
