"""The SDK client the OpenAI provider uses: `AsyncOpenAI` with a server-sent-events decoder that follows
the SSE standard where the SDK does not.

The standard says an event whose data is empty is not dispatched. The SDK dispatches it whenever an
`event:`, `id:` or `retry:` field came first and then fails to parse the empty data as JSON, so a
server's keep-alive (`event: ping` with no data) or a lone `retry: 3000` ended the reply as
"malformed". Imported by the provider on its first request only (or ahead of it by `warm_up`): `openai`
is slow to import.

A client stamps its `RequestClock` as each request goes to the HTTP client, so recorded timings start
when the request was sent, not when the reply was asked for.

`new_http_client` makes the HTTP client a connection pool shares between requests (`http_pool`).
`RawEventsOpenAI` hands stream events over as the server's JSON objects instead of SDK models: the
Responses provider stores a reasoning item verbatim (as pi does, key order included), which the SDK's
models would reorder and fill.

These are private hooks of the SDK, so `openai` is pinned; `tests/ai/test_openai_client_premises.py` fails
when an upgrade renames, re-signs or stops calling one of them.
"""

from __future__ import annotations

from typing import Any

from openai import DEFAULT_CONNECTION_LIMITS, AsyncOpenAI, DefaultAsyncHttpxClient
from openai._streaming import ServerSentEvent, SSEDecoder

from pi_tui.ai.stream import RequestClock

IDLE_CONNECTION_SECONDS = 30.0
"""How long an idle connection waits for the next request. httpx keeps one 5 s, shorter than the pause
before a typical next prompt; a server that closes it sooner is noticed before the connection is reused."""


class StandardSSEDecoder(SSEDecoder):
    """The SDK's decoder, minus the events the SSE standard says never to dispatch."""

    def decode(self, line: str) -> ServerSentEvent | None:
        event = super().decode(line)
        if event is None or not event.data:
            return None
        return event


class PiOpenAI(AsyncOpenAI):
    request_clock: RequestClock | None = None
    """Stamped as each request goes to the HTTP client (see `RequestClock`)."""

    def _make_sse_decoder(self) -> Any:
        return StandardSSEDecoder()

    async def _send_request(self, request: Any, *, stream: bool, **kwargs: Any) -> Any:
        if self.request_clock is not None:
            self.request_clock.mark_sent()
        return await super()._send_request(request, stream=stream, **kwargs)


def new_http_client() -> Any:
    """The SDK's own HTTP client defaults (timeouts, limits, redirects), with a longer idle keep-alive.

    It carries no headers: the key and the model's headers go with each request, so the client can be
    shared by requests made with different keys."""
    defaults = DEFAULT_CONNECTION_LIMITS
    limits = type(defaults)(
        max_connections=defaults.max_connections,
        max_keepalive_connections=defaults.max_keepalive_connections,
        keepalive_expiry=IDLE_CONNECTION_SECONDS,
    )
    return DefaultAsyncHttpxClient(limits=limits)


class RawEventsOpenAI(PiOpenAI):
    """`PiOpenAI` whose streams yield each event's decoded JSON untouched (used for streaming only)."""

    def _process_response_data(self, *, data: object, cast_to: type[Any], response: Any) -> Any:
        return data
