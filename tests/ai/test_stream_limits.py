"""What a provider's stream may make pi-tui hold (`StandardSSEDecoder` in `pi_tui/ai/openai_client.py`):
one SSE line, one event and the whole decompressed reply are bounded, and a stream that passes a limit
ends the reply with an error naming it. Through the real `openai` client and loopback servers; the limits
are lowered so each test sends a few MB instead of hundreds."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator

import pytest

from pi_tui.ai import openai_client
from pi_tui.ai.messages import AssistantMessage, UserMessage
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.model_config import ModelConfig
from tests.support.openai_server import OpenAIServer, StreamReply, chunk

MIB = 1024 * 1024


@pytest.fixture(autouse=True)
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_client, "MAX_SSE_LINE_BYTES", 1 * MIB)
    monkeypatch.setattr(openai_client, "MAX_SSE_EVENT_BYTES", 2 * MIB)
    monkeypatch.setattr(openai_client, "MAX_REPLY_BYTES", 4 * MIB)


async def reply_from(base_url: str) -> AssistantMessage:
    model = ModelConfig(id="m", provider="loop", api="openai-completions", base_url=base_url)
    context = LlmContext("sys", [UserMessage(content="hi", timestamp=1)])
    options = StreamOptions(api_key="unused-key", max_retries=0, timeout_s=20.0)
    events = [event async for event in stream_openai(model, context, options)]
    final = events[-1].message
    assert final is not None
    return final


async def test_a_line_that_never_ends_stops_at_the_line_limit(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(StreamReply([chunk(content="start"), "data: " + "a" * (3 * MIB)], done=False))

    reply = await reply_from(openai_server.base_url)

    assert reply.stop_reason == "error"
    assert reply.error_message == (
        "Provider stream too large: one SSE line passed the 1 MiB limit; the reply was stopped"
    )
    assert not is_retryable_error(reply)


async def test_an_event_of_many_data_lines_stops_at_the_event_limit(openai_server: OpenAIServer) -> None:
    lines = "\n".join("data: " + "b" * (100 * 1024) for _ in range(30))
    openai_server.enqueue(StreamReply([lines], done=False))

    reply = await reply_from(openai_server.base_url)

    assert reply.error_message is not None and "one SSE event passed the 2 MiB limit" in reply.error_message


async def gzip_server(body: bytes) -> tuple[asyncio.Server, str]:
    """Answers every request with `body`, gzip-compressed, as an SSE stream."""
    compressed = gzip.compress(body, compresslevel=9)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n"
            + f"content-length: {len(compressed)}\r\nconnection: close\r\n\r\n".encode()
            + compressed
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/v1"


@pytest.fixture
async def bomb() -> AsyncIterator[tuple[str, int]]:
    """40 MiB of SSE comment lines (each one short, nothing dispatched) in about 40 KB of gzip."""
    body = b": padding padding padding padding padding padding\n" * (40 * MIB // 51)
    server, url = await gzip_server(body)
    try:
        yield url, len(gzip.compress(body, compresslevel=9))
    finally:
        server.close()
        await server.wait_closed()


async def test_a_gzip_bomb_stops_at_the_decompressed_size_limit(bomb: tuple[str, int]) -> None:
    url, wire_bytes = bomb
    assert wire_bytes < 200_000

    reply = await reply_from(url)

    assert reply.error_message == (
        "Provider stream too large: the decompressed reply passed the 4 MiB limit; the reply was stopped"
    )


async def test_bytes_that_are_not_utf8_in_a_stream_become_replacement_characters() -> None:
    body = b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9"},"finish_reason":"stop"}]}\n\n'
    server, url = await gzip_server(body + b"data: [DONE]\n\n")
    try:
        reply = await reply_from(url)
    finally:
        server.close()
        await server.wait_closed()

    assert reply.stop_reason == "stop", reply.error_message
    assert reply.text == "caf\ufffd"
