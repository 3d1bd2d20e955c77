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

The decoder also bounds what a server can make pi-tui hold (docs/reliability.md, section 12): one line,
one event and the whole decompressed reply each have a limit, and a stream that passes one ends the reply
with `StreamLimitExceeded`, whose text names the limit. Bytes that are not UTF-8 become U+FFFD (as pi's
decoder does) instead of failing the reply, and every request body loses its lone surrogates on the way out
(`_prepare_options`), so no stored text can make every later request fail.

These are private hooks of the SDK, so `openai` is pinned; `tests/ai/test_openai_client_premises.py` fails
when an upgrade renames, re-signs or stops calling one of them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from openai import DEFAULT_CONNECTION_LIMITS, AsyncOpenAI, DefaultAsyncHttpxClient
from openai._streaming import ServerSentEvent, SSEDecoder

from pi_tui.ai.redirects import refuse_cross_origin_redirect
from pi_tui.ai.stream import RequestClock
from pi_tui.ai.valid_text import text_from_bytes, valid_json_value

IDLE_CONNECTION_SECONDS = 30.0
"""How long an idle connection waits for the next request. httpx keeps one 5 s, shorter than the pause
before a typical next prompt; a server that closes it sooner is noticed before the connection is reused."""


MIB = 1024 * 1024
MAX_SSE_LINE_BYTES = 64 * MIB
"""Longer than any real line: a Responses `response.completed` repeats the whole reply on one line."""
MAX_SSE_EVENT_BYTES = 64 * MIB
"""The `data:` lines of one event together."""
MAX_REPLY_BYTES = 256 * MIB
"""The whole reply after decompression: a gzip bomb of a few MB on the wire stops here."""
_LINE_END = re.compile(rb"\r\n|\r|\n")


class StreamLimitExceeded(ValueError):
    """A provider stream passed one of the decoder's size limits; the text says which."""


def _limit_text(what: str, limit: int) -> str:
    return f"Provider stream too large: {what} passed the {limit // MIB} MiB limit; the reply was stopped"


class StandardSSEDecoder(SSEDecoder):
    """The SDK's decoder, minus the events the SSE standard says never to dispatch, within size limits."""

    def __init__(self) -> None:
        super().__init__()
        self._event_bytes = 0

    def decode(self, line: str) -> ServerSentEvent | None:
        event = super().decode(line)
        if line.startswith("data"):
            self._event_bytes += len(line)
            if self._event_bytes > MAX_SSE_EVENT_BYTES:
                raise StreamLimitExceeded(_limit_text("one SSE event", MAX_SSE_EVENT_BYTES))
        if not line:
            self._event_bytes = 0
        if event is None or not event.data:
            return None
        return event

    async def aiter_bytes(self, iterator: AsyncIterator[bytes]) -> AsyncIterator[ServerSentEvent]:
        lines = _BoundedLines()
        received = 0
        try:
            async for chunk in iterator:
                received += len(chunk)
                if received > MAX_REPLY_BYTES:
                    raise StreamLimitExceeded(_limit_text("the decompressed reply", MAX_REPLY_BYTES))
                for line in lines.feed(chunk):
                    if (event := self.decode(text_from_bytes(line))) is not None:
                        yield event
            for line in lines.finish():
                if (event := self.decode(text_from_bytes(line))) is not None:
                    yield event
        finally:
            self._reset()
            self._event_bytes = 0


class _BoundedLines:
    """Bytes split into SSE lines (CR, LF or CRLF end one), no line longer than `MAX_SSE_LINE_BYTES`."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._after_cr = False

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        start = 0
        if self._after_cr and chunk[:1] == b"\n":
            start = 1  # the LF of a CRLF split between two reads
        self._after_cr = False
        for match in _LINE_END.finditer(chunk, start):
            if match.group(0) == b"\r" and match.end() == len(chunk):
                self._after_cr = True
            self._append(chunk[start : match.start()])
            line = bytes(self._pending)
            self._pending.clear()
            start = match.end()
            yield line
        self._append(chunk[start:])

    def _append(self, part: bytes) -> None:
        if len(self._pending) + len(part) > MAX_SSE_LINE_BYTES:
            raise StreamLimitExceeded(_limit_text("one SSE line", MAX_SSE_LINE_BYTES))
        self._pending += part

    def finish(self) -> Iterator[bytes]:
        if self._pending:
            yield bytes(self._pending)
            self._pending.clear()


class PiOpenAI(AsyncOpenAI):
    request_clock: RequestClock | None = None
    """Stamped as each request goes to the HTTP client (see `RequestClock`)."""

    def _make_sse_decoder(self) -> Any:
        return StandardSSEDecoder()

    async def _prepare_options(self, options: Any) -> Any:
        prepared = await super()._prepare_options(options)
        prepared.json_data = valid_json_value(prepared.json_data)
        prepared.extra_json = valid_json_value(prepared.extra_json)
        return prepared

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
    return DefaultAsyncHttpxClient(limits=limits, event_hooks={"response": [refuse_cross_origin_redirect]})


class RawEventsOpenAI(PiOpenAI):
    """`PiOpenAI` whose streams yield each event's decoded JSON untouched (used for streaming only)."""

    def _process_response_data(self, *, data: object, cast_to: type[Any], response: Any) -> Any:
        return data
