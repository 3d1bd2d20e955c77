"""The OpenAI provider through the real `openai` client against a loopback SSE server."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.chat_request import build_chat_request
from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, UserMessage
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions, ToolSpec
from pi_tui.ai.tool_arguments import invalid_arguments
from pi_tui.config.model_config import ModelConfig, Prices
from tests.support.abort_midstream import abort_at_first_text
from tests.support.openai_server import (
    ErrorReply,
    OpenAIServer,
    StreamReply,
    chunk,
    text_reply,
    tool_call_delta,
    usage,
)
from tests.support.waiting import until

API_KEY = "sk-test-secret-123"


def make_model(server: OpenAIServer, **updates: object) -> ModelConfig:
    model = ModelConfig(id="test-model", provider="local", base_url=server.base_url)
    return model.model_copy(update=updates)


def make_context(text: str = "hi", tools: list[ToolSpec] | None = None) -> LlmContext:
    return LlmContext("You are helpful.", [UserMessage(content=text, timestamp=1)], tools or [])


async def collect(
    server: OpenAIServer,
    *,
    model: ModelConfig | None = None,
    context: LlmContext | None = None,
    **options: object,
) -> tuple[list[StreamEvent], AssistantMessage]:
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=5.0)
    for name, value in options.items():
        setattr(settings, name, value)
    events = [
        event
        async for event in stream_openai(model or make_model(server), context or make_context(), settings)
    ]
    final = events[-1].message
    assert final is not None
    return events, final


async def test_plain_text_streams_deltas_and_records_request(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(text_reply("Hello there, world", pieces=3))
    events, message = await collect(openai_server)
    assert [event.type for event in events] == [
        "start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done",
    ]  # fmt: skip
    assert (
        "".join(event.delta or "" for event in events if event.type == "text_delta") == "Hello there, world"
    )
    assert message.content == [TextContent(text="Hello there, world")]
    assert message.stop_reason == "stop"
    assert message.response_id == "chatcmpl-test"
    assert message.response_model is None
    assert message.usage.input == 10 and message.usage.output == 5 and message.usage.total_tokens == 15
    request = openai_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.body["max_completion_tokens"] == 32000 and request.body["store"] is False
    assert request.body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "hi"},
    ]
    assert "reasoning_effort" not in request.body


async def test_reasoning_deltas_become_thinking_then_text(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        StreamReply(
            [
                chunk(reasoning_content="Let me "),
                chunk(reasoning_content="think."),
                chunk(content="Answer"),
                chunk(reasoning="late thought"),
                chunk(finish_reason="stop", model="test-model-2026"),
                chunk(no_choices=True, usage=usage(3, 4)),
            ]
        )
    )
    model = make_model(openai_server, reasoning=True)
    events, message = await collect(openai_server, model=model, reasoning="high")
    assert message.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature="reasoning_content"),
        TextContent(text="Answer"),
        ThinkingContent(thinking="late thought", thinking_signature="reasoning"),
    ]
    kinds = [event.type for event in events]
    assert kinds[:5] == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end"]
    starts = [event.content_index for event in events if event.type in ("thinking_start", "text_start")]
    assert starts == [0, 1, 2]
    assert message.response_model == "test-model-2026"
    assert openai_server.requests[0].body["reasoning_effort"] == "high"


async def test_reasoning_effort_only_for_reasoning_models(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(text_reply("ok"))
    await collect(openai_server, reasoning="high", max_tokens=777)
    body = openai_server.requests[0].body
    assert "reasoning_effort" not in body
    assert body["max_completion_tokens"] == 777


async def test_two_parallel_tool_calls_assembled_from_many_deltas(openai_server: OpenAIServer) -> None:
    args_a = '{"path": "src/main.py", "offset": 10}'
    args_b = '{"command": "ls -la"}'
    chunks: list[dict[str, object] | str] = [
        chunk(content="Let me look."),
        chunk(tool_calls=[tool_call_delta(0, call_id="call_a", name="read")]),
    ]
    chunks += [
        chunk(tool_calls=[tool_call_delta(0, arguments=args_a[i : i + 4])]) for i in range(0, len(args_a), 4)
    ]
    chunks.append(chunk(tool_calls=[tool_call_delta(1, call_id="call_b", name="bash")]))
    chunks += [
        chunk(tool_calls=[tool_call_delta(1, arguments=args_b[i : i + 3])]) for i in range(0, len(args_b), 3)
    ]
    chunks += [chunk(finish_reason="tool_calls"), chunk(no_choices=True, usage=usage(50, 20))]
    openai_server.enqueue(StreamReply(chunks))
    tools = [ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})]
    events, message = await collect(openai_server, context=make_context(tools=tools))
    assert message.stop_reason == "toolUse"
    calls = message.tool_calls
    assert [(call.id, call.name, call.arguments) for call in calls] == [
        ("call_a", "read", {"path": "src/main.py", "offset": 10}),
        ("call_b", "bash", {"command": "ls -la"}),
    ]
    ends = [event.content_index for event in events if event.type == "toolcall_end"]
    assert ends == [1, 2]
    deltas = "".join(
        event.delta or "" for event in events if event.type == "toolcall_delta" and event.content_index == 1
    )
    assert deltas == args_a
    assert openai_server.requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]


async def test_usage_with_cached_tokens_and_cost(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        StreamReply(
            [
                chunk(content="x"),
                chunk(finish_reason="stop"),
                chunk(no_choices=True, usage=usage(1000, 200, 600)),
            ]
        )
    )
    model = make_model(openai_server, cost=Prices(input=3, output=15, cache_read=0.3, cache_write=3.75))
    _, message = await collect(openai_server, model=model)
    got = message.usage
    assert (got.input, got.output, got.cache_read, got.cache_write) == (400, 200, 600, 0)
    assert message.usage.total_tokens == 1200
    assert abs(message.usage.cost.input - 400 * 3 / 1e6) < 1e-12
    assert abs(message.usage.cost.output - 200 * 15 / 1e6) < 1e-12
    assert abs(message.usage.cost.cache_read - 600 * 0.3 / 1e6) < 1e-12
    expected_total = (400 * 3 + 200 * 15 + 600 * 0.3) / 1e6
    assert abs(message.usage.cost.total - expected_total) < 1e-12


async def test_rate_limit_429_with_body_is_retryable_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ErrorReply(
            429, {"error": {"message": "Rate limit exceeded", "type": "rate_limit"}}, {"retry-after": "7"}
        )
    )
    events, message = await collect(openai_server)
    assert [event.type for event in events] == ["start", "error"]
    assert message.stop_reason == "error"
    assert message.error_message == "429 Rate limit exceeded"
    assert message.diagnostics is not None
    assert message.diagnostics[0]["details"] == {"status": 429, "retryAfterMs": 7000}
    assert is_retryable_error(message, 128000)
    assert API_KEY not in str(message.to_json_obj())


async def test_server_error_500(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ErrorReply(500, {"error": {"message": "Internal failure"}}))
    _, message = await collect(openai_server)
    assert message.error_message == "500 Internal failure"
    assert is_retryable_error(message, 128000)


async def test_unauthorized_401_is_not_retryable(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ErrorReply(401, {"error": {"message": "Incorrect API key provided"}}))
    _, message = await collect(openai_server)
    assert message.error_message == "401 Incorrect API key provided"
    assert not is_retryable_error(message, 128000)


async def test_unknown_model_404(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ErrorReply(404, {"error": {"message": "The model `nope` does not exist", "code": "model_not_found"}})
    )
    _, message = await collect(openai_server)
    assert message.error_message == "404 The model `nope` does not exist"
    assert message.diagnostics is not None
    assert message.diagnostics[0]["error"]["code"] == "model_not_found"


async def test_non_json_error_body_and_empty_body(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ErrorReply(502, "<html>Bad gateway</html>"), ErrorReply(413, None))
    _, first = await collect(openai_server)
    assert first.error_message == "502 <html>Bad gateway</html>"
    _, second = await collect(openai_server)
    assert second.error_message == "413 status code (no body)"
    assert is_context_overflow(second, 128000)


async def test_connection_dropped_mid_stream_keeps_partial_text(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        StreamReply(
            [chunk(content="partial "), chunk(content="more"), chunk(finish_reason="stop")], drop_after=2
        )
    )
    events, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message == "Connection error."
    assert message.text == "partial more"
    assert events[-2].type == "text_end"
    assert is_retryable_error(message, 128000)


async def test_connection_refused_is_an_error_message() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = ModelConfig(id="m", base_url=f"http://127.0.0.1:{port}/v1")
    options = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=2.0)
    events = [event async for event in stream_openai(model, make_context(), options)]
    assert [event.type for event in events] == ["start", "error"]
    assert events[-1].partial.error_message == "Connection error."
    assert events[-1].partial.stop_reason == "error"


async def test_stall_hits_the_client_timeout(openai_server: OpenAIServer) -> None:
    """The server stalls until the client hangs up. The 0.5 s timeout asked for ends the call; without it
    the SDK's default of ten minutes would, long after the wait below gives up (20 s)."""
    openai_server.enqueue(StreamReply([chunk(content="a"), chunk(finish_reason="stop")], stall_after=1))
    _, message = await asyncio.wait_for(collect(openai_server, timeout_s=0.5), 20)
    assert message.stop_reason == "error"
    assert message.error_message == "Request timed out."
    assert is_retryable_error(message, 128000)


async def test_stream_without_finish_reason_or_done_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(StreamReply([chunk(content="cut off")], done=False))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message == "stream ended without finish_reason"
    assert message.text == "cut off"
    assert is_retryable_error(message, 128000)


async def test_finish_reason_without_done_is_accepted(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(StreamReply([chunk(content="whole"), chunk(finish_reason="stop")], done=False))
    _, message = await collect(openai_server)
    assert message.stop_reason == "stop"
    assert message.text == "whole"


async def test_length_and_content_filter_finish_reasons(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        text_reply("abc", finish_reason="length"), text_reply("abc", finish_reason="content_filter")
    )
    _, first = await collect(openai_server)
    assert first.stop_reason == "length"
    events, second = await collect(openai_server)
    assert events[-1].type == "error"
    assert second.stop_reason == "error"
    assert second.error_message == "Provider finish_reason: content_filter"


async def test_malformed_stream_line_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(StreamReply([chunk(content="ok"), "data: {not json", chunk(finish_reason="stop")]))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.startswith("Malformed stream data from provider")


@pytest.mark.parametrize("line", ["data: 42", 'data: "text"', "data: [1, 2]", "data: null"])
async def test_stream_data_that_is_not_an_object_is_malformed_data(
    openai_server: OpenAIServer, line: str
) -> None:
    openai_server.enqueue(StreamReply([chunk(content="ok"), line, chunk(finish_reason="stop")]))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.startswith("Malformed stream data from provider: expected a JSON object")
    assert "model_dump" not in message.error_message


async def test_invalid_tool_call_json_keeps_raw_text(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        StreamReply(
            [
                chunk(tool_calls=[tool_call_delta(0, call_id="call_1", name="read", arguments='{"path": ')]),
                chunk(tool_calls=[tool_call_delta(0, arguments='"a.txt"')]),
                chunk(finish_reason="tool_calls"),
            ]
        )
    )
    _, message = await collect(openai_server)
    assert message.stop_reason == "toolUse"
    call = message.tool_calls[0]
    assert call.arguments == {}
    assert invalid_arguments(call) == '{"path": "a.txt"'
    assert message.to_json_obj()["content"][0]["invalidArguments"] == '{"path": "a.txt"'


async def test_overflow_error_body_is_detected(openai_server: OpenAIServer) -> None:
    text = (
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    )
    openai_server.enqueue(ErrorReply(400, {"error": {"message": text, "code": "context_length_exceeded"}}))
    _, message = await collect(openai_server)
    assert message.error_message == f"400 {text}"
    assert is_context_overflow(message, 8192)
    assert not is_retryable_error(message, 8192)


async def test_abort_mid_stream_closes_connection_at_once(openai_server: OpenAIServer) -> None:
    """The reply stalls after its first text until the client hangs up, and the client's own timeout is a
    minute away: only the abort can end the reply (within `abort_at_first_text`'s 20 s) and close the
    connection (within 10 s more), and the connection was still open when the abort fired."""
    openai_server.enqueue(StreamReply([chunk(content="first"), chunk(finish_reason="stop")], stall_after=1))
    signal = AbortSignal()
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=60.0, signal=signal)
    reply = await abort_at_first_text(
        stream_openai(make_model(openai_server), make_context(), settings), signal
    )
    message = reply.message
    await asyncio.wait_for(openai_server.client_closed.wait(), 10)
    assert openai_server.client_closed_at[0] >= reply.aborted_at
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted."
    assert message.text == "first"
    assert reply.event_types[-1] == "error"


async def test_abort_before_response_headers(openai_server: OpenAIServer) -> None:
    """The server never answers; the client's own timeout is 30 s. An abort once the request is out ends
    the call well before that (the wait below gives up at 20 s) and closes the connection."""
    openai_server.enqueue(StreamReply([], hold_headers=True))
    signal = AbortSignal()

    async def abort_when_sent() -> None:
        await until(lambda: openai_server.requests, what="the request reached the server")
        signal.abort()

    aborter = asyncio.create_task(abort_when_sent())
    events, message = await asyncio.wait_for(collect(openai_server, signal=signal, timeout_s=30.0), 20)
    await aborter
    assert [event.type for event in events] == ["start", "error"]
    assert message.stop_reason == "aborted"
    await asyncio.wait_for(openai_server.client_closed.wait(), 10)


async def test_already_aborted_signal_sends_nothing(openai_server: OpenAIServer) -> None:
    signal = AbortSignal()
    signal.abort()
    _, message = await collect(openai_server, signal=signal)
    assert message.stop_reason == "aborted"
    assert openai_server.requests == []


async def test_model_headers_are_sent(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(text_reply("ok"))
    await collect(openai_server, model=make_model(openai_server, headers={"X-Title": "pi-tui"}))
    assert openai_server.requests[0].headers["x-title"] == "pi-tui"


def test_openai_hosted_uses_max_completion_tokens() -> None:
    model = ModelConfig(
        id="gpt-5",
        base_url="https://api.openai.com/v1",
        max_tokens=64_000,
        context_window=400_000,
        reasoning=True,
    )
    params = build_chat_request(model, make_context(), StreamOptions(reasoning="xhigh")).body
    assert params["max_completion_tokens"] == 64_000  # the model's own limit, as pi 1.6 asks (no 32,000 cap)
    assert "max_tokens" not in params
    assert params["reasoning_effort"] == "high"


def test_importing_the_provider_does_not_import_openai() -> None:
    code = "import sys, pi_tui.ai.openai_provider; print('openai' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
