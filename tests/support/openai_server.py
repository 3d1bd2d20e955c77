"""A loopback Chat Completions server speaking the real SSE streaming protocol, scripted per test.

Each POST to `/v1/chat/completions` takes the next scripted reply from a queue: a stream of chunks
(optionally dropped, cut after N bytes, stalled, slowed, without `[DONE]`, or with raw malformed
lines) or an HTTP error with a body and headers. Every request's headers and JSON body are recorded,
as is the moment the client closed a stalled connection (to prove an abort closes the stream at
once). Responses use chunked transfer encoding so that a dropped connection is distinguishable from a
finished body. A reply may carry a `fault` label, and the labels of the replies served are kept in
`faults_served` (ready-made faults are in `tests.support.faults`). With `cache` set to a
`PromptCache`, each chat completion's usage is the one that cache emulates (see `_with_emulated_cache`).
With `keep_alive=True` a connection serves request after request until a reply ends it early (dropped,
cut or stalled) or the client closes it; `connections_accepted` and `open_connections` count the TCP
connections. GET requests are answered from `get_routes`. With `count_prompt` set, every scripted usage
reports the prompt tokens that function counts in the request body (a server that ignores part of the
request, say).
A POST to `/v1/responses` takes from the same queue and streams as the Responses API does (event dicts
framed with `event:` lines, no `[DONE]`; builders in `tests.support.responses_stream`). A POST to
`/v1/messages` (Anthropic's Messages API, at `anthropic_base_url`) streams as Anthropic does (builders and
framing in `tests.support.anthropic_stream`), with the emulated cache's usage when `cache` is set.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from tests.support.cache_emulator import CacheResult, PromptCache

DEFAULT_ID = "chatcmpl-test"
DEFAULT_MODEL = "test-model"


@dataclass
class StreamReply:
    """A 200 SSE stream. `chunks` are dicts (sent as `data: <json>`) or raw strings (sent verbatim)."""

    chunks: list[dict[str, Any] | str]
    done: bool = True
    drop_after: int | None = None
    stall_after: int | None = None
    delay_s: float = 0.0
    first_byte_delay_s: float = 0.0
    """How long the server thinks before it sends anything (the status line included)."""
    hold_headers: bool = False
    """Send nothing at all (not even the status line) until the client gives up."""
    cut_after_bytes: int | None = None
    """Send only the first N bytes of the SSE body (possibly mid-line), then close the connection."""
    fault: str | None = None
    release: asyncio.Event | None = None
    """Send nothing until the test sets this (it decides when the reply comes, not a clock)."""


@dataclass
class ErrorReply:
    status: int
    body: str | dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    fault: str | None = None


Reply = StreamReply | ErrorReply


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


class OpenAIServer:
    """Start with `await start()`; `base_url` ends in `/v1` as the SDK expects."""

    def __init__(self, *, keep_alive: bool = False) -> None:
        self.keep_alive = keep_alive
        self.connections_accepted = 0
        self.replies: list[Reply] = []
        self.requests: list[RecordedRequest] = []
        self.client_closed_at: list[float] = []
        self.faults_served: list[str] = []
        self.client_closed = asyncio.Event()
        self.cache: PromptCache | None = None
        self.cache_results: list[CacheResult] = []
        self.get_routes: dict[str, Any] = {}
        """JSON answers to GET requests by path (`/v1/models`, `/props`); any other GET is a 404."""
        self.get_requests: list[str] = []
        self.responder: Callable[[Any], Reply | None] | None = None
        """Answers a request from its body before the queue is asked (None: take the next queued reply)."""
        self.count_prompt: Callable[[dict[str, Any]], int] | None = None
        self.cache_diagnosis: Any = None
        """With `cache` on `/v1/messages`: Anthropic's `cache_miss_reason` for requests that ask for it
        (`anthropic_stream.CacheDiagnosis`, made on the first such request)."""
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Anthropic's SDK adds `/v1/messages` itself."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def open_connections(self) -> int:
        return len(self._handlers)

    def enqueue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.wait(self._handlers, timeout=2)
        if self._server is not None:
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self.connections_accepted += 1
        try:
            while await self._serve(reader, writer) and self.keep_alive:
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._handlers.discard(task)
            writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; True when the reply ended cleanly (the connection may serve another)."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        body = json.loads(raw) if raw else None
        if method == "GET":  # model lists and server properties: answered from `get_routes`, no reply used
            self.get_requests.append(path)
            found = self.get_routes.get(path)
            await self._send_error(writer, ErrorReply(200, found) if found is not None else ErrorReply(404))
            return True
        self.requests.append(RecordedRequest(method, path, headers, body))
        answered = self.responder(body) if self.responder is not None else None
        if answered is not None:
            reply: Reply = answered
        elif not self.replies:
            reply = ErrorReply(500, {"error": {"message": "openai_server: no scripted reply"}})
        else:
            reply = self.replies.pop(0)
        if reply.fault is not None:
            self.faults_served.append(reply.fault)
        if self.cache is not None and isinstance(reply, StreamReply) and path.endswith("/chat/completions"):
            reply = self._with_emulated_cache(body, reply)
        if self.count_prompt is not None and isinstance(reply, StreamReply) and isinstance(body, dict):
            reply = self._with_counted_prompt(self.count_prompt(body), reply)
        if isinstance(reply, StreamReply) and path.startswith("/v1/messages"):
            from tests.support.anthropic_stream import (
                CacheDiagnosis,
                as_anthropic_stream,
                with_emulated_usage,
            )

            if self.cache_diagnosis is None:
                self.cache_diagnosis = CacheDiagnosis()

            if self.cache is not None and isinstance(body, dict):
                result = self.cache.serve(body)
                self.cache_results.append(result)
                reply = self.cache_diagnosis.apply(with_emulated_usage(reply, result, body), body, result)
            reply = as_anthropic_stream(reply)
        if isinstance(reply, StreamReply) and path.endswith("/responses"):
            from tests.support.responses_stream import as_responses_stream  # it builds on this module

            reply = as_responses_stream(reply)
        if isinstance(reply, ErrorReply):
            await self._send_error(writer, reply)
            return True
        if reply.release is not None:
            await reply.release.wait()
        return await self._send_stream(reader, writer, reply)

    @property
    def _connection_header(self) -> str:
        return f"connection: {'keep-alive' if self.keep_alive else 'close'}"

    def _with_emulated_cache(self, body: Any, reply: StreamReply) -> StreamReply:
        """`reply` with the usage `self.cache` emulates for `body`: in place of every scripted usage (its
        completion count kept), or as an extra chunk when none was scripted and the request asked for
        usage. Only streams count: a provider answering with an HTTP error has cached nothing."""
        assert self.cache is not None
        request = body if isinstance(body, dict) else {}
        result = self.cache.serve(request)
        self.cache_results.append(result)
        style = self.cache.openrouter_style
        chunks: list[dict[str, Any] | str] = []
        replaced = False
        for item in reply.chunks:
            if isinstance(item, dict) and isinstance(item.get("usage"), dict):
                completion = item["usage"].get("completion_tokens")
                completion = completion if isinstance(completion, int) else 0
                item = {**item, "usage": result.usage(completion, openrouter_style=style)}
                replaced = True
            chunks.append(item)
        options = request.get("stream_options")
        if not replaced and isinstance(options, dict) and options.get("include_usage") is True:
            chunks.append(chunk(no_choices=True, usage=result.usage(0, openrouter_style=style)))
        return replace(reply, chunks=chunks)

    def _with_counted_prompt(self, prompt: int, reply: StreamReply) -> StreamReply:
        chunks: list[dict[str, Any] | str] = []
        for item in reply.chunks:
            if isinstance(item, dict) and isinstance(item.get("usage"), dict):
                completion = item["usage"].get("completion_tokens")
                item = {**item, "usage": usage(prompt, completion if isinstance(completion, int) else 0)}
            chunks.append(item)
        return replace(reply, chunks=chunks)

    async def _send_error(self, writer: asyncio.StreamWriter, reply: ErrorReply) -> None:
        if reply.body is None:
            payload = b""
            content_type = "text/plain"
        elif isinstance(reply.body, str):
            payload = reply.body.encode()
            content_type = "text/plain"
        else:
            payload = json.dumps(reply.body).encode()
            content_type = "application/json"
        head = [
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Error')}",
            f"content-type: {content_type}",
            f"content-length: {len(payload)}",
            self._connection_header,
            *(f"{name}: {value}" for name, value in reply.headers.items()),
        ]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()

    async def _send_stream(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: StreamReply
    ) -> bool:
        if reply.hold_headers:
            await self._wait_for_close(reader)
            return False
        if reply.first_byte_delay_s:
            await asyncio.sleep(reply.first_byte_delay_s)
        head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n"
        writer.write((head + self._connection_header + "\r\n\r\n").encode())
        if reply.cut_after_bytes is not None:
            body = b"".join(f"{_sse_line(item)}\n\n".encode() for item in reply.chunks)
            if reply.done:
                body += b"data: [DONE]\n\n"
            if reply.cut_after_bytes > 0:
                await self._write_chunk(writer, body[: reply.cut_after_bytes])
            return False  # the handler aborts the transport: no terminating chunk
        for number, item in enumerate(reply.chunks):
            if reply.drop_after is not None and number >= reply.drop_after:
                return False  # the handler aborts the transport: no terminating chunk
            if reply.stall_after is not None and number >= reply.stall_after:
                await self._wait_for_close(reader)
                return False
            await self._write_chunk(writer, f"{_sse_line(item)}\n\n".encode())
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
        if reply.stall_after is not None:
            await self._wait_for_close(reader)
            return False
        if reply.drop_after is not None:
            return False
        if reply.done:
            await self._write_chunk(writer, b"data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    async def _write_chunk(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await writer.drain()

    async def _wait_for_close(self, reader: asyncio.StreamReader) -> None:
        while await reader.read(1024):
            pass
        self.client_closed_at.append(time.monotonic())
        self.client_closed.set()


def _sse_line(item: dict[str, Any] | str) -> str:
    return item if isinstance(item, str) else f"data: {json.dumps(item)}"


def chunk(
    *,
    content: str | None = None,
    reasoning_content: str | None = None,
    reasoning: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    no_choices: bool = False,
    chunk_id: str = DEFAULT_ID,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """One `chat.completion.chunk` object with a single choice (or none, as the usage chunk has)."""
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if reasoning_content is not None:
        delta["reasoning_content"] = reasoning_content
    if reasoning is not None:
        delta["reasoning"] = reasoning
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    body: dict[str, Any] = {"id": chunk_id, "object": "chat.completion.chunk", "created": 0, "model": model}
    body["choices"] = [] if no_choices else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    if usage is not None:
        body["usage"] = usage
    return body


def usage(prompt: int, completion: int, cached: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached is not None:
        body["prompt_tokens_details"] = {"cached_tokens": cached}
    return body


def text_reply(text: str, *, pieces: int = 3, finish_reason: str = "stop") -> StreamReply:
    """`text` split into `pieces` content deltas, a finish chunk and a usage chunk."""
    size = max(1, -(-len(text) // pieces))
    chunks: list[dict[str, Any] | str] = [
        chunk(content=text[i : i + size]) for i in range(0, len(text), size)
    ]
    chunks.append(chunk(finish_reason=finish_reason))
    chunks.append(chunk(no_choices=True, usage=usage(10, 5)))
    return StreamReply(chunks)


def bash_call_reply(command: str, *, call_id: str = "call_1") -> StreamReply:
    """One bash tool call asking for `command`, then the finish and usage chunks."""
    arguments = json.dumps({"command": command})
    return StreamReply(
        [
            chunk(tool_calls=[tool_call_delta(0, call_id=call_id, name="bash", arguments=arguments)]),
            chunk(finish_reason="tool_calls"),
            chunk(no_choices=True, usage=usage(500, 20)),
        ]
    )


def tool_call_delta(
    index: int, *, call_id: str | None = None, name: str | None = None, arguments: str = ""
) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    delta: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        delta["id"] = call_id
        delta["type"] = "function"
    return delta


@pytest.fixture
async def openai_server() -> AsyncIterator[OpenAIServer]:
    server = OpenAIServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def keep_alive_server() -> AsyncIterator[OpenAIServer]:
    """A server whose connections serve request after request, for tests that count connections."""
    server = OpenAIServer(keep_alive=True)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
