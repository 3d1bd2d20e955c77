"""Responses API stream events assembled into an assistant message, event by event (no network)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from pi_tui.ai.messages import AssistantMessage, ModelPrices, TextContent, ThinkingContent, ToolCall
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.responses_events import ResponsesAssembler
from pi_tui.ai.responses_outcome import map_response_status, usage_from_responses
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.stream import StreamEvent
from pi_tui.ai.tool_arguments import invalid_arguments
from tests.support.responses_stream import FunctionCall, Reasoning, responses_events, responses_usage

PRICES = ModelPrices(input=3, output=15, cache_read=0.3)


def assembler() -> ResponsesAssembler:
    return ResponsesAssembler(AssistantMessage(api="openai-responses", model="gpt-5-mini"), PRICES)


def feed_all(target: ResponsesAssembler, events: list[dict[str, Any]]) -> list[StreamEvent]:
    out: list[StreamEvent] = []
    for event in events:
        out += target.feed(event)
    return out + target.close()


def kinds(events: list[StreamEvent]) -> list[str]:
    return [event.type for event in events]


def test_reasoning_text_and_call_become_signed_blocks() -> None:
    target = assembler()
    events = feed_all(
        target,
        responses_events(
            reasoning=Reasoning(["Plan it."], item_id="rs_9", encrypted="ENC"),
            text="Running.",
            text_id="msg_9",
            calls=[FunctionCall("bash", '{"command":"ls -la"}', call_id="call_9", item_id="fc_9")],
            response_id="resp_9",
            model="gpt-5-mini",
            usage=responses_usage(120, 30),
        ),
    )
    message = target.partial
    assert message.content == [
        ThinkingContent(
            thinking="Plan it.",
            thinking_signature=(
                '{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"Plan it."}],'
                '"encrypted_content":"ENC"}'
            ),
        ),
        TextContent(text="Running.", text_signature='{"v":1,"id":"msg_9"}'),
        ToolCall(id="call_9|fc_9", name="bash", arguments={"command": "ls -la"}),
    ]
    assert kinds(events) == [
        "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_delta", "toolcall_end",
    ]  # fmt: skip
    assert [event.content_index for event in events if event.type.endswith("_end")] == [0, 1, 2]
    assert "".join(event.delta or "" for event in events if event.type == "toolcall_delta") == (
        '{"command":"ls -la"}'
    )
    assert target.finished and target.status == "completed" and target.failure is None
    assert message.response_id == "resp_9"
    assert message.response_model is None  # the model asked for answered
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (120, 30, 150)


def test_the_signature_is_the_finished_item_verbatim_with_its_key_order() -> None:
    target = assembler()
    added = {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"id": "rs_1", "type": "reasoning"},
    }
    done_item = {"id": "rs_1", "type": "reasoning", "encrypted_content": "E", "summary": [], "status": None}
    target.feed(added)
    target.feed({"type": "response.output_item.done", "output_index": 0, "item": done_item})
    block = target.partial.content[0]
    assert isinstance(block, ThinkingContent)
    assert block.thinking_signature == json.dumps(done_item, separators=(",", ":"))
    assert block.thinking == ""  # an encrypted-only item has no text to show


def test_summary_parts_are_joined_by_a_blank_line_while_streaming_too() -> None:
    target = assembler()
    events = feed_all(target, responses_events(reasoning=Reasoning(["First.", "Second.", "Third."])))
    streamed = "".join(event.delta or "" for event in events if event.type == "thinking_delta")
    block = target.partial.content[0]
    assert isinstance(block, ThinkingContent)
    assert streamed == block.thinking == "First.\n\nSecond.\n\nThird."


def test_raw_reasoning_text_deltas_are_thinking() -> None:
    target = assembler()
    item = {"type": "reasoning", "id": "rs_1", "summary": []}
    done = {**item, "content": [{"type": "reasoning_text", "text": "step one, step two"}]}
    events = feed_all(
        target,
        [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.reasoning_text.delta", "output_index": 0, "delta": "step one, "},
            {"type": "response.reasoning_text.delta", "output_index": 0, "delta": "step two"},
            {"type": "response.reasoning_text.done", "output_index": 0, "text": "step one, step two"},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
        ],
    )
    assert kinds(events) == ["thinking_start", "thinking_delta", "thinking_delta", "thinking_end"]
    block = target.partial.content[0]
    assert isinstance(block, ThinkingContent)
    assert block.thinking == "step one, step two"
    assert block.thinking_signature is not None and json.loads(block.thinking_signature) == done


def test_a_refusal_is_the_reply_text() -> None:
    target = assembler()
    item = {"type": "message", "id": "msg_r", "role": "assistant", "content": []}
    done = {**item, "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
    events = feed_all(
        target,
        [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {
                "type": "response.content_part.added",
                "output_index": 0,
                "part": {"type": "refusal", "refusal": ""},
            },
            {"type": "response.refusal.delta", "output_index": 0, "delta": "I can't "},
            {"type": "response.refusal.delta", "output_index": 0, "delta": "help with that."},
            {"type": "response.refusal.done", "output_index": 0, "refusal": "I can't help with that."},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
        ],
    )
    assert kinds(events) == ["text_start", "text_delta", "text_delta", "text_end"]
    assert target.partial.content == [
        TextContent(text="I can't help with that.", text_signature='{"v":1,"id":"msg_r"}')
    ]


def test_the_phase_of_a_message_is_kept_in_its_signature() -> None:
    target = assembler()
    item = {"type": "message", "id": "msg_c", "role": "assistant", "phase": "commentary", "content": []}
    done = {**item, "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]}
    feed_all(
        target,
        [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
        ],
    )
    assert target.partial.content == [
        TextContent(text="Checking.", text_signature='{"v":1,"id":"msg_c","phase":"commentary"}')
    ]


def test_arguments_done_and_the_finished_item_win_over_the_deltas() -> None:
    target = assembler()
    added = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": ""}
    target.feed({"type": "response.output_item.added", "output_index": 0, "item": added})
    target.feed({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"pa'})
    target.feed(
        {"type": "response.function_call_arguments.done", "output_index": 0, "arguments": '{"path":"a"}'}
    )
    block = target.partial.content[0]
    assert isinstance(block, ToolCall) and block.arguments == {}  # parsed once the item is finished
    target.feed({"type": "response.output_item.done", "output_index": 0, "item": {**added, "arguments": ""}})
    assert target.partial.content == [ToolCall(id="call_1|fc_1", name="read", arguments={"path": "a"})]


def test_invalid_arguments_keep_their_raw_text() -> None:
    target = assembler()
    feed_all(target, responses_events(calls=[FunctionCall("read", '{"path": ')]))
    call = target.partial.tool_calls[0]
    assert call.arguments == {}
    assert invalid_arguments(call) == '{"path": '


def test_usage_with_cached_tokens() -> None:
    usage = usage_from_responses(responses_usage(1000, 200, cached=600), PRICES)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (400, 200, 600, 0)
    assert usage.total_tokens == 1200
    assert usage.cost.total == pytest.approx((400 * 3 + 200 * 15 + 600 * 0.3) / 1e6)
    target = assembler()
    feed_all(target, responses_events(text="x", usage=responses_usage(1000, 200, cached=600)))
    assert (target.partial.usage.input, target.partial.usage.cache_read) == (400, 600)


def test_usage_of_odd_shapes_is_never_negative() -> None:
    usage = usage_from_responses({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 50}}, PRICES)
    assert (usage.input, usage.cache_read, usage.total_tokens) == (0, 10, 10)
    assert usage_from_responses({"input_tokens": "x", "output_tokens": None}, PRICES).total_tokens == 0


def test_response_failed_gives_code_and_message() -> None:
    target = assembler()
    text = "Your input exceeds the context window of this model. Please adjust your input and try again."
    failed = {"status": "failed", "error": {"code": "context_length_exceeded", "message": text}}
    target.feed({"type": "response.failed", "response": failed})
    assert target.failure == f"context_length_exceeded: {text}"
    assert target.failure_code == "context_length_exceeded"
    assert is_context_overflow(failed_message(target.failure), 200_000)


def test_response_failed_without_an_error_object() -> None:
    target = assembler()
    target.feed(
        {"type": "response.failed", "response": {"incomplete_details": {"reason": "max_output_tokens"}}}
    )
    assert target.failure == "incomplete: max_output_tokens"
    target = assembler()
    target.feed({"type": "response.failed"})
    assert target.failure == "Unknown error (no error details in response)"


def test_error_events_in_pis_wording() -> None:
    target = assembler()
    target.feed(
        {"type": "error", "code": "server_error", "message": "The server had an error.", "param": None}
    )
    assert target.failure == "Error Code server_error: The server had an error."
    assert is_retryable_error(failed_message(target.failure), 128_000)
    target = assembler()
    target.feed({"type": "error", "error": {"type": "invalid_request_error", "message": "Bad input."}})
    assert target.failure == "Bad input."
    target = assembler()
    target.feed({"type": "error"})
    assert target.failure == "Unknown error"


def failed_message(text: str) -> AssistantMessage:
    return AssistantMessage(stop_reason="error", error_message=text)


def test_unknown_events_and_items_are_logged_once_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    target = assembler()
    events = responses_events(text="Hello")
    odd = [
        {"type": "response.shiny_new_event", "whatever": 1},
        {"type": "response.shiny_new_event", "whatever": 2},
        {
            "type": "response.output_item.added",
            "output_index": 5,
            "item": {"type": "web_search_call", "id": "ws"},
        },
        {"type": "response.output_text.delta", "output_index": 1, "delta": 42},
        {"no": "type"},
    ]
    with caplog.at_level(logging.INFO, logger="pi_tui.ai.responses_events"):
        out = feed_all(target, events[:3] + odd + odd + events[3:])
    assert target.partial.content == [TextContent(text="Hello", text_signature='{"v":1,"id":"msg_test"}')]
    assert target.finished and target.failure is None
    assert kinds(out).count("text_start") == 1
    logged = [record.getMessage() for record in caplog.records]
    assert sum("shiny_new_event" in line for line in logged) == 1
    assert sum("web_search_call" in line for line in logged) == 1
    assert sum("without a text delta" in line for line in logged) == 1
    assert sum("without a type" in line for line in logged) == 1
    assert len(logged) == 4


def test_known_events_that_add_nothing_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pi_tui.ai.responses_events"):
        feed_all(
            assembler(),
            responses_events(reasoning=Reasoning(["a"]), text="b", calls=[FunctionCall("c", "{}")]),
        )
    assert caplog.records == []


def test_a_stream_cut_short_ends_the_open_blocks() -> None:
    target = assembler()
    events = responses_events(
        reasoning=Reasoning(["Thinking"]),
        text="Partial text",
        calls=[FunctionCall("bash", '{"command":"ls"}')],
    )
    cut = [event for event in events if event["type"] != "response.output_item.done"][:-1]
    out = feed_all(target, cut)
    assert kinds(out)[-3:] == ["thinking_end", "text_end", "toolcall_end"]
    thinking, text, call = target.partial.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Thinking"
    assert thinking.thinking_signature is None  # no finished reasoning item: nothing to replay
    assert text == TextContent(text="Partial text")
    assert call == ToolCall(id="call_test|fc_test", name="bash", arguments={"command": "ls"})
    assert not target.finished


def test_text_without_an_announced_item_is_still_kept() -> None:
    target = assembler()
    out = feed_all(
        target,
        [
            {"type": "response.output_text.delta", "delta": "Hi "},
            {"type": "response.output_text.delta", "delta": "there"},
            {"type": "response.completed", "response": {"id": "resp_x", "status": "completed"}},
        ],
    )
    assert kinds(out) == ["text_start", "text_delta", "text_delta", "text_end"]
    assert target.partial.content == [TextContent(text="Hi there")]


def test_incomplete_response_ends_as_length() -> None:
    target = assembler()
    feed_all(target, responses_events(text="cut", status="incomplete"))
    assert target.finished and target.status == "incomplete"
    assert map_response_status(target.status) == ("length", None)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (None, ("stop", None)),
        ("completed", ("stop", None)),
        ("incomplete", ("length", None)),
        ("in_progress", ("stop", None)),
        ("failed", ("error", "Provider response status: failed")),
        ("cancelled", ("error", "Provider response status: cancelled")),
    ],
)
def test_status_mapping(status: str | None, expected: tuple[str, str | None]) -> None:
    assert map_response_status(status) == expected
