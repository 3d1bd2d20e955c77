"""A session on a Responses API model against the loopback server: retries, overflow recovery, and a
fallback to a Chat Completions model and back, each replaying the conversation in its own wire format."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session.session_events import (
    AnyEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    ModelFallbackEvent,
)
from tests.session.test_agent_session_retry import make_session
from tests.support.openai_server import ErrorReply, OpenAIServer, StreamReply, text_reply
from tests.support.responses_stream import (
    FunctionCall,
    Reasoning,
    responses_events,
    responses_reply,
    responses_text_reply,
)

PRIMARY = "openai/gpt-5-mini"
BACKUP = "local/qwen"


def write_models(server: OpenAIServer) -> None:
    """A Responses API reasoning model and a Chat Completions model, both served by `server`."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    providers = {
        "openai": {
            "baseUrl": server.base_url,
            "apiKey": "loopback-key",
            "api": "openai-responses",
            "models": [{"id": "gpt-5-mini", "reasoning": True, "contextWindow": 32000}],
        },
        "local": {
            "baseUrl": server.base_url,
            "apiKey": "loopback-key",
            "api": "openai-completions",
            "models": [{"id": "qwen", "contextWindow": 32000}],
        },
    }
    (home / "models.json").write_text(json.dumps({"providers": providers}))


def stream_error(code: str, message: str) -> StreamReply:
    """A reply that starts, then fails inside the stream with an `error` event."""
    events: list[dict[str, Any] | str] = [*responses_events(text="x")[:2]]
    events.append({"type": "error", "code": code, "message": message})
    return StreamReply(events)


async def test_a_5xx_and_a_server_error_event_are_retried(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server)
    openai_server.enqueue(
        ErrorReply(503, {"error": {"message": "Service unavailable"}}),
        stream_error("server_error", "The server had an error while processing your request."),
        responses_text_reply("finally"),
    )
    session = make_session(tmp_path, Settings(retry=RetrySettings(base_delay_ms=1, max_retries=3)), PRIMARY)
    events: list[AnyEvent] = []
    session.subscribe(events.append)

    await session.prompt("hello")

    starts = [event.error_message for event in events if isinstance(event, AutoRetryStartEvent)]
    assert starts == [
        "503 Service unavailable",
        "Error Code server_error: The server had an error while processing your request.",
    ]
    assert session.last_assistant_text() == "finally"
    assert [request.path for request in openai_server.requests] == ["/v1/responses"] * 3
    inputs = [request.body["input"] for request in openai_server.requests]
    assert all(sent == inputs[0] for sent in inputs)  # failed replies are never replayed


async def test_an_overflow_reported_in_the_stream_compacts_and_continues(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server)
    settings = Settings(
        compaction=CompactionSettings(reserve_tokens=1000, keep_recent_tokens=50),
        retry=RetrySettings(enabled=False),
    )
    overflow = {
        "status": "failed",
        "error": {
            "code": "context_length_exceeded",
            "message": "Your input exceeds the context window of this model. Please adjust your input.",
        },
    }
    openai_server.enqueue(
        responses_text_reply("EARLY-ANSWER " * 60),
        StreamReply([{"type": "response.failed", "response": overflow}]),
        responses_text_reply("## Original Request\nThe early question."),
        responses_text_reply("recovered after compaction"),
    )
    session = make_session(tmp_path, settings, PRIMARY)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    await session.prompt("EARLY-QUESTION " * 60)

    await session.prompt("the late question")

    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [(event.reason, event.will_retry) for event in ends] == [("overflow", True)]
    assert session.last_assistant_text() == "recovered after compaction"
    continued = str(openai_server.requests[3].body["input"])
    assert "compacted into the following summary" in continued
    assert "EARLY-QUESTION" not in continued


def chat_reply_sent(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [message for message in body["messages"] if message["role"] in ("assistant", "tool")]


async def test_fallback_to_a_chat_model_and_back_replays_in_each_wire_format(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server)
    server_error = ErrorReply(500, {"error": {"message": "internal error"}})
    openai_server.enqueue(
        responses_reply(
            reasoning=Reasoning(["Run it."], item_id="rs_1", encrypted="ENC-1"),
            text="Checking.",
            text_id="msg_1",
            calls=[
                FunctionCall("bash", '{"command":"echo fallback-ok"}', call_id="call_a.1", item_id="fc_1")
            ],
            model="gpt-5-mini",
        ),
        responses_reply(
            reasoning=Reasoning(["Done."], item_id="rs_2", encrypted="ENC-2"),
            text="It printed.",
            text_id="msg_2",
        ),
        server_error,
        server_error,
        text_reply("from the chat model"),
        responses_text_reply("back on responses"),
    )
    settings = Settings(retry=RetrySettings(base_delay_ms=1, max_retries=1), fallback_models=[BACKUP])
    session = make_session(tmp_path, settings, PRIMARY)
    await session.set_thinking_level("medium")
    events: list[AnyEvent] = []
    session.subscribe(events.append)

    await session.prompt("run the check")
    await session.prompt("and now?")

    assert [event for event in events if isinstance(event, ModelFallbackEvent)] == [
        ModelFallbackEvent(PRIMARY, BACKUP, "500 internal error")
    ]
    assert session.last_assistant_text() == "from the chat model"
    chat = openai_server.requests[4]
    assert chat.path == "/v1/chat/completions"
    assert chat_reply_sent(chat.body)[:2] == [
        # The reasoning is dropped (pi 1.6: another model's thinking is not replayed), and the call id
        # is cut to its call part in the characters every provider takes.
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_a_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command":"echo fallback-ok"}'},
                }
            ],
        },
        {"role": "tool", "content": "fallback-ok\n", "tool_call_id": "call_a_1"},
    ]

    primary = resolve_model(PRIMARY)
    assert primary.model is not None
    await session.set_model(primary.model, primary.api_key)
    await session.prompt("back to you")

    assert session.last_assistant_text() == "back on responses"
    back = openai_server.requests[5]
    assert back.path == "/v1/responses"
    items = [
        item for item in back.body["input"] if item.get("role") != "user" and item.get("role") != "developer"
    ]
    assert [(item["type"], item.get("id")) for item in items] == [
        ("reasoning", "rs_1"),  # its own replies replay exactly, reasoning items and item ids included
        ("message", "msg_1"),
        ("function_call", "fc_1"),
        ("function_call_output", None),
        ("reasoning", "rs_2"),
        ("message", "msg_2"),
        ("message", "msg_5"),  # the chat model's reply: text under a made-up id, no reasoning
    ]
    assert items[0]["encrypted_content"] == "ENC-1"
    assert items[2]["call_id"] == "call_a.1" and items[3]["call_id"] == "call_a.1"
    assert items[6]["content"][0]["text"] == "from the chat model"
