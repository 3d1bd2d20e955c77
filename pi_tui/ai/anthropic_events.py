"""Messages API stream events assembled into one assistant message and its stream events.

Pure (no I/O), like `responses_events`, and storing what pi 1.6 stores, so either tool replays the
other's sessions exactly:

- `message_start` gives the reply's id (`responseId`, what a thread continues from), the served model
  when it differs, the first usage, and the cache diagnostics asked for with `diagnostics`;
- a `text` block becomes a text block; a `thinking` block a thinking block whose signature is the
  concatenated `signature_delta`s; a `redacted_thinking` block a thinking block `[Reasoning redacted]`,
  `redacted: true`, whose signature is the opaque `data`; a `tool_use` block a tool call whose
  arguments are the concatenated `input_json_delta`s;
- `message_delta` gives the stop reason and the final usage (with the thinking tokens as `reasoning`);
  `message_stop` ends a whole reply. `input_transformations` (either event) become pi's
  `anthropic_input_transformations` diagnostic of a whole reply.

Usage is pi's: `input` is Anthropic's `input_tokens` (already without the cached part), `cacheRead`
and `cacheWrite` its cache counts, `cacheWrite1h` the part written for an hour.

Events are JSON from a server we do not control: an unknown event or block type, or a field of an
unexpected type, is logged once per reply (at INFO, as `responses_events` does) and otherwise ignored.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.js_json import js_dumps
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
from pi_tui.ai.openai_chunks import json_count, json_object, json_string
from pi_tui.ai.stream import StreamEvent, StreamEventType
from pi_tui.ai.tool_arguments import make_tool_call

logger = logging.getLogger(__name__)

REDACTED_THINKING_TEXT = "[Reasoning redacted]"
REFUSAL_MESSAGE = "The model refused to complete the request"
CACHE_MISS_DIAGNOSTIC = "anthropic_cache_miss"
INPUT_TRANSFORMATIONS_DIAGNOSTIC = "anthropic_input_transformations"
STREAM_ERROR_EVENT = "pi_stream_error"
"""How the client hands over an `event: error`: `{"type": STREAM_ERROR_EVENT, "data": <its text>}`."""
QUIET_EVENTS = frozenset({"ping"})

_STOP_REASONS: dict[str, tuple[StopReason, str | None]] = {
    "end_turn": ("stop", None),
    "max_tokens": ("length", None),
    "tool_use": ("toolUse", None),
    "pause_turn": ("stop", None),
    "stop_sequence": ("stop", None),
    "refusal": ("error", REFUSAL_MESSAGE),
    "sensitive": ("error", "Provider stopped with: sensitive"),
}


def map_stop_reason(reason: str, details: dict[str, Any]) -> tuple[StopReason, str | None]:
    """pi's mapping; a refusal is an error whose text is the server's explanation when it gave one."""
    mapped = _STOP_REASONS.get(reason)
    if mapped is None:
        return "error", f"Unhandled stop reason: {reason}"
    if reason == "refusal":
        return "error", json_string(details.get("explanation")) or REFUSAL_MESSAGE
    return mapped


@dataclass
class _Block:
    content_index: int
    kind: str
    arguments: str = ""
    streamed_arguments: bool = False


class AnthropicAssembler:
    """Feeds event dicts into `partial` and returns the stream events each one produced.

    After an `error` event, `failure` holds its text (the event's data as it came) and nothing more
    should be fed; `finished` says `message_stop` came.
    """

    def __init__(self, partial: AssistantMessage, prices: ModelPrices) -> None:
        self.partial = partial
        self.finished = False
        self.started = False
        self.stop: tuple[StopReason, str | None] | None = None
        self.raw_stop_reason: str | None = None
        self.failure: str | None = None
        self.transformations: list[dict[str, Any]] = []
        self._prices = prices
        self._blocks: dict[Any, _Block] = {}
        self._noted: set[str] = set()
        self._handlers: dict[str, Callable[[dict[str, Any]], list[StreamEvent]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            STREAM_ERROR_EVENT: self._stream_error,
        }

    def _note(self, key: str, message: str, *args: object) -> None:
        if key not in self._noted:
            self._noted.add(key)
            logger.info(message, *args)

    def _event(self, kind: StreamEventType, block: _Block, delta: str | None = None) -> StreamEvent:
        return StreamEvent(kind, self.partial, content_index=block.content_index, delta=delta)

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if not isinstance(kind, str):
            self._note("untyped", "Anthropic stream: ignoring an event without a type")
            return []
        handler = self._handlers.get(kind)
        if handler is not None:
            return handler(event)
        if kind not in QUIET_EVENTS:
            self._note(f"event:{kind}", "Anthropic stream: ignoring unknown event type %r", kind)
        return []

    # --- usage ------------------------------------------------------------------------------------

    def _usage(self, raw: dict[str, Any], *, start: bool) -> None:
        """`message_start` sets every count; `message_delta` only the counts it carries (pi's rule)."""
        usage = self.partial.usage if not start else Usage()
        creation = json_object(raw.get("cache_creation"))
        if start or raw.get("input_tokens") is not None:
            usage.input = json_count(raw.get("input_tokens"))
        if start or raw.get("output_tokens") is not None:
            usage.output = json_count(raw.get("output_tokens"))
        if start or raw.get("cache_read_input_tokens") is not None:
            usage.cache_read = json_count(raw.get("cache_read_input_tokens"))
        if start or raw.get("cache_creation_input_tokens") is not None:
            usage.cache_write = json_count(raw.get("cache_creation_input_tokens"))
        if start or creation.get("ephemeral_1h_input_tokens") is not None:
            usage.cache_write_1h = json_count(creation.get("ephemeral_1h_input_tokens"))
        thinking = json_object(raw.get("output_tokens_details")).get("thinking_tokens")
        if not start and thinking is not None:  # pi reads it from message_delta: part of `output`
            usage.reasoning = json_count(thinking)
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
        usage.cost = compute_cost(usage, self._prices)
        self.partial.usage = usage

    # --- events -----------------------------------------------------------------------------------

    def _message_start(self, event: dict[str, Any]) -> list[StreamEvent]:
        self.started = True
        message = json_object(event.get("message"))
        response_id = json_string(message.get("id"))
        if response_id:
            self.partial.response_id = response_id
        model = json_string(message.get("model"))
        if model and model != self.partial.model:
            self.partial.response_model = model
        self._usage(json_object(message.get("usage")), start=True)
        self._cache_diagnostics(message.get("diagnostics"))
        self._transformations(message.get("input_transformations"))
        return []

    def _transformations(self, raw: Any) -> None:
        """Anthropic's `input_transformations` (what it changed in the request), kept as pi keeps them."""
        if isinstance(raw, list):
            self.transformations = [
                {
                    key: item[key]
                    for key in ("type", "path", "reason")
                    if isinstance(item, dict) and item.get(key) is not None
                }
                for item in raw
            ]

    def transformations_diagnostic(self) -> dict[str, Any] | None:
        """pi's `anthropic_input_transformations` diagnostic of a whole reply, when Anthropic sent any."""
        if not self.transformations:
            return None
        return {
            "type": INPUT_TRANSFORMATIONS_DIAGNOSTIC,
            "timestamp": int(time.time() * 1000),
            "details": {"transformations": self.transformations},
        }

    def _cache_diagnostics(self, raw: Any) -> None:
        """Anthropic's `diagnostics.cache_miss_reason` (asked for with `compat.sendCacheMissDiagnostics`)."""
        reason = json_object(json_object(raw).get("cache_miss_reason"))
        reason_type = json_string(reason.get("type"))
        if not reason_type:
            return
        details: dict[str, Any] = {"reason": reason_type}
        if "cache_missed_input_tokens" in reason:
            details["missedTokens"] = json_count(reason.get("cache_missed_input_tokens"))
        diagnostic = {"type": CACHE_MISS_DIAGNOSTIC, "details": details}
        self.partial.diagnostics = [*(self.partial.diagnostics or []), diagnostic]

    def _block_start(self, event: dict[str, Any]) -> list[StreamEvent]:
        raw = json_object(event.get("content_block"))
        kind = json_string(raw.get("type")) or ""
        content = self.partial.content
        if kind == "text":
            content.append(TextContent(text=json_string(raw.get("text")) or ""))
            start: StreamEventType = "text_start"
        elif kind == "thinking":
            content.append(
                ThinkingContent(
                    thinking=json_string(raw.get("thinking")) or "",
                    thinking_signature=json_string(raw.get("signature")) or "",
                )
            )
            start = "thinking_start"
        elif kind == "redacted_thinking":
            signature = json_string(raw.get("data")) or ""
            content.append(
                ThinkingContent(thinking=REDACTED_THINKING_TEXT, thinking_signature=signature, redacted=True)
            )
            start = "thinking_start"
        elif kind == "tool_use":
            call_id = json_string(raw.get("id")) or ""
            content.append(ToolCall(id=call_id, name=json_string(raw.get("name")) or ""))
            start = "toolcall_start"
        else:
            self._note(f"block:{kind}", "Anthropic stream: ignoring content block %r", kind)
            return []
        block = _Block(len(content) - 1, kind)
        if kind == "tool_use":
            initial = raw.get("input")
            block.arguments = js_dumps(initial) if isinstance(initial, dict) and initial else ""
        self._blocks[event.get("index")] = block
        return [self._event(start, block)]

    def _open(self, event: dict[str, Any]) -> _Block | None:
        index = event.get("index")
        return self._blocks.get(index) if isinstance(index, int | str) else None

    def _block_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        block = self._open(event)
        delta = json_object(event.get("delta"))
        kind = json_string(delta.get("type")) or ""
        if block is None:
            self._note("orphan-delta", "Anthropic stream: a delta for no open content block")
            return []
        target = self.partial.content[block.content_index]
        if kind == "text_delta" and isinstance(target, TextContent):
            text = json_string(delta.get("text")) or ""
            target.text += text
            return [self._event("text_delta", block, text)]
        if kind == "thinking_delta" and isinstance(target, ThinkingContent):
            text = json_string(delta.get("thinking")) or ""
            target.thinking += text
            return [self._event("thinking_delta", block, text)]
        if kind == "signature_delta" and isinstance(target, ThinkingContent):
            target.thinking_signature = (target.thinking_signature or "") + (
                json_string(delta.get("signature")) or ""
            )
            return []
        if kind == "input_json_delta" and isinstance(target, ToolCall):
            text = json_string(delta.get("partial_json")) or ""
            if not block.streamed_arguments:
                block.arguments, block.streamed_arguments = "", True
            block.arguments += text
            return [self._event("toolcall_delta", block, text)]
        if kind != "citations_delta":
            self._note(f"delta:{kind}", "Anthropic stream: ignoring delta %r", kind)
        return []

    def _end(self, block: _Block) -> StreamEvent:
        target = self.partial.content[block.content_index]
        if isinstance(target, ToolCall):
            self.partial.content[block.content_index] = make_tool_call(
                target.id, target.name, block.arguments
            )
            return self._event("toolcall_end", block)
        return self._event("text_end" if isinstance(target, TextContent) else "thinking_end", block)

    def _block_stop(self, event: dict[str, Any]) -> list[StreamEvent]:
        block = self._open(event)
        if block is None:
            return []
        del self._blocks[event.get("index")]
        return [self._end(block)]

    def _message_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        delta = json_object(event.get("delta"))
        reason = json_string(delta.get("stop_reason"))
        if reason:
            self.raw_stop_reason = reason
            self.stop = map_stop_reason(reason, json_object(delta.get("stop_details")))
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._usage(usage, start=False)
        self._transformations(event.get("input_transformations"))
        return []

    def _message_stop(self, event: dict[str, Any]) -> list[StreamEvent]:
        self.finished = True
        return []

    def _stream_error(self, event: dict[str, Any]) -> list[StreamEvent]:
        self.failure = json_string(event.get("data")) or "Unknown error"
        return []

    def close(self) -> list[StreamEvent]:
        """End the blocks still open, in order: the stream stopped before their `content_block_stop`."""
        events = [self._end(block) for block in sorted(self._blocks.values(), key=lambda b: b.content_index)]
        self._blocks.clear()
        return events
