"""Premises of the private openai SDK hooks `pi_tui/ai/openai_client.py` relies on.

`openai` is pinned in pyproject.toml because the client subclasses private parts of it: the SSE decoder
(`openai._streaming.SSEDecoder`, its per-line `decode`, `ServerSentEvent`), the client's
`_make_sse_decoder` and `_process_response_data`. An upgrade that renames, re-signs or stops calling one of
them fails a test here that names the hook, instead of a reply failing in use; one that fixes the SDK's
data-less events fails `test_the_sdk_still_dispatches_events_without_data`, and the decoder can go.
"""

from __future__ import annotations

import inspect
import re
import tomllib
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI
from openai._streaming import ServerSentEvent, SSEDecoder

from pi_tui.ai.openai_client import PiOpenAI, RawEventsOpenAI, StandardSSEDecoder
from tests.support.openai_server import OpenAIServer, StreamReply, chunk

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
# A keep-alive, a lone retry and a lone id (no data: never dispatched, says the SSE standard), one
# event split mid-line across reads, and the end marker.
STREAM = [b"event: ping\n\n", b"retry: 3000\n\n", b'data: {"a"', b": 1}\n\nid: 7\n\n", b"data: [DONE]\n\n"]


async def _events(decoder: SSEDecoder) -> list[ServerSentEvent]:
    async def reads() -> AsyncIterator[bytes]:
        for part in STREAM:
            yield part

    return [event async for event in decoder.aiter_bytes(reads())]


def test_the_installed_sdk_is_the_pinned_one() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    [pin] = [re.sub(r"\s", "", spec) for spec in dependencies if re.match(r"openai\b", spec)]

    assert pin == f"openai=={version('openai')}"


def test_the_sdk_builds_its_decoder_through_the_hook() -> None:
    plain = AsyncOpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1")
    ours = PiOpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1")

    assert type(plain._make_sse_decoder()) is SSEDecoder  # the class StandardSSEDecoder extends
    assert type(ours._make_sse_decoder()) is StandardSSEDecoder


def test_decode_takes_one_line_and_returns_an_event_or_none() -> None:
    signature = inspect.signature(SSEDecoder.decode)

    assert list(signature.parameters) == ["self", "line"]
    decoder = SSEDecoder()
    assert decoder.decode('data: {"a": 1}') is None
    event = decoder.decode("")
    assert isinstance(event, ServerSentEvent) and event.data == '{"a": 1}' and event.event is None


async def test_the_sdk_still_dispatches_events_without_data() -> None:
    """The bug StandardSSEDecoder exists for: if this fails, the SDK follows the standard and it can go."""
    events = await _events(SSEDecoder())

    assert [event.data for event in events] == ["", "", '{"a": 1}', "", "[DONE]"]


async def test_the_subclass_drops_them_from_a_byte_stream() -> None:
    events = await _events(StandardSSEDecoder())

    assert [(event.event, event.data) for event in events] == [(None, '{"a": 1}'), (None, "[DONE]")]


def test_process_response_data_keeps_the_signature_overridden() -> None:
    def shape(function: Any) -> list[tuple[str, Any]]:
        return [(name, p.kind) for name, p in inspect.signature(function).parameters.items()]

    assert shape(RawEventsOpenAI._process_response_data) == shape(AsyncOpenAI._process_response_data)


async def test_a_real_stream_goes_through_both_hooks(openai_server: OpenAIServer) -> None:
    """Against the loopback server: the keep-alive is skipped (decoder hook) and each chunk arrives as
    the server's JSON object, not an SDK model (`_process_response_data` hook)."""
    openai_server.enqueue(StreamReply(["event: ping", chunk(content="hi"), "retry: 10"]))
    client = RawEventsOpenAI(api_key="unused", base_url=openai_server.base_url, max_retries=0)

    stream = await client.chat.completions.create(model="m", messages=[], stream=True)
    items = [item async for item in stream]
    await client.close()

    assert [type(item) for item in items] == [dict]
    assert items[0]["choices"][0]["delta"]["content"] == "hi"
