"""Ready-made faults for the loopback server (issue #9): each builder returns one scripted reply with its
`fault` label set, so a test can prove the fault was served (`OpenAIServer.faults_served`).

Bodies and texts are what real servers send: OpenAI's error objects, an overflow message that pi's
patterns know, SSE keep-alives, Azure's empty `choices` chunk, servers that repeat a tool-call index.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.openai_server import ErrorReply, StreamReply, chunk, tool_call_delta, usage

RATE_LIMIT_TEXT = "Rate limit reached for requests"
OVERFLOW_TEXT = (
    "This model's maximum context length is 32000 tokens. However, your messages resulted in 40000 "
    "tokens. Please reduce the length of the messages."
)
UNAUTHORIZED_TEXT = "Incorrect API key provided: sk-loop***. You can find your API key in your account."
NOT_FOUND_TEXT = "The model `primary` does not exist or you do not have access to it."
SERVER_ERROR_TEXTS = {
    500: "The server had an error while processing your request. Sorry about that!",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later.",
}


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def rate_limited(retry_after_s: float | None = None) -> ErrorReply:
    """429, with a `Retry-After` (seconds) when given."""
    headers = {"retry-after": f"{retry_after_s:g}"} if retry_after_s is not None else {}
    body = _error_body(RATE_LIMIT_TEXT, "requests", "rate_limit_exceeded")
    fault = "429 retry-after" if retry_after_s is not None else "429"
    return ErrorReply(429, body, headers, fault=fault)


def server_error(status: int) -> ErrorReply:
    """500, 502 or 503 with the body OpenAI sends for it."""
    return ErrorReply(status, _error_body(SERVER_ERROR_TEXTS[status], "server_error"), fault=str(status))


def unauthorized() -> ErrorReply:
    return ErrorReply(
        401, _error_body(UNAUTHORIZED_TEXT, "invalid_request_error", "invalid_api_key"), fault="401"
    )


def model_not_found() -> ErrorReply:
    return ErrorReply(
        404, _error_body(NOT_FOUND_TEXT, "invalid_request_error", "model_not_found"), fault="404"
    )


def context_overflow() -> ErrorReply:
    """OpenAI's 400 for a prompt larger than the window (pi's `maximum context length` pattern)."""
    body = _error_body(OVERFLOW_TEXT, "invalid_request_error", "context_length_exceeded")
    return ErrorReply(400, body, fault="overflow")


def _text_chunks(text: str) -> list[dict[str, Any] | str]:
    half = len(text) // 2
    return [chunk(content=text[:half]), chunk(content=text[half:])]


def _finish(reason: str = "stop") -> list[dict[str, Any] | str]:
    return [chunk(finish_reason=reason), chunk(no_choices=True, usage=usage(20, 5))]


def first_delta_bytes(text: str) -> int:
    """How many bytes of a `cut_stream(text, ...)` body carry its first delta (the first half of `text`)."""
    return len(f"data: {json.dumps(_text_chunks(text)[0])}\n\n".encode())


def cut_stream(text: str, after_bytes: int) -> StreamReply:
    """A reply whose connection closes after `after_bytes` bytes of SSE (mid-line for most values)."""
    return StreamReply([*_text_chunks(text), *_finish()], cut_after_bytes=after_bytes, fault="cut")


def tool_call_chunks(call_id: str, name: str, arguments: str, index: int = 0) -> list[dict[str, Any]]:
    """One tool call in three deltas (name first, then the arguments in two pieces)."""
    half = len(arguments) // 2
    return [
        chunk(tool_calls=[tool_call_delta(index, call_id=call_id, name=name)]),
        chunk(tool_calls=[tool_call_delta(index, arguments=arguments[:half])]),
        chunk(tool_calls=[tool_call_delta(index, arguments=arguments[half:])]),
    ]


def cut_tool_call(call_id: str, name: str, arguments: str) -> StreamReply:
    """A tool call whose arguments are cut off by a dropped connection (after its second delta)."""
    chunks = [*tool_call_chunks(call_id, name, arguments), *_finish("tool_calls")]
    return StreamReply(chunks, drop_after=2, fault="cut")


def stalled_stream(text: str) -> StreamReply:
    """Headers and the first delta arrive, then nothing, ever: only the client's timeout ends it."""
    return StreamReply([*_text_chunks(text), *_finish()], stall_after=1, fault="stall")


def stalled_headers() -> StreamReply:
    """Not even a status line: the request hangs before the response starts."""
    return StreamReply([], hold_headers=True, fault="stall")


def noisy_sse(text: str) -> StreamReply:
    """A whole reply among lines a client must skip: comments, unknown fields, events without data."""
    noise = [": keep-alive", "garbage without a colon", "event: ping", "retry: 3000", "id: 7", "data:"]
    first, second = _text_chunks(text)
    return StreamReply([noise[0], first, *noise[1:4], second, *noise[4:], *_finish()], fault="malformed")


def malformed_json(text: str) -> StreamReply:
    """A `data:` line that is not JSON, between two good deltas."""
    first, second = _text_chunks(text)
    return StreamReply(
        [first, 'data: {"choices": [{"delta": {"content"', second, *_finish()], fault="malformed"
    )


def stream_error(text: str, message: str = "Provider returned error") -> StreamReply:
    """A reply that starts, then carries an error object in a `data:` line (as OpenRouter does)."""
    error = {"error": {"message": message, "code": 502}}
    return StreamReply([_text_chunks(text)[0], error], done=False, fault="stream-error")


def usage_only_final(text: str, prompt_tokens: int, completion_tokens: int) -> StreamReply:
    """The finish comes first, then a last chunk holding only `usage` (no `choices` key at all)."""
    final = chunk(usage=usage(prompt_tokens, completion_tokens))
    del final["choices"]
    return StreamReply([*_text_chunks(text), chunk(finish_reason="stop"), final], fault="usage-only")


def empty_choices(text: str) -> StreamReply:
    """Azure-style chunks with `choices: []` (prompt filter results) before, within and after the reply."""
    first, second = _text_chunks(text)
    blank = chunk(no_choices=True)
    return StreamReply(
        [blank, first, blank, second, chunk(finish_reason="stop"), blank], fault="empty-choices"
    )


def duplicate_tool_indices(calls: list[tuple[str, str, str]]) -> StreamReply:
    """Several tool calls all sent at `index` 0 (distinct ids), as some servers do; each call's id is
    repeated on every one of its deltas."""
    chunks: list[dict[str, Any] | str] = []
    for call_id, name, arguments in calls:
        for piece in tool_call_chunks(call_id, name, arguments):
            piece["choices"][0]["delta"]["tool_calls"][0]["id"] = call_id
            chunks.append(piece)
    return StreamReply([*chunks, *_finish("tool_calls")], fault="duplicate-index")
