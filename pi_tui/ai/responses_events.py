"""Responses API stream events assembled into one assistant message and its stream events.

Pure (no I/O), like `openai_chunks`, and emitting the same kinds: each output item is a block, opened by
`response.output_item.added` and finished by `response.output_item.done`, whose item is the final word.
What is stored matches pi, so either tool replays the other's sessions exactly:

- a reasoning item becomes a thinking block (its summary parts joined by a blank line) whose signature
  is the finished item as JSON text, `encrypted_content` included: it goes back to the model verbatim;
- a `message` item becomes a text block whose signature is `{"v":1,"id":"msg_…"}` (the item's id);
- a `function_call` item becomes a tool call whose id is `call_id|item_id`.

`response.completed` (or `.incomplete`) ends a whole reply with its usage and status; `response.failed`
and `error` end it with an error text in pi's wording (`failure`); `responses_outcome` reads all three.
Events are JSON from a server we do not control: an unknown event or item type, or a field of an
unexpected type, is logged once per reply and otherwise ignored, never an exception. It is logged at
INFO: pi-tui configures no logging, and Python prints an unhandled WARNING to stderr, the terminal the
TUI draws on.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import AssistantMessage, ModelPrices, TextContent, ThinkingContent, ToolCall
from pi_tui.ai.openai_chunks import json_object, json_string, take_reported_usage
from pi_tui.ai.responses_input import encode_text_signature
from pi_tui.ai.responses_outcome import Failure, error_event, failed_response, usage_from_responses
from pi_tui.ai.stream import StreamEvent, StreamEventType
from pi_tui.ai.tool_arguments import make_tool_call
from pi_tui.ai.valid_text import valid_json_value

logger = logging.getLogger(__name__)

ItemKind: TypeAlias = Literal["reasoning", "message", "function_call"]
SUMMARY_SEPARATOR = "\n\n"
FINISHING_EVENTS = frozenset({"response.completed", "response.incomplete", "response.done"})
QUIET_EVENTS = frozenset(
    {
        "response.in_progress",
        "response.queued",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.done",
        "response.content_part.done",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.done",
    }
)
"""Known events that add nothing the finished item does not also carry."""
_BLOCK_EVENTS: dict[ItemKind, tuple[StreamEventType, StreamEventType, StreamEventType]] = {
    "reasoning": ("thinking_start", "thinking_delta", "thinking_end"),
    "message": ("text_start", "text_delta", "text_end"),
    "function_call": ("toolcall_start", "toolcall_delta", "toolcall_end"),
}


def _item_kind(value: Any) -> ItemKind | None:
    for kind in ("reasoning", "message", "function_call"):
        if value == kind:
            return kind
    return None


@dataclass
class _Item:
    kind: ItemKind
    content_index: int
    raw: dict[str, Any]
    """The item as the events so far describe it."""
    arguments: str = ""
    summary_parts: int = 0
    ended: bool = False


class ResponsesAssembler:
    """Feeds event dicts into `partial` and returns the stream events each one produced.

    `partial` is the same object throughout; a consumer that keeps a snapshot must copy it. After an
    event that ends the reply with an error, `failure` holds its text and nothing more should be fed.
    """

    def __init__(self, partial: AssistantMessage, prices: ModelPrices) -> None:
        self.partial = partial
        self.finished = False
        self.status: str | None = None
        self.failure: str | None = None
        self.failure_code: str | None = None
        self._prices = prices
        self._items: dict[Any, _Item] = {}
        self._last: _Item | None = None
        self._noted: set[str] = set()
        self._handlers: dict[str, Callable[[dict[str, Any]], list[StreamEvent]]] = {
            "response.created": self._created,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.reasoning_summary_part.added": self._summary_part_added,
            "response.reasoning_summary_text.delta": self._summary_delta,
            "response.reasoning_text.delta": self._reasoning_text_delta,
            "response.content_part.added": self._content_part_added,
            "response.output_text.delta": lambda event: self._text_delta(event, "output_text"),
            "response.refusal.delta": lambda event: self._text_delta(event, "refusal"),
            "response.function_call_arguments.delta": self._arguments_delta,
            "response.function_call_arguments.done": self._arguments_done,
            "response.failed": self._failed,
            "error": self._error,
        }

    # --- bookkeeping ------------------------------------------------------------------------------

    def _note(self, key: str, message: str, *args: object) -> None:
        """Log something the assembler ignored, once per reply."""
        if key not in self._noted:
            self._noted.add(key)
            logger.info(message, *args)

    def _event(self, kind: StreamEventType, item: _Item, delta: str | None = None) -> StreamEvent:
        return StreamEvent(kind, self.partial, content_index=item.content_index, delta=delta)

    def _key(self, event: dict[str, Any]) -> Any:
        index = event.get("output_index")
        return index if isinstance(index, int) and not isinstance(index, bool) else None

    def _find(self, event: dict[str, Any], kind: ItemKind) -> _Item | None:
        """The open item an event belongs to: by `output_index`, else the newest one of its kind."""
        key = self._key(event)
        item = self._items.get(key) if key is not None else None
        if item is None and self._last is not None and self._last.kind == kind:
            item = self._last
        return item if item is not None and item.kind == kind and not item.ended else None

    def _open(self, kind: ItemKind, raw: dict[str, Any], key: Any) -> tuple[_Item, list[StreamEvent]]:
        if kind == "reasoning":
            self.partial.content.append(ThinkingContent(thinking=""))
        elif kind == "message":
            self.partial.content.append(TextContent(text=""))
        else:
            self.partial.content.append(ToolCall(id=_call_id(raw), name=json_string(raw.get("name")) or ""))
        item = _Item(kind, len(self.partial.content) - 1, raw)
        if kind == "function_call":
            item.arguments = json_string(raw.get("arguments")) or ""
        if key is None or key in self._items:
            key = ("implicit", item.content_index)
        self._items[key] = item
        self._last = item
        return item, [self._event(_BLOCK_EVENTS[kind][0], item)]

    def _delta_text(self, event: dict[str, Any]) -> str:
        delta = event.get("delta")
        if isinstance(delta, str):
            return delta
        self._note(
            f"delta:{event.get('type')}", "Responses stream: %s without a text delta", event.get("type")
        )
        return ""

    # --- events -----------------------------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        """Apply one event; returns its stream events in order."""
        event = valid_json_value(event)
        kind = event.get("type")
        if not isinstance(kind, str):
            self._note("untyped", "Responses stream: ignoring an event without a type")
            return []
        if kind in FINISHING_EVENTS:
            return self._finished(event, kind)
        handler = self._handlers.get(kind)
        if handler is not None:
            return handler(event)
        if kind not in QUIET_EVENTS:
            self._note(f"event:{kind}", "Responses stream: ignoring unknown event type %r", kind)
        return []

    def _response(self, response: dict[str, Any]) -> None:
        response_id = json_string(response.get("id"))
        if response_id and self.partial.response_id is None:
            self.partial.response_id = response_id
        model = json_string(response.get("model"))
        if model and model != self.partial.model and self.partial.response_model is None:
            self.partial.response_model = model
        usage = response.get("usage")
        if isinstance(usage, dict):
            take_reported_usage(self.partial, usage_from_responses(usage, self._prices), usage)

    def _created(self, event: dict[str, Any]) -> list[StreamEvent]:
        self._response(json_object(event.get("response")))
        return []

    def _item_added(self, event: dict[str, Any]) -> list[StreamEvent]:
        raw = event.get("item")
        if not isinstance(raw, dict):
            self._note("item", "Responses stream: %s without an item", event.get("type"))
            return []
        kind = _item_kind(raw.get("type"))
        if kind is None:
            self._note(
                f"item:{raw.get('type')}", "Responses stream: ignoring output item %r", raw.get("type")
            )
            return []
        item = copy.deepcopy(raw)
        if kind == "reasoning":
            item["summary"] = []  # the parts arrive as events
        elif kind == "message":
            item["content"] = []
        return self._open(kind, item, self._key(event))[1]

    def _summary_part_added(self, event: dict[str, Any]) -> list[StreamEvent]:
        item = self._find(event, "reasoning")
        if item is None:
            return []
        part = event.get("part")
        item.raw["summary"].append(copy.deepcopy(part) if isinstance(part, dict) else {})
        item.summary_parts += 1
        block = self.partial.content[item.content_index]
        assert isinstance(block, ThinkingContent)
        if item.summary_parts > 1 and block.thinking:
            # pi joins summary parts with a blank line; sent as the next part starts, the streamed text
            # equals the final one (no separator dangling after the last part).
            block.thinking += SUMMARY_SEPARATOR
            return [self._event("thinking_delta", item, SUMMARY_SEPARATOR)]
        return []

    def _thinking_delta(self, event: dict[str, Any], field: str, part_type: str) -> list[StreamEvent]:
        delta = self._delta_text(event)
        if not delta:
            return []
        events: list[StreamEvent] = []
        item = self._find(event, "reasoning")
        if item is None:
            item, events = self._open("reasoning", {"type": "reasoning", field: []}, self._key(event))
        parts = item.raw.get(field)
        if not isinstance(parts, list):
            parts = item.raw[field] = []
        if not parts or not isinstance(parts[-1], dict) or parts[-1].get("type") != part_type:
            parts.append({"type": part_type, "text": ""})
            if field == "summary":
                item.summary_parts += 1
        parts[-1]["text"] = (json_string(parts[-1].get("text")) or "") + delta
        block = self.partial.content[item.content_index]
        assert isinstance(block, ThinkingContent)
        block.thinking += delta
        events.append(self._event("thinking_delta", item, delta))
        return events

    def _summary_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._thinking_delta(event, "summary", "summary_text")

    def _reasoning_text_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._thinking_delta(event, "content", "reasoning_text")

    def _content_part_added(self, event: dict[str, Any]) -> list[StreamEvent]:
        item = self._find(event, "message")
        part = event.get("part")
        if item is not None and isinstance(part, dict) and part.get("type") in ("output_text", "refusal"):
            item.raw["content"].append(copy.deepcopy(part))
        return []

    def _text_delta(self, event: dict[str, Any], part_type: str) -> list[StreamEvent]:
        delta = self._delta_text(event)
        if not delta:
            return []
        events: list[StreamEvent] = []
        item = self._find(event, "message")
        if item is None:
            raw = {"type": "message", "role": "assistant", "content": []}
            item, events = self._open("message", raw, self._key(event))
        parts = item.raw["content"]
        text_field = "text" if part_type == "output_text" else "refusal"
        if not parts or parts[-1].get("type") != part_type:
            parts.append({"type": part_type, text_field: ""})
        parts[-1][text_field] = (json_string(parts[-1].get(text_field)) or "") + delta
        block = self.partial.content[item.content_index]
        assert isinstance(block, TextContent)
        block.text += delta
        events.append(self._event("text_delta", item, delta))
        return events

    def _arguments_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        item = self._find(event, "function_call")
        if item is None:
            self._note("arguments", "Responses stream: arguments for no open function call")
            return []
        delta = self._delta_text(event)
        if not delta:
            return []
        item.arguments += delta
        return [self._event("toolcall_delta", item, delta)]

    def _arguments_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        item = self._find(event, "function_call")
        arguments = event.get("arguments")
        if item is not None and isinstance(arguments, str):
            item.arguments = arguments
        return []

    def _item_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        raw = event.get("item")
        kind = _item_kind(raw.get("type")) if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or kind is None:
            return []
        item = self._find(event, kind)
        events: list[StreamEvent] = []
        if item is None:  # a finished item that was never announced
            item, events = self._open(kind, copy.deepcopy(raw), self._key(event))
        events.extend(self._end(item, raw))
        return events

    def _end(self, item: _Item, done: dict[str, Any] | None) -> list[StreamEvent]:
        """Finish a block from the server's finished item (None: the stream ended before it came)."""
        item.ended = True
        block = self.partial.content[item.content_index]
        if isinstance(block, ThinkingContent):
            final = done if done is not None else item.raw
            # The summary; raw reasoning text (open-weight models) when there is none.
            text = _joined(final.get("summary"), "text") or _joined(final.get("content"), "text")
            if text:
                block.thinking = text
            if done is not None:
                block.thinking_signature = js_dumps(done)
        elif isinstance(block, TextContent):
            parts = done.get("content") if done is not None else None
            if isinstance(parts, list):
                block.text = "".join(_part_text(part) for part in parts if isinstance(part, dict))
            item_id = json_string((done or {}).get("id")) or json_string(item.raw.get("id"))
            if done is not None and item_id:
                block.text_signature = encode_text_signature(item_id, json_string(done.get("phase")))
        else:
            final = {**item.raw, **(done or {})}
            arguments = json_string((done or {}).get("arguments")) or item.arguments
            name = json_string(final.get("name")) or ""
            self.partial.content[item.content_index] = make_tool_call(_call_id(final), name, arguments)
        return [self._event(_BLOCK_EVENTS[item.kind][2], item)]

    def _finished(self, event: dict[str, Any], kind: str) -> list[StreamEvent]:
        response = json_object(event.get("response"))
        self._response(response)
        status = json_string(response.get("status"))
        self.status = status or ("incomplete" if kind == "response.incomplete" else None)
        self.finished = True
        return []

    def _failed(self, event: dict[str, Any]) -> list[StreamEvent]:
        response = json_object(event.get("response"))
        self._response(response)
        self._fail(failed_response(response))
        return []

    def _error(self, event: dict[str, Any]) -> list[StreamEvent]:
        self._fail(error_event(event))
        return []

    def _fail(self, failure: Failure) -> None:
        self.failure = failure.text
        self.failure_code = failure.code

    def close(self) -> list[StreamEvent]:
        """End the blocks still open, in order: the stream stopped before their items were finished."""
        events: list[StreamEvent] = []
        for item in sorted(self._items.values(), key=lambda open_item: open_item.content_index):
            if not item.ended:
                events.extend(self._end(item, None))
        return events


def _call_id(raw: dict[str, Any]) -> str:
    """pi's tool-call id for a function call item: `call_id|item_id`."""
    return f"{json_string(raw.get('call_id')) or ''}|{json_string(raw.get('id')) or ''}"


def _part_text(part: dict[str, Any]) -> str:
    return json_string(part.get("text")) or json_string(part.get("refusal")) or ""


def _joined(parts: Any, key: str) -> str:
    if not isinstance(parts, list):
        return ""
    texts = [
        text for part in parts if isinstance(part, dict) and (text := json_string(part.get(key))) is not None
    ]
    return SUMMARY_SEPARATOR.join(texts)
