"""Assembling Chat Completions chunks into a message, chunk by chunk."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from pi_tui.ai.messages import AssistantMessage, ModelPrices, TextContent, ToolCall
from pi_tui.ai.openai_chunks import ReplyAssembler, map_finish_reason, usage_from_openai


def delta(**fields: Any) -> dict[str, Any]:
    finish = fields.pop("finish_reason", None)
    return {"id": "r1", "model": "m", "choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def assembler() -> ReplyAssembler:
    return ReplyAssembler(AssistantMessage(model="m"), ModelPrices())


def test_finish_reason_mapping() -> None:
    assert map_finish_reason("stop") == ("stop", None)
    assert map_finish_reason("length") == ("length", None)
    assert map_finish_reason("tool_calls") == ("toolUse", None)
    assert map_finish_reason("function_call") == ("toolUse", None)
    assert map_finish_reason("content_filter") == ("error", "Provider finish_reason: content_filter")
    assert map_finish_reason("weird") == ("error", "Provider finish_reason: weird")


def test_usage_without_details_and_deepseek_cache_field() -> None:
    plain = usage_from_openai({"prompt_tokens": 10, "completion_tokens": 3}, ModelPrices())
    assert (plain.input, plain.output, plain.cache_read, plain.total_tokens) == (10, 3, 0, 13)
    deepseek = usage_from_openai(
        {"prompt_tokens": 10, "completion_tokens": 3, "prompt_cache_hit_tokens": 4}, ModelPrices(input=1)
    )
    assert (deepseek.input, deepseek.cache_read) == (6, 4)
    assert deepseek.cost.input == 6 / 1_000_000


def test_openrouter_cache_writes_are_their_own_part_of_the_prompt() -> None:
    """OpenRouter reports writes in `cache_write_tokens` and counts them in `cached_tokens` as well."""
    raw = {
        "prompt_tokens": 1000,
        "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": 900, "cache_write_tokens": 300},
    }
    usage = usage_from_openai(raw, ModelPrices(input=3, cache_read=0.3, cache_write=3.75))
    assert (usage.input, usage.cache_read, usage.cache_write, usage.output) == (100, 600, 300, 5)
    assert usage.total_tokens == 1005
    assert usage.cost.cache_write == 3.75 * 300 / 1_000_000  # pi 1.6 multiplies first


def test_same_index_with_new_id_starts_a_new_call() -> None:
    reply = assembler()
    reply.feed(delta(tool_calls=[{"index": 0, "id": "a", "function": {"name": "ls", "arguments": "{}"}}]))
    reply.feed(delta(tool_calls=[{"index": 0, "id": "b", "function": {"name": "pwd", "arguments": ""}}]))
    reply.close()
    assert [(call.id, call.name) for call in reply.partial.tool_calls] == [("a", "ls"), ("b", "pwd")]


def test_missing_id_is_generated_and_name_may_arrive_late() -> None:
    reply = assembler()
    reply.feed(delta(tool_calls=[{"index": 0, "function": {"arguments": '{"x"'}}]))
    reply.feed(delta(tool_calls=[{"index": 0, "function": {"name": "late", "arguments": ": 1}"}}]))
    reply.close()
    [call] = reply.partial.tool_calls
    assert call.id.startswith("call_") and call.name == "late" and call.arguments == {"x": 1}


def test_interleaved_arguments_for_an_ended_call_are_reparsed_at_close() -> None:
    reply = assembler()
    reply.feed(
        delta(tool_calls=[{"index": 0, "id": "a", "function": {"name": "one", "arguments": '{"p": '}}])
    )
    reply.feed(delta(tool_calls=[{"index": 1, "id": "b", "function": {"name": "two", "arguments": "{}"}}]))
    reply.feed(delta(tool_calls=[{"index": 0, "function": {"arguments": "1}"}}]))
    events = reply.close()
    assert [event.type for event in events] == ["toolcall_end"]
    assert [call.arguments for call in reply.partial.tool_calls] == [{"p": 1}, {}]


def test_text_delta_events_carry_the_growing_partial() -> None:
    reply = assembler()
    first = reply.feed(delta(content="Hel"))
    second = reply.feed(delta(content="lo", finish_reason="stop"))
    assert [event.type for event in first] == ["text_start", "text_delta"]
    assert second[0].partial.content == [TextContent(text="Hello")]
    assert reply.finish_reason == "stop"
    assert reply.partial.response_id == "r1"
    assert not isinstance(reply.partial.content[0], ToolCall)


def test_a_field_of_another_dialect_is_logged_once_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    reply = assembler()
    with caplog.at_level(logging.WARNING, logger="pi_tui.ai.openai_chunks"):
        reply.feed(delta(thoughts="pondering", content="Hi"))
        reply.feed(delta(thoughts="still", content=" there"))
    reply.close()
    assert reply.partial.content == [TextContent(text="Hi there")]
    assert [record.getMessage() for record in caplog.records] == [
        "provider sent a delta field pi-tui does not read: 'thoughts' (ignored)"
    ]
