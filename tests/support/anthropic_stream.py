"""Messages API replies for the loopback server: event builders, and the SSE framing of `/v1/messages`.

A `StreamReply` served on `/v1/messages` is sent as Anthropic streams (its streaming docs): each dict
event as `event: <its type>` + `data: <json>`, raw strings verbatim, no `[DONE]`. `anthropic_reply`
builds the whole sequence for one reply: `message_start` (id, model, usage with the cache counts and
`cache_creation`), `ping`, per block `content_block_start` / `content_block_delta`s /
`content_block_stop` (text, thinking with `signature_delta`, `redacted_thinking`, `tool_use` with
`input_json_delta`s), `message_delta` (stop reason, output tokens) and `message_stop`. HTTP errors carry
Anthropic's error body (`anthropic_error`); `stream_error` answers 200 and then an `event: error`.

With the server's `cache` set to a `PromptCache`, the usage of each reply is the one the cache emulates
for the request (`with_emulated_usage`), its writes 1-hour ones when the request's markers ask for them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from tests.support.cache_emulator import CacheResult
from tests.support.openai_server import ErrorReply, StreamReply

ANTHROPIC_MODEL = "claude-test-4"


def as_anthropic_stream(reply: StreamReply) -> StreamReply:
    """`reply` framed as Anthropic's SSE: `event:` lines from each event's type, no `[DONE]`."""
    framed: list[dict[str, Any] | str] = []
    for item in reply.chunks:
        if isinstance(item, dict):
            framed.append(f"event: {item.get('type', 'message')}\ndata: {json.dumps(item)}")
        else:
            framed.append(item)
    return replace(reply, chunks=framed, done=False)


def usage_block(
    input_tokens: int = 10,
    output_tokens: int = 5,
    *,
    cache_read: int = 0,
    cache_write: int = 0,
    cache_write_1h: int = 0,
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": cache_write - cache_write_1h,
            "ephemeral_1h_input_tokens": cache_write_1h,
        },
        "output_tokens": output_tokens,
    }


def anthropic_usage(result: CacheResult, output_tokens: int, *, long: bool) -> dict[str, Any]:
    """The usage Anthropic reports for what the emulated cache served: `input_tokens` is the uncached
    rest, the writes are 1-hour ones when the request's markers asked for `ttl: 1h`."""
    return usage_block(
        result.uncached_tokens,
        output_tokens,
        cache_read=result.cached_tokens,
        cache_write=result.cache_write_tokens,
        cache_write_1h=result.cache_write_tokens if long else 0,
    )


@dataclass
class ToolUse:
    name: str
    arguments: str
    """The input as JSON text, streamed in `pieces` `input_json_delta`s."""
    call_id: str = "toolu_test"
    pieces: int = 2


@dataclass
class Thinking:
    text: str
    signature: str = "sig-test"


@dataclass
class AnthropicEvents:
    events: list[dict[str, Any] | str] = field(default_factory=list)
    blocks: int = 0

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, **fields})

    def block(self, start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        index = self.blocks
        self.blocks += 1
        self.add("content_block_start", index=index, content_block=start)
        for delta in deltas:
            self.add("content_block_delta", index=index, delta=delta)
        self.add("content_block_stop", index=index)


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(count, 1)))
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def anthropic_reply(
    *,
    text: str | None = None,
    thinking: list[Thinking] | None = None,
    redacted: list[str] | None = None,
    calls: list[ToolUse] | None = None,
    message_id: str = "msg_test",
    model: str = ANTHROPIC_MODEL,
    usage: dict[str, Any] | None = None,
    stop_reason: str | None = None,
    stop_details: dict[str, Any] | None = None,
    diagnostics: dict[str, Any] | None = None,
) -> StreamReply:
    """One whole reply in Anthropic's event order: thinking, redacted thinking, text, tool calls."""
    reported = usage or usage_block()
    start_usage = {**reported, "output_tokens": 1}
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    if diagnostics is not None:
        message["diagnostics"] = diagnostics
    events = AnthropicEvents()
    events.add("message_start", message=message)
    events.add("ping")
    for block in thinking or []:
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _pieces(block.text, 2)]
        deltas.append({"type": "signature_delta", "signature": block.signature})
        events.block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    for data in redacted or []:
        events.block({"type": "redacted_thinking", "data": data}, [])
    if text is not None:
        deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(text, 3)]
        events.block({"type": "text", "text": ""}, deltas)
    for call in calls or []:
        deltas = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in _pieces(call.arguments, call.pieces)
        ]
        events.block({"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}}, deltas)
    reason = stop_reason or ("tool_use" if calls else "end_turn")
    delta: dict[str, Any] = {"stop_reason": reason, "stop_sequence": None}
    if stop_details is not None:
        delta["stop_details"] = stop_details
    events.add("message_delta", delta=delta, usage={"output_tokens": reported.get("output_tokens", 0)})
    events.add("message_stop")
    return StreamReply(events.events)


def anthropic_error(
    status: int,
    error_type: str,
    message: str,
    *,
    request_id: str = "req_test",
    headers: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
) -> ErrorReply:
    """An HTTP error with Anthropic's body: `{"type":"error","error":{type,message},"request_id"}`."""
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details is not None:
        error["details"] = details
    return ErrorReply(status, {"type": "error", "error": error, "request_id": request_id}, headers or {})


def stream_error(error_type: str, message: str, *, message_id: str = "msg_test") -> StreamReply:
    """200, `message_start`, then an `event: error` as Anthropic sends when it fails mid-stream."""
    start = anthropic_reply(text="", message_id=message_id).chunks[0]
    data = json.dumps({"type": "error", "error": {"type": error_type, "message": message}})
    return StreamReply([start, f"event: error\ndata: {data}"])


def _asks_long_ttl(body: dict[str, Any]) -> bool:
    return '"ttl": "1h"' in json.dumps(body)


def with_emulated_usage(reply: StreamReply, result: CacheResult, body: dict[str, Any]) -> StreamReply:
    """`reply` with the cache's usage in `message_start` (its output count kept)."""
    events: list[dict[str, Any] | str] = []
    for item in reply.chunks:
        if isinstance(item, dict) and item.get("type") == "message_start":
            message = dict(item["message"])
            output = message.get("usage", {}).get("output_tokens", 0)
            message["usage"] = anthropic_usage(result, output, long=_asks_long_ttl(body))
            item = {**item, "message": message}
        events.append(item)
    return replace(reply, chunks=events)


def _unmarked(value: Any) -> Any:
    """A request part as Anthropic's cache sees it: no `cache_control`, string content as a text block."""
    if isinstance(value, dict):
        return {
            key: (
                [{"type": "text", "text": item}]
                if key == "content" and isinstance(item, str)
                else _unmarked(item)
            )
            for key, item in value.items()
            if key != "cache_control"
        }
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


@dataclass(frozen=True)
class _Sent:
    model: Any
    tools: Any
    system: Any
    messages: list[Any]
    prompt_tokens: int


@dataclass
class CacheDiagnosis:
    """Anthropic's `diagnostics.cache_miss_reason`, emulated: each reply's request is remembered by the
    reply's message id, and a request naming one as `diagnostics.previous_message_id` is compared with it,
    in the order Anthropic renders a prompt: model, tools, system, then the earlier messages (which this
    request must repeat). The missed tokens are the earlier request's prompt minus what this one read
    from the cache. A request that asks with no id gets `cache_miss_reason: null` (nothing to compare)."""

    sent: dict[str, _Sent] = field(default_factory=dict)

    def reason(self, body: dict[str, Any], result: CacheResult) -> dict[str, Any] | None:
        previous_id = body["diagnostics"].get("previous_message_id")
        if previous_id is None:
            return None
        previous = self.sent.get(previous_id)
        if previous is None:
            return {"type": "previous_message_not_found"}
        messages = _unmarked(body.get("messages") or [])
        if body.get("model") != previous.model:
            kind = "model_changed"
        elif _unmarked(body.get("tools")) != previous.tools:
            kind = "tools_changed"
        elif _unmarked(body.get("system")) != previous.system:
            kind = "system_changed"
        elif messages[: len(previous.messages)] != previous.messages:
            kind = "messages_changed"
        else:
            return None
        missed = max(0, previous.prompt_tokens - result.cached_tokens)
        return {"type": kind, "cache_missed_input_tokens": missed}

    def apply(self, reply: StreamReply, body: dict[str, Any], result: CacheResult) -> StreamReply:
        """`reply` with the diagnosis in `message_start` when the request asked for one; its request
        remembered under the reply's id either way."""
        events: list[dict[str, Any] | str] = []
        for item in reply.chunks:
            if isinstance(item, dict) and item.get("type") == "message_start":
                message = dict(item["message"])
                if isinstance(body.get("diagnostics"), dict):
                    message["diagnostics"] = {"cache_miss_reason": self.reason(body, result)}
                self.sent[str(message.get("id"))] = _Sent(
                    body.get("model"),
                    _unmarked(body.get("tools")),
                    _unmarked(body.get("system")),
                    _unmarked(body.get("messages") or []),
                    result.prompt_tokens,
                )
                item = {**item, "message": message}
            events.append(item)
        return replace(reply, chunks=events)
