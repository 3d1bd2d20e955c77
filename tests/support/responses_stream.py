"""Responses API replies for the loopback server: event builders, and the SSE framing of `/responses`.

A `StreamReply` served on `/v1/responses` is sent as the Responses API streams: each dict chunk as
`event: <its type>` + `data: <json>`, raw strings verbatim, and no `[DONE]`. `responses_reply` builds
the whole event sequence OpenAI sends for a reply of reasoning (summary parts and encrypted content),
message text and function calls, ending in `response.completed` with usage.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from tests.support.openai_server import DEFAULT_MODEL, StreamReply


def as_responses_stream(reply: StreamReply) -> StreamReply:
    """`reply` framed as Responses SSE: `event:` lines from each event's type, no `[DONE]`."""
    framed: list[dict[str, Any] | str] = []
    for item in reply.chunks:
        if isinstance(item, dict):
            framed.append(f"event: {item.get('type', 'message')}\ndata: {json.dumps(item)}")
        else:
            framed.append(item)
    return replace(reply, chunks=framed, done=False)


@dataclass
class Reasoning:
    """A reasoning item: `summary` parts (streamed as deltas), `encrypted_content` unless None."""

    summary: list[str]
    item_id: str = "rs_test"
    encrypted: str | None = "ENC-opaque"


@dataclass
class FunctionCall:
    name: str
    arguments: str
    call_id: str = "call_test"
    item_id: str = "fc_test"


@dataclass
class ResponsesEvents:
    """Numbers every event (`sequence_number`) and each output item (`output_index`) as OpenAI does."""

    events: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})

    def item(
        self, added: dict[str, Any], done: dict[str, Any], between: list[tuple[str, dict[str, Any]]]
    ) -> None:
        index = len(self.outputs)
        self.add("response.output_item.added", output_index=index, item=added)
        for kind, fields in between:
            self.add(kind, output_index=index, item_id=added.get("id"), **fields)
        self.add("response.output_item.done", output_index=index, item=done)
        self.outputs.append(done)


def pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def reasoning_events(events: ResponsesEvents, reasoning: Reasoning) -> None:
    between: list[tuple[str, dict[str, Any]]] = []
    for number, text in enumerate(reasoning.summary):
        between.append(
            (
                "response.reasoning_summary_part.added",
                {"summary_index": number, "part": {"type": "summary_text", "text": ""}},
            )
        )
        between += [
            ("response.reasoning_summary_text.delta", {"summary_index": number, "delta": piece})
            for piece in pieces(text, 2)
        ]
        between.append(("response.reasoning_summary_text.done", {"summary_index": number, "text": text}))
        between.append(
            (
                "response.reasoning_summary_part.done",
                {"summary_index": number, "part": {"type": "summary_text", "text": text}},
            )
        )
    done: dict[str, Any] = {
        "type": "reasoning",
        "id": reasoning.item_id,
        "summary": [{"type": "summary_text", "text": text} for text in reasoning.summary],
    }
    if reasoning.encrypted is not None:
        done["encrypted_content"] = reasoning.encrypted
    events.item({"type": "reasoning", "id": reasoning.item_id, "summary": []}, done, between)


def message_events(events: ResponsesEvents, text: str, item_id: str) -> None:
    empty = {"type": "output_text", "text": "", "annotations": []}
    between: list[tuple[str, dict[str, Any]]] = [
        ("response.content_part.added", {"content_index": 0, "part": empty})
    ]
    between += [
        ("response.output_text.delta", {"content_index": 0, "delta": piece}) for piece in pieces(text, 3)
    ]
    between.append(("response.output_text.done", {"content_index": 0, "text": text}))
    part = {"type": "output_text", "text": text, "annotations": []}
    between.append(("response.content_part.done", {"content_index": 0, "part": part}))
    added = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    done = {**added, "status": "completed", "content": [part]}
    events.item(added, done, between)


def function_call_events(events: ResponsesEvents, call: FunctionCall) -> None:
    added = {
        "id": call.item_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": call.call_id,
        "name": call.name,
    }
    between: list[tuple[str, dict[str, Any]]] = [
        ("response.function_call_arguments.delta", {"delta": piece}) for piece in pieces(call.arguments, 3)
    ]
    between.append(("response.function_call_arguments.done", {"arguments": call.arguments}))
    events.item(added, {**added, "status": "completed", "arguments": call.arguments}, between)


def responses_usage(input_tokens: int, output_tokens: int, cached: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def response_object(
    response_id: str, model: str, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": model,
        "output": output,
        "usage": usage,
    }


def responses_events(
    *,
    reasoning: Reasoning | None = None,
    text: str | None = None,
    text_id: str = "msg_test",
    calls: list[FunctionCall] | None = None,
    response_id: str = "resp_test",
    model: str = DEFAULT_MODEL,
    usage: dict[str, Any] | None = None,
    status: str = "completed",
) -> list[dict[str, Any]]:
    """Every event of one reply, `response.created` to `response.completed` (`response.incomplete` for
    that status)."""
    events = ResponsesEvents()
    events.add("response.created", response=response_object(response_id, model, "in_progress", [], None))
    events.add("response.in_progress", response=response_object(response_id, model, "in_progress", [], None))
    if reasoning is not None:
        reasoning_events(events, reasoning)
    if text is not None:
        message_events(events, text, text_id)
    for call in calls or []:
        function_call_events(events, call)
    final = response_object(response_id, model, status, events.outputs, usage or responses_usage(10, 5))
    events.add("response.incomplete" if status == "incomplete" else "response.completed", response=final)
    return events.events


def responses_reply(**options: Any) -> StreamReply:
    """`responses_events(**options)` as a stream for the loopback server's `/responses` route."""
    chunks: list[dict[str, Any] | str] = list(responses_events(**options))
    return StreamReply(chunks)


def responses_text_reply(text: str, **options: Any) -> StreamReply:
    return responses_reply(text=text, **options)
