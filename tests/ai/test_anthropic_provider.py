"""The Messages API provider through the real `anthropic` client against the loopback server speaking
Anthropic's streaming protocol."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from pi_tui.ai import anthropic_threads
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.anthropic_provider import STREAM_ENDED_EARLY, stream_anthropic, uses_bearer
from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, UserMessage
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.providers import stream_by_api
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions, ToolSpec
from pi_tui.config.compat import CompatOverrides
from pi_tui.config.model_config import ModelConfig
from tests.interop.headless import run_main
from tests.support.abort_midstream import abort_at_first_text
from tests.support.anthropic_stream import (
    Thinking,
    ToolUse,
    anthropic_error,
    anthropic_reply,
    stream_error,
    usage_block,
)
from tests.support.openai_server import OpenAIServer, StreamReply
from tests.support.pi_anthropic import install

API_KEY = "sk-ant-test-secret-123"


def make_model(server: OpenAIServer, **updates: object) -> ModelConfig:
    model = ModelConfig(
        id="claude-test-4",
        provider="anth",
        api="anthropic-messages",
        base_url=server.anthropic_base_url,
        context_window=200_000,
        max_tokens=16_000,
    )
    return model.model_copy(update=updates)


def make_context(text: str = "hi") -> LlmContext:
    return LlmContext("You are helpful.", [UserMessage(content=[TextContent(text=text)], timestamp=1)])


async def collect(
    server: OpenAIServer, model: ModelConfig | None = None, context: LlmContext | None = None, **options: Any
) -> tuple[list[StreamEvent], AssistantMessage]:
    settings = StreamOptions(api_key=API_KEY, timeout_s=5.0)
    for name, value in options.items():
        setattr(settings, name, value)
    target = model or make_model(server)
    events = [event async for event in stream_anthropic(target, context or make_context(), settings)]
    final = events[-1].message
    assert final is not None
    return events, final


async def test_a_whole_reply_over_the_wire(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_reply(
            thinking=[Thinking("Let me think.", "sig-1")],
            redacted=["REDACTED-DATA"],
            text="Let me check.",
            calls=[ToolUse("bash", '{"command":"ls -la"}', call_id="toolu_1", pieces=3)],
            message_id="msg_1",
            usage=usage_block(7, 20, cache_read=100, cache_write=40),
        )
    )
    model = make_model(openai_server, reasoning=True)
    events, message = await collect(openai_server, model, reasoning="high")
    assert [event.type for event in events if event.type.endswith(("_start", "_end"))] == [
        "thinking_start",
        "thinking_end",
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
    ]
    assert message.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature="sig-1"),
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="REDACTED-DATA", redacted=True),
        TextContent(text="Let me check."),
        ToolCall(id="toolu_1", name="bash", arguments={"command": "ls -la"}),
    ]
    assert message.stop_reason == "toolUse"
    assert message.response_id == "msg_1"
    assert message.response_model is None
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (
        7,
        20,
        100,
        40,
        167,
    )
    (request,) = openai_server.requests
    assert request.path == "/v1/messages?beta=true"
    assert request.headers["x-api-key"] == API_KEY
    assert "authorization" not in request.headers
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert request.headers["x-stainless-retry-count"] == "0"


async def test_one_hour_writes_cost_twice_the_input_price(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_reply(text="ok", usage=usage_block(0, 10, cache_write=1000, cache_write_1h=600))
    )
    model = make_model(openai_server)
    model.cost.input, model.cost.cache_write = 3.0, 3.75
    _, message = await collect(openai_server, model, cache_retention="long")
    assert message.usage.cache_write_1h == 600
    assert message.usage.cost.cache_write == pytest.approx((3.75 * 400 + 6.0 * 600) / 1_000_000)
    body = openai_server.requests[0].body
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert json.loads(message.model_dump_json())["usage"]["cacheWrite1h"] == 600


async def test_thinking_and_redacted_thinking_go_back_byte_for_byte(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(anthropic_reply(text="again"))
    model = make_model(openai_server, reasoning=True)
    reply = AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        content=[
            ThinkingContent(thinking="deep", thinking_signature="EqQB+/sig=="),
            ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="opaque==", redacted=True),
            TextContent(text="said"),
        ],
        stop_reason="stop",
        timestamp=2,
    )
    context = make_context()
    context.messages += [reply, UserMessage(content=[TextContent(text="more")], timestamp=3)]
    await collect(openai_server, model, context, reasoning="high")
    sent = openai_server.requests[0].body["messages"][1]["content"]
    assert sent == [
        {"type": "thinking", "thinking": "deep", "signature": "EqQB+/sig=="},
        {"type": "redacted_thinking", "data": "opaque=="},
        {"type": "text", "text": "said"},
    ]


async def test_another_models_thinking_is_not_replayed(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(anthropic_reply(text="fine"))
    foreign = AssistantMessage(
        api="openai-completions",
        provider="openai",
        model="gpt",
        content=[ThinkingContent(thinking="private", thinking_signature="x"), TextContent(text="visible")],
        stop_reason="stop",
        timestamp=2,
    )
    context = make_context()
    context.messages += [foreign, UserMessage(content=[TextContent(text="next")], timestamp=3)]
    await collect(openai_server, context=context)
    assert openai_server.requests[0].body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "visible"}],
    }


async def test_unsigned_thinking_goes_as_text_and_the_user_is_told_once(
    openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.enqueue(anthropic_reply(text="a"), anthropic_reply(text="b"))
    model = make_model(openai_server, reasoning=True)
    unsigned = AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        content=[ThinkingContent(thinking="no signature here"), TextContent(text="said")],
        stop_reason="stop",
        timestamp=2,
    )
    context = make_context()
    context.messages += [unsigned, UserMessage(content=[TextContent(text="more")], timestamp=3)]
    _, first = await collect(openai_server, model, context, session_id="s-unsigned")
    _, second = await collect(openai_server, model, context, session_id="s-unsigned")
    assert openai_server.requests[0].body["messages"][1]["content"][0] == {
        "type": "text",
        "text": "no signature here",
    }
    assert first.diagnostics is not None
    (note,) = [d for d in first.diagnostics if d["type"] == "anthropic_unsigned_thinking"]
    assert note["message"] == (
        "1 thinking block(s) of this conversation have no signature and go to the model as text: "
        "Anthropic's cache of the conversation may miss from there on"
    )
    assert not second.diagnostics  # told once per session


async def test_the_unsigned_thinking_note_reaches_the_user_once(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gateway that streams thinking without signatures: from the second prompt on that thinking goes
    as text, and a `-p` run says once on stderr why Anthropic's cache may miss."""
    ref = install("b-thinking", openai_server)
    openai_server.enqueue(
        *(
            anthropic_reply(thinking=[Thinking("pondering", "")], text=text)
            for text in ("One.", "Two.", "Three.")
        )
    )
    assert await run_main(["-p", "--model", ref, "--thinking", "high", "a", "b", "c"], monkeypatch) == 0
    err = capsys.readouterr().err
    assert err.count("have no signature and go to the model as text") == 1
    assert openai_server.requests[2].body["messages"][1]["content"][0] == {
        "type": "text",
        "text": "pondering",
    }


async def test_http_errors_read_as_pis(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_error(529, "overloaded_error", "Overloaded", request_id="req_1"),
        anthropic_error(
            429, "rate_limit_error", "Slow down", request_id="req_2", headers={"retry-after": "3"}
        ),
        anthropic_error(500, "api_error", "Internal server error", request_id="req_3"),
    )
    _, overloaded = await collect(openai_server)
    assert overloaded.error_message == (
        '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}'
    )
    _, limited = await collect(openai_server)
    assert limited.diagnostics is not None
    assert limited.diagnostics[0]["details"] == {"status": 429, "retryAfterMs": 3000}
    _, broken = await collect(openai_server)
    for message in (overloaded, limited, broken):
        assert message.stop_reason == "error"
        assert is_retryable_error(message, 200_000)
    assert len(openai_server.requests) == 3  # the SDK retries nothing: the agent does


async def test_prompt_too_long_is_an_overflow(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_error(400, "invalid_request_error", "prompt is too long: 40123 tokens > 32000 maximum")
    )
    _, message = await collect(openai_server)
    assert is_context_overflow(message, 32_000)
    assert not is_retryable_error(message, 32_000)


async def test_a_refused_field_names_the_compat_switch(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_error(
            400, "invalid_request_error", "tools.0.eager_input_streaming: Extra inputs are not permitted"
        )
    )
    _, message = await collect(openai_server)
    assert message.error_message is not None
    assert '"supportsEagerToolInputStreaming": false' in message.error_message


async def test_an_error_event_ends_the_reply_with_its_data(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(stream_error("overloaded_error", "Overloaded"))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message == (
        '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    )
    assert is_retryable_error(message, 200_000)


async def test_a_stream_cut_mid_event_is_retryable(openai_server: OpenAIServer) -> None:
    whole = anthropic_reply(text="cut off here")
    framed = "".join(
        f"event: {item['type']}\ndata: {json.dumps(item)}\n\n"
        for item in whole.chunks
        if isinstance(item, dict)
    )
    cut = framed.index('"text_delta"') + 20  # inside the first text delta's data line
    openai_server.enqueue(StreamReply(list(whole.chunks), cut_after_bytes=cut))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert is_retryable_error(message, 200_000), message.error_message


async def test_a_stream_without_message_stop_is_an_error(openai_server: OpenAIServer) -> None:
    whole = anthropic_reply(text="almost")
    openai_server.enqueue(StreamReply(whole.chunks[:-1]))
    _, message = await collect(openai_server)
    assert message.error_message == STREAM_ENDED_EARLY
    assert message.text == "almost"
    assert is_retryable_error(message, 200_000)


async def test_a_refusal_is_shown_as_such(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_reply(text="", stop_reason="refusal"),
        anthropic_reply(text="", stop_reason="refusal", stop_details={"explanation": "Not allowed here."}),
    )
    events, message = await collect(openai_server)
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.error_message == "The model refused to complete the request"
    assert not is_retryable_error(message, 200_000)
    _, explained = await collect(openai_server)
    assert explained.error_message == "Not allowed here."


async def test_unknown_events_are_logged_once_and_skipped(
    openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    whole = anthropic_reply(text="fine")
    noise: list[dict[str, Any] | str] = [
        {"type": "future_event", "x": 1},
        {"type": "future_event", "x": 2},
        'event: ping\ndata: {"type": "ping"}',
        ": a comment",
    ]
    openai_server.enqueue(StreamReply([*whole.chunks[:2], *noise, *whole.chunks[2:]]))
    with caplog.at_level(logging.INFO, logger="pi_tui.ai.anthropic_events"):
        _, message = await collect(openai_server)
    assert message.stop_reason == "stop" and message.text == "fine"
    assert len([record for record in caplog.records if "future_event" in record.getMessage()]) == 1


async def test_abort_mid_stream_closes_the_connection_at_once(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(StreamReply(anthropic_reply(text="first words").chunks, stall_after=5))
    signal = AbortSignal()
    settings = StreamOptions(api_key=API_KEY, timeout_s=60.0, signal=signal)
    reply = await abort_at_first_text(
        stream_anthropic(make_model(openai_server), make_context(), settings), signal
    )
    await asyncio.wait_for(openai_server.client_closed.wait(), 10)
    assert openai_server.client_closed_at[0] >= reply.aborted_at
    assert reply.message.stop_reason == "aborted"
    assert reply.message.error_message == "Request was aborted."


async def test_already_aborted_sends_nothing(openai_server: OpenAIServer) -> None:
    signal = AbortSignal()
    signal.abort()
    _, message = await collect(openai_server, signal=signal)
    assert message.stop_reason == "aborted"
    assert openai_server.requests == []


async def test_a_gateway_token_goes_as_a_bearer(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token-12345")
    openai_server.enqueue(anthropic_reply(text="ok"))
    await collect(openai_server, api_key="gateway-token-12345")
    headers = openai_server.requests[0].headers
    assert headers["authorization"] == "Bearer gateway-token-12345"
    assert "x-api-key" not in headers
    assert uses_bearer("sk-ant-oat01-abc", {}) and not uses_bearer("sk-ant-api03-abc", {})


async def test_the_dispatcher_sends_anthropic_messages_to_its_wire(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(anthropic_reply(text="native"))
    events = [
        event
        async for event in stream_by_api(
            make_model(openai_server), make_context(), StreamOptions(api_key=API_KEY)
        )
    ]
    assert events[-1].partial.text == "native"
    assert openai_server.requests[0].path == "/v1/messages?beta=true"


# --- message threads ----------------------------------------------------------------------------


def threaded_model(server: OpenAIServer) -> ModelConfig:
    return make_model(server, compat=CompatOverrides(supports_message_threads=True))


async def test_a_thread_is_continued_with_only_the_new_messages(openai_server: OpenAIServer) -> None:
    anthropic_threads.forget()
    model = threaded_model(openai_server)
    openai_server.enqueue(anthropic_reply(text="first", message_id="msg_a"), anthropic_reply(text="second"))
    context = make_context("one")
    _, first = await collect(openai_server, model, context, session_id="s-thread")
    context.messages += [first, UserMessage(content=[TextContent(text="two")], timestamp=5)]
    await collect(openai_server, model, context, session_id="s-thread")
    created, continued = (request.body for request in openai_server.requests)
    assert created["thread"] == {"type": "create"}
    assert continued["thread"] == {"type": "continue", "previous_message_id": "msg_a"}
    assert "system" not in continued and "tools" not in continued
    assert continued["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "two", "cache_control": {"type": "ephemeral"}}]}
    ]
    assert openai_server.requests[1].headers["anthropic-beta"] == "message-threads-2026-08-12"


async def test_a_lost_thread_starts_a_new_one_at_once(openai_server: OpenAIServer) -> None:
    anthropic_threads.forget()
    model = threaded_model(openai_server)
    openai_server.enqueue(
        anthropic_reply(text="first", message_id="msg_a"),
        anthropic_error(
            400, "invalid_request_error", "no such thread", details={"error_code": "thread_not_found"}
        ),
        anthropic_reply(text="second"),
    )
    context = make_context("one")
    _, first = await collect(openai_server, model, context, session_id="s-lost")
    context.messages += [first, UserMessage(content=[TextContent(text="two")], timestamp=5)]
    _, second = await collect(openai_server, model, context, session_id="s-lost")
    assert second.stop_reason == "stop"
    assert [request.body["thread"]["type"] for request in openai_server.requests] == [
        "create",
        "continue",
        "create",
    ]
    assert len(openai_server.requests[2].body["messages"]) == 3
    assert second.diagnostics is not None
    assert second.diagnostics[0]["type"] == "anthropic_thread_fallback"
    assert second.diagnostics[0]["details"] == {"reason": "thread_not_found"}


async def test_an_endpoint_without_threads_is_asked_without_them_from_then_on(
    openai_server: OpenAIServer,
) -> None:
    """d2-threads-rejected: the same request again without `thread`, at once; no thread for the rest of the
    session, while the beta header stays."""
    anthropic_threads.forget()
    model = threaded_model(openai_server)
    refusal = anthropic_error(400, "invalid_request_error", "thread: Extra inputs are not permitted")
    openai_server.enqueue(refusal, anthropic_reply(text="first"), anthropic_reply(text="second"))
    context = make_context("one")
    _, first = await collect(openai_server, model, context, session_id="s-none")
    assert first.stop_reason == "stop"
    context.messages += [first, UserMessage(content=[TextContent(text="two")], timestamp=5)]
    await collect(openai_server, model, context, session_id="s-none")
    bodies = [request.body for request in openai_server.requests]
    assert ["thread" in body for body in bodies] == [True, False, False]
    assert {key: value for key, value in bodies[0].items() if key != "thread"} == bodies[1]
    assert all(r.headers["anthropic-beta"] == "message-threads-2026-08-12" for r in openai_server.requests)
    assert first.diagnostics is not None and first.diagnostics[0]["details"] == {"reason": "400"}


async def test_cache_miss_diagnostics_are_asked_for_only_when_switched_on(
    openai_server: OpenAIServer,
) -> None:
    diagnosed = make_model(openai_server, compat=CompatOverrides(send_cache_miss_diagnostics=True))
    reason = {"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 1234}}
    openai_server.enqueue(anthropic_reply(text="a"), anthropic_reply(text="b", diagnostics=reason))
    _, plain = await collect(openai_server)
    previous = plain.model_copy(update={"response_id": "msg_prev", "model": diagnosed.id})
    context = make_context()
    context.messages += [previous, UserMessage(content=[TextContent(text="next")], timestamp=5)]
    _, message = await collect(openai_server, diagnosed, context)
    first, second = openai_server.requests
    assert "diagnostics" not in first.body
    assert "cache-diagnosis" not in first.headers.get("anthropic-beta", "")
    assert second.body["diagnostics"] == {"previous_message_id": "msg_prev"}
    assert "cache-diagnosis-2026-04-07" in second.headers["anthropic-beta"]
    assert message.diagnostics == [
        {"type": "anthropic_cache_miss", "details": {"reason": "system_changed", "missedTokens": 1234}}
    ]


STRICT_PREFER = {"type": "json_schema", "strict": "prefer"}
COMMAND_SCHEMA = {
    "type": "object",
    "required": ["command"],
    "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}},
}


def strict_context() -> LlmContext:
    context = make_context()
    context.tools = [
        ToolSpec("bash", "Run a command.", COMMAND_SCHEMA, STRICT_PREFER),
        ToolSpec("ls", "List a folder.", {"type": "object", "properties": {"path": {"type": "string"}}}),
    ]
    return context


async def test_strict_tools_go_strict_and_fall_back_when_claude_finds_them_too_many(
    openai_server: OpenAIServer,
) -> None:
    """`supportsStrictTools`: a tool that prefers strict goes with `strict: true` and its strict schema
    (the optional `timeout` required but nullable), one that does not ask stays as it is. Claude refusing
    the strict set as too large: the same request again at once without strict, the reply noting it, and
    the session's next request without strict too (pi's rule: no cache-breaking switch back)."""
    model = make_model(openai_server, compat=CompatOverrides(supports_strict_tools=True))
    openai_server.enqueue(
        anthropic_reply(text="ok"),
        anthropic_error(400, "invalid_request_error", "Too many strict tools (24 > 20)"),
        anthropic_reply(text="fine"),
        anthropic_reply(text="still"),
    )
    await collect(openai_server, model, strict_context(), session_id="s-strict-1")
    bash, ls = openai_server.requests[0].body["tools"]
    assert bash["strict"] is True and "strict" not in ls
    assert bash["input_schema"] == {
        "type": "object",
        "required": ["command", "timeout"],
        "properties": {
            "command": {"type": "string"},
            "timeout": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "additionalProperties": False,
    }
    _, fell_back = await collect(openai_server, model, strict_context(), session_id="s-strict-2")
    refused, resent = openai_server.requests[1:3]
    assert refused.body["tools"][0]["strict"] is True
    assert "strict" not in resent.body["tools"][0]
    assert resent.body["tools"][0]["input_schema"] == {**COMMAND_SCHEMA}
    assert fell_back.stop_reason == "stop" and fell_back.text == "fine"
    assert fell_back.diagnostics is not None
    assert fell_back.diagnostics[0]["type"] == "anthropic_strict_tools_fallback"
    assert fell_back.diagnostics[0]["details"] == {"reason": "strict_tool_limits_exceeded"}
    await collect(openai_server, model, strict_context(), session_id="s-strict-2")
    assert "strict" not in openai_server.requests[3].body["tools"][0]


async def test_a_400_about_strict_names_the_switch(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        anthropic_error(400, "invalid_request_error", "tools.0.strict: Extra inputs are not permitted")
    )
    model = make_model(openai_server, compat=CompatOverrides(supports_strict_tools=True))
    _, message = await collect(openai_server, model, strict_context())
    assert message.error_message is not None
    assert '"supportsStrictTools": false' in message.error_message
    assert len(openai_server.requests) == 1  # not a strict-limit refusal: nothing resent


async def test_input_transformations_and_thinking_tokens_are_kept_as_pi_keeps_them(
    openai_server: OpenAIServer,
) -> None:
    """Anthropic's `input_transformations` become pi's `anthropic_input_transformations` diagnostic of
    the reply (type, path, reason; absent keys left out) and `output_tokens_details.thinking_tokens` of
    `message_delta` the usage's `reasoning`."""
    events: list[dict[str, Any] | str] = []
    for item in anthropic_reply(text="ok").chunks:
        if isinstance(item, dict) and item.get("type") == "message_start":
            changed = [{"type": "tool_choice_dropped", "path": "tool_choice", "reason": None}]
            item = {**item, "message": {**item["message"], "input_transformations": changed}}
        if isinstance(item, dict) and item.get("type") == "message_delta":
            item = {**item, "usage": {**item["usage"], "output_tokens_details": {"thinking_tokens": 3}}}
        events.append(item)
    openai_server.enqueue(StreamReply(events))
    _, message = await collect(openai_server)
    assert message.usage.reasoning == 3
    assert message.diagnostics is not None
    (diagnostic,) = message.diagnostics
    assert diagnostic["type"] == "anthropic_input_transformations"
    assert diagnostic["details"] == {
        "transformations": [{"type": "tool_choice_dropped", "path": "tool_choice"}]
    }
