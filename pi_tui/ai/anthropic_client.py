"""The SDK client the Messages API provider uses: `AsyncAnthropic` handing stream events over as the
server's JSON, with a stream's `event: error` kept as an event instead of raised.

Imported by the provider on its first request only (or ahead of it by `warm_up`): `anthropic` is slow
to import, like `openai`.

Four private hooks of the SDK, so `anthropic` is pinned; tests/ai/test_anthropic_client_premises.py
fails when an upgrade renames, re-signs or stops calling one of them:
- `_process_response_data` returns each event's decoded JSON untouched: thinking signatures and redacted
  data are stored verbatim (the SDK's models would fill and reorder them);
- `_make_sse_decoder` renames `event: error` so the SDK yields it instead of raising a status error
  whose text is the Python repr of the body; pi shows the event's data as it came (`STREAM_ERROR_EVENT`);
- `_prepare_request` stamps the `RequestClock` as each request goes to the HTTP client.

- `_api_key_auth` sends an API key as `x-api-key` (this SDK version sends it as a bearer token).

`anthropic-dangerous-direct-browser-access` and `accept` are headers pi's JavaScript client sends, and
`anthropic-version` is pi's SDK's (2023-06-01; this SDK's own default is newer): they are sent as pi
sends them, so the endpoint sees the same requests from both tools. The body is posted as built, key
order included, to `/v1/messages?beta=true` (`open_message_stream`).
"""

from __future__ import annotations

import json
from typing import Any

from anthropic import AsyncAnthropic, AsyncStream, DefaultAsyncHttpxClient
from anthropic._streaming import ServerSentEvent, SSEDecoder

from pi_tui.ai.anthropic_events import STREAM_ERROR_EVENT
from pi_tui.ai.anthropic_request import ANTHROPIC_VERSION
from pi_tui.ai.redirects import refuse_cross_origin_redirect
from pi_tui.ai.stream import RequestClock

MESSAGES_ENDPOINT = "/v1/messages"
BETA_QUERY = {"beta": "true"}
"""pi calls the SDK's `beta.messages`, which adds `?beta=true`."""
ANTHROPIC_VERSION_HEADER = {"anthropic-version": ANTHROPIC_VERSION}
PI_HEADERS = {
    "accept": "application/json",
    "anthropic-dangerous-direct-browser-access": "true",
    **ANTHROPIC_VERSION_HEADER,
}


class ErrorKeepingSSEDecoder(SSEDecoder):
    """The SDK's decoder, with an `event: error` turned into an ordinary event carrying its raw data."""

    def decode(self, line: str) -> ServerSentEvent | None:
        event = super().decode(line)
        if event is None or event.event != "error":
            return event
        data = json.dumps({"type": STREAM_ERROR_EVENT, "data": event.data})
        return ServerSentEvent(event=STREAM_ERROR_EVENT, data=data, id=event.id, retry=event.retry)


class PiAnthropic(AsyncAnthropic):
    request_clock: RequestClock | None = None

    @property
    def _api_key_auth(self) -> dict[str, str]:
        # This SDK sends an API key as a bearer token; Anthropic's API, and pi, use `x-api-key`.
        return {} if self.api_key is None else {"x-api-key": self.api_key}

    def _make_sse_decoder(self) -> Any:
        return ErrorKeepingSSEDecoder()

    def _process_response_data(self, *, data: object, cast_to: type[Any], response: Any) -> Any:
        return data

    async def _prepare_request(self, request: Any) -> None:
        if self.request_clock is not None:
            self.request_clock.mark_sent()
        await super()._prepare_request(request)


def new_anthropic_client(
    *,
    key: str,
    bearer: bool,
    base_url: str,
    headers: dict[str, str],
    timeout_s: float | None,
    max_retries: int,
    clock: RequestClock | None,
) -> PiAnthropic:
    """A client for one request: the key as `x-api-key`, or as a bearer token (`bearer`)."""
    extra: dict[str, Any] = {}
    if timeout_s is not None:
        extra["timeout"] = timeout_s
    client = PiAnthropic(
        api_key=None if bearer else key,
        auth_token=key if bearer else None,
        base_url=base_url,
        default_headers={**PI_HEADERS, **headers},
        max_retries=max_retries,
        # The SDK's own client, but a redirect to another origin is not followed (`redirects`).
        http_client=DefaultAsyncHttpxClient(event_hooks={"response": [refuse_cross_origin_redirect]}),
        **extra,
    )
    client.request_clock = clock
    return client


async def open_message_stream(client: PiAnthropic, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """POST `body` as it is to the Messages endpoint; the response's event stream."""
    options: dict[str, Any] = {"params": BETA_QUERY}
    if headers:
        options["headers"] = headers
    post: Any = client.post  # typed for the SDK's own option dicts
    return await post(
        MESSAGES_ENDPOINT,
        cast_to=object,
        body=body,
        options=options,
        stream=True,
        stream_cls=AsyncStream[object],
    )
