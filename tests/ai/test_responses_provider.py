"""The Responses API provider through the real `openai` client against the loopback server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, UserMessage
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.providers import PROVIDERS, stream_by_api
from pi_tui.ai.responses_provider import stream_responses
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig
from tests.support.abort_midstream import abort_at_first_text
from tests.support.openai_server import ErrorReply, OpenAIServer, StreamReply, text_reply
from tests.support.responses_stream import (
    FunctionCall,
    Reasoning,
    responses_events,
    responses_reply,
    responses_text_reply,
)

API_KEY = "sk-test-secret-123"


def make_model(server: OpenAIServer, **updates: object) -> ModelConfig:
    model = ModelConfig(id="gpt-5-mini", provider="openai", api="openai-responses", base_url=server.base_url)
    return model.model_copy(update=updates)


def make_context(text: str = "hi") -> LlmContext:
    return LlmContext("You are helpful.", [UserMessage(content=text, timestamp=1)])


async def collect(
    server: OpenAIServer, model: ModelConfig | None = None, **options: Any
) -> tuple[list[StreamEvent], AssistantMessage]:
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=5.0)
    for name, value in options.items():
        setattr(settings, name, value)
    events = [
        event async for event in stream_responses(model or make_model(server), make_context(), settings)
    ]
    final = events[-1].message
    assert final is not None
    return events, final


def events_reply(events: list[dict[str, Any]], **options: Any) -> StreamReply:
    chunks: list[dict[str, Any] | str] = list(events)
    return StreamReply(chunks, **options)


async def test_a_whole_reply_over_the_wire(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        responses_reply(
            reasoning=Reasoning(["Plan."], item_id="rs_1"),
            text="Let me look.",
            text_id="msg_1",
            calls=[FunctionCall("bash", '{"command":"ls"}', call_id="call_1", item_id="fc_1")],
            response_id="resp_1",
        )
    )
    model = make_model(openai_server, reasoning=True)
    events, message = await collect(openai_server, model, session_id="sess-1", reasoning="low")
    assert (events[0].type, events[-1].type) == ("start", "done")
    assert message.stop_reason == "toolUse"
    assert message.api == "openai-responses" and message.response_id == "resp_1"
    assert message.response_model == "test-model"
    assert message.tool_calls[0].id == "call_1|fc_1"
    request = openai_server.requests[0]
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert (request.headers["session-id"], request.headers["x-client-request-id"]) == ("sess-1", "sess-1")
    assert request.body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert request.body["input"][0] == {"role": "developer", "content": "You are helpful."}
    assert request.body["input"][1] == {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}


async def test_the_stored_reasoning_item_is_sent_back_byte_for_byte(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        responses_reply(reasoning=Reasoning(["A."], item_id="rs_1", encrypted="X"), text="B")
    )
    _, first = await collect(openai_server)
    openai_server.enqueue(responses_text_reply("C"))
    context = LlmContext("", [*make_context().messages, first, UserMessage(content="more", timestamp=2)])
    settings = StreamOptions(api_key=API_KEY, max_retries=0)
    [_ async for _ in stream_responses(make_model(openai_server), context, settings)]
    replayed = openai_server.requests[1].body["input"][1]
    thinking = first.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert json.dumps(replayed, separators=(",", ":")) == thinking.thinking_signature


async def test_http_errors_read_as_for_chat_completions(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ErrorReply(503, {"error": {"message": "Service unavailable"}}, {"retry-after": "2"}),
        ErrorReply(401, {"error": {"message": "Incorrect API key provided: sk-test-secret-123"}}),
    )
    _, unavailable = await collect(openai_server)
    assert unavailable.error_message == "503 Service unavailable"
    assert (
        unavailable.diagnostics is not None and unavailable.diagnostics[0]["details"]["retryAfterMs"] == 2000
    )
    assert is_retryable_error(unavailable, 128_000)
    _, refused = await collect(openai_server)
    assert refused.error_message == "401 Incorrect API key provided: [redacted]"
    assert not is_retryable_error(refused, 128_000)


async def test_overflow_as_an_http_error_and_as_a_failed_response(openai_server: OpenAIServer) -> None:
    text = "Your input exceeds the context window of this model. Please adjust your input and try again."
    failed = {"status": "failed", "error": {"code": "context_length_exceeded", "message": text}}
    openai_server.enqueue(
        ErrorReply(400, {"error": {"message": text, "code": "context_length_exceeded"}}),
        events_reply(
            [
                {"type": "response.created", "response": {"id": "r"}},
                {"type": "response.failed", "response": failed},
            ]
        ),
    )
    _, http = await collect(openai_server)
    assert http.error_message == f"400 {text}"
    _, streamed = await collect(openai_server)
    assert streamed.stop_reason == "error"
    assert streamed.error_message == f"context_length_exceeded: {text}"
    assert (
        streamed.diagnostics is not None
        and streamed.diagnostics[0]["error"]["code"] == "context_length_exceeded"
    )
    for message in (http, streamed):
        assert is_context_overflow(message, 200_000)
        assert not is_retryable_error(message, 200_000)


async def test_an_error_event_ends_the_reply_at_once(openai_server: OpenAIServer) -> None:
    events = responses_events(text="partial")
    cut = events[:6]  # created, in_progress, the message item, its part and two text deltas
    error = {"type": "error", "code": "server_error", "message": "The server had an error."}
    openai_server.enqueue(events_reply([*cut, error, *events[6:]]))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message == "Error Code server_error: The server had an error."
    assert message.content and isinstance(message.content[0], TextContent)
    assert message.content[0].text == "partia"  # nothing after the error was read
    assert is_retryable_error(message, 128_000)


async def test_a_stream_that_stops_before_completion_is_retryable(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(events_reply(responses_events(text="cut off")[:-1]))
    _, message = await collect(openai_server)
    assert message.stop_reason == "error"
    assert message.error_message == "stream ended without response.completed"
    assert message.text == "cut off"
    assert is_retryable_error(message, 128_000)


async def test_a_dropped_connection_is_a_connection_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(events_reply(responses_events(text="abcdef"), drop_after=6))
    _, message = await collect(openai_server)
    assert message.error_message == "Connection error."
    assert is_retryable_error(message, 128_000)


async def test_malformed_data_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(events_reply([*responses_events(text="ok")[:3], "event: x\ndata: {not json"]))
    _, message = await collect(openai_server)
    assert message.error_message is not None
    assert message.error_message.startswith("Malformed stream data from provider")


async def test_non_object_events_and_keep_alives_are_ignored(openai_server: OpenAIServer) -> None:
    events = responses_events(text="fine")
    noise = ["event: ping", "data: [1, 2]", ": comment"]
    openai_server.enqueue(events_reply([*events[:2], *noise, *events[2:]]))
    _, message = await collect(openai_server)
    assert message.stop_reason == "stop" and message.text == "fine"


async def test_incomplete_is_a_length_stop(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(responses_reply(text="trunc", status="incomplete"))
    events, message = await collect(openai_server)
    assert events[-1].type == "done"
    assert message.stop_reason == "length"


async def test_abort_mid_stream_closes_the_connection_at_once(openai_server: OpenAIServer) -> None:
    """The reply stalls after its first text until the client hangs up, and the client's own timeout is a
    minute away: only the abort can end the reply (within `abort_at_first_text`'s 20 s) and close the
    connection (within 10 s more), and the connection was still open when the abort fired."""
    openai_server.enqueue(events_reply(responses_events(text="first words"), stall_after=5))
    signal = AbortSignal()
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=60.0, signal=signal)
    reply = await abort_at_first_text(
        stream_responses(make_model(openai_server), make_context(), settings), signal
    )
    message = reply.message
    await asyncio.wait_for(openai_server.client_closed.wait(), 10)
    assert openai_server.client_closed_at[0] >= reply.aborted_at
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted."
    assert message.text == "firs"


async def test_already_aborted_sends_nothing(openai_server: OpenAIServer) -> None:
    signal = AbortSignal()
    signal.abort()
    _, message = await collect(openai_server, signal=signal)
    assert message.stop_reason == "aborted"
    assert openai_server.requests == []


async def test_the_dispatcher_picks_the_wire_by_api(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(responses_text_reply("from responses"), text_reply("from chat"))
    settings = StreamOptions(api_key=API_KEY, max_retries=0)
    responses = [event async for event in stream_by_api(make_model(openai_server), make_context(), settings)]
    chat_model = make_model(openai_server, api="openai-completions")
    chat = [event async for event in stream_by_api(chat_model, make_context(), settings)]
    assert [request.path for request in openai_server.requests] == ["/v1/responses", "/v1/chat/completions"]
    assert responses[-1].partial.text == "from responses"
    assert chat[-1].partial.text == "from chat"
    assert set(PROVIDERS) == {"openai-completions", "openai-responses", "anthropic-messages"}


def test_importing_the_providers_does_not_import_openai() -> None:
    code = "import sys, pi_tui.ai.providers; print('openai' in sys.modules or 'anthropic' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
