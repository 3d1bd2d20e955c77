"""Chat Completions stream chunks assembled into one assistant message and its stream events.

Pure (no I/O) so it is tested chunk by chunk. Blocks appear in arrival order: a change of kind (text,
thinking, a tool call) ends the open block. Reasoning text comes in whichever of the delta fields the
server uses (`reasoning_content`: vLLM, llama.cpp, DeepSeek; `reasoning`: OpenRouter, Ollama); as pi
does, the field name is kept as the thinking block's signature. Tool calls are keyed by `index` (a new
`id` at a known index starts a new call, for servers that always send index 0); arguments are joined
and parsed when the call ends (see `tool_arguments`).

Chunks are JSON from a server we do not control, and the SDK passes them on unvalidated: a field of the
wrong type (a list where an object belongs, a number as a name) is ignored, never an exception.
"""

from __future__ import annotations

import json
import logging
import math
import time
import uuid
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.messages import (
    AssistantMessage,
    ModelPrices,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    compute_cost,
)
from pi_tui.ai.stream import StreamEvent, StreamEventType
from pi_tui.ai.tool_arguments import make_tool_call
from pi_tui.ai.valid_text import valid_json_value

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
KNOWN_DELTA_FIELDS = frozenset(
    {
        "role",
        "content",
        "tool_calls",
        "function_call",
        "refusal",
        "audio",
        "reasoning_details",
        *REASONING_FIELDS,
    }
)
"""What a delta may carry; anything else is another dialect's field, noted once and otherwise ignored."""
logger = logging.getLogger(__name__)
_reported_fields: set[str] = set()


def note_unknown_fields(delta: dict[str, Any]) -> None:
    """Log a delta field pi-tui does not read, once per field and process: a provider that streams its
    reasoning (or anything else) somewhere unexpected should be findable, never fatal."""
    for name in delta.keys() - KNOWN_DELTA_FIELDS - _reported_fields:
        _reported_fields.add(name)
        logger.warning("provider sent a delta field pi-tui does not read: %r (ignored)", name)


_FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


def map_finish_reason(reason: str) -> tuple[StopReason, str | None]:
    """pi's mapping: known reasons to a stop reason; anything else (content_filter, ...) is an error."""
    mapped = _FINISH_REASONS.get(reason)
    if mapped is not None:
        return mapped, None
    return "error", f"Provider finish_reason: {reason}"


def json_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def json_string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _objects(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


MAX_REPORTED_TOKENS = 100_000_000
"""Beyond any context window served today by two orders of magnitude: a bigger count is a broken server."""


def json_count(value: Any) -> int:
    """A token count as servers send it (an int, sometimes a float or a numeric string); else 0. A count
    beyond `MAX_REPORTED_TOKENS` comes back as one more than it, for `take_reported_usage` to refuse."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, float):
        count = int(min(value, MAX_REPORTED_TOKENS + 1)) if math.isfinite(value) and value > 0 else 0
    elif isinstance(value, str) and value.strip().isdigit() and len(value) < 20:
        count = int(value)
    else:
        count = max(value, 0) if isinstance(value, int) else 0
    return min(count, MAX_REPORTED_TOKENS + 1)


def take_reported_usage(partial: AssistantMessage, usage: Usage, raw: dict[str, Any]) -> bool:
    """Store the usage a server reported, unless a count is implausible (`prompt_tokens: 1e308`): then the
    reply keeps no usage (its context is estimated, as for a server that reports none) and a diagnostic
    says which count was refused."""
    counts = {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total_tokens,
    }
    refused = {name: count for name, count in counts.items() if count > MAX_REPORTED_TOKENS}
    if not refused:
        partial.usage = usage
        return True
    names = ", ".join(sorted(refused))
    diagnostic = {
        "type": "usage_out_of_range",
        "timestamp": int(time.time() * 1000),
        "message": f"reported usage ignored: {names} above {MAX_REPORTED_TOKENS:,} tokens",
        "reported": js_text(raw),
    }
    partial.diagnostics = [*(partial.diagnostics or []), diagnostic]
    return False


def js_text(value: Any, limit: int = 2000) -> str:
    """A JSON value as short text for a diagnostic (a 309-digit number stays readable)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def usage_from_openai(raw: dict[str, Any], prices: ModelPrices) -> Usage:
    """pi's openai-completions usage: the prompt split into uncached input, cache reads and cache writes.

    `prompt_tokens` counts all three. Reads are `prompt_tokens_details.cached_tokens` (DeepSeek:
    `prompt_cache_hit_tokens`); writes, reported by OpenRouter for marker caches, are
    `cache_write_tokens`, which OpenRouter also counts inside `cached_tokens`, so they are taken out of
    the reads when both are there.
    """
    prompt = json_count(raw.get("prompt_tokens"))
    output = json_count(raw.get("completion_tokens"))
    details = json_object(raw.get("prompt_tokens_details"))
    cached = json_count(details.get("cached_tokens")) or json_count(raw.get("prompt_cache_hit_tokens"))
    written = json_count(details.get("cache_write_tokens"))
    read = max(cached - written, 0) if written else cached
    usage = Usage(input=max(prompt - read - written, 0), output=output, cache_read=read, cache_write=written)
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    usage.cost = compute_cost(usage, prices)
    return usage


@dataclass
class _ToolBlock:
    content_index: int
    id: str
    name: str
    raw: str = ""
    ended: bool = False
    dirty: bool = False


class ReplyAssembler:
    """Feeds chunk dicts into `partial` and returns the events each one produced.

    `partial` is the same object throughout (the growing message); a consumer that keeps a snapshot
    must copy it.
    """

    def __init__(self, partial: AssistantMessage, prices: ModelPrices) -> None:
        self.partial = partial
        self.finish_reason: str | None = None
        self.saw_usage = False
        self._prices = prices
        self._open: int | None = None
        self._tools_by_index: dict[int, _ToolBlock] = {}
        self._tools_by_content: dict[int, _ToolBlock] = {}

    def _event(self, kind: StreamEventType, index: int, delta: str | None = None) -> StreamEvent:
        return StreamEvent(kind, self.partial, content_index=index, delta=delta)

    def _end_open(self) -> list[StreamEvent]:
        index = self._open
        if index is None:
            return []
        self._open = None
        block = self.partial.content[index]
        if isinstance(block, TextContent):
            return [self._event("text_end", index)]
        if isinstance(block, ThinkingContent):
            return [self._event("thinking_end", index)]
        tool = self._tools_by_content[index]
        tool.ended = True
        self._finalise(tool)
        return [self._event("toolcall_end", index)]

    def _finalise(self, tool: _ToolBlock) -> None:
        self.partial.content[tool.content_index] = make_tool_call(tool.id, tool.name, tool.raw)
        tool.dirty = False

    def _open_block(
        self, block: TextContent | ThinkingContent | ToolCall, kind: StreamEventType
    ) -> list[StreamEvent]:
        events = self._end_open()
        self.partial.content.append(block)
        self._open = len(self.partial.content) - 1
        events.append(self._event(kind, self._open))
        return events

    def _text(self, delta: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        block = self.partial.content[self._open] if self._open is not None else None
        if not isinstance(block, TextContent):
            events = self._open_block(TextContent(text=""), "text_start")
            block = self.partial.content[self._open or 0]
        assert isinstance(block, TextContent)
        block.text += delta
        events.append(self._event("text_delta", self._open or 0, delta))
        return events

    def _thinking(self, delta: str, field: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        block = self.partial.content[self._open] if self._open is not None else None
        if not isinstance(block, ThinkingContent):
            events = self._open_block(
                ThinkingContent(thinking="", thinking_signature=field), "thinking_start"
            )
            block = self.partial.content[self._open or 0]
        assert isinstance(block, ThinkingContent)
        block.thinking += delta
        events.append(self._event("thinking_delta", self._open or 0, delta))
        return events

    def _tool_call(self, raw: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        index = raw.get("index")
        index = index if isinstance(index, int) else len(self._tools_by_index)
        function = json_object(raw.get("function"))
        call_id = _text(raw.get("id"))
        tool = self._tools_by_index.get(index)
        if tool is None or (call_id and call_id != tool.id):
            name = _text(function.get("name"))
            new_id = call_id or f"call_{uuid.uuid4().hex[:24]}"
            events = self._open_block(ToolCall(id=new_id, name=name), "toolcall_start")
            tool = _ToolBlock(self._open or 0, new_id, name)
            self._tools_by_index[index] = tool
            self._tools_by_content[tool.content_index] = tool
        elif not tool.name and _text(function.get("name")):
            tool.name = function["name"]
            block = self.partial.content[tool.content_index]
            assert isinstance(block, ToolCall)
            block.name = tool.name
        fragment = function.get("arguments")
        # Some servers send the arguments as an object rather than JSON text.
        fragment = json.dumps(fragment) if isinstance(fragment, dict) else _text(fragment)
        if fragment:
            tool.raw += fragment
            tool.dirty = tool.ended
            events.append(self._event("toolcall_delta", tool.content_index, fragment))
        return events

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        """Apply one chunk; returns its events in order."""
        chunk = valid_json_value(chunk)
        events: list[StreamEvent] = []
        if chunk.get("id") and self.partial.response_id is None:
            self.partial.response_id = str(chunk["id"])
        response_model = chunk.get("model")
        if response_model and response_model != self.partial.model and self.partial.response_model is None:
            self.partial.response_model = str(response_model)
        if isinstance(chunk.get("usage"), dict):
            usage = usage_from_openai(chunk["usage"], self._prices)
            self.saw_usage = take_reported_usage(self.partial, usage, chunk["usage"])
        for choice in _objects(chunk.get("choices")):
            delta = json_object(choice.get("delta"))
            note_unknown_fields(delta)
            for field in REASONING_FIELDS:
                value = delta.get(field)
                if isinstance(value, str) and value:
                    events += self._thinking(value, field)
                    break
            content = delta.get("content")
            if isinstance(content, str) and content:
                events += self._text(content)
            for tool_call in _objects(delta.get("tool_calls")):
                events += self._tool_call(tool_call)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        return events

    def close(self) -> list[StreamEvent]:
        """End the open block; re-parse calls whose arguments kept arriving after they ended."""
        events = self._end_open()
        for tool in self._tools_by_content.values():
            if tool.dirty:
                self._finalise(tool)
        return events
