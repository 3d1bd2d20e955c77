"""The Responses API request: body, headers and `input` items for each kind of message (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.stream import LlmContext, LlmMessage, StreamOptions, ToolSpec
from pi_tui.config.model_config import ModelConfig

MODEL = ModelConfig(
    id="gpt-5-mini", provider="openai", api="openai-responses", reasoning=True, max_tokens=16000
)
REASONING = (
    '{"type":"reasoning","id":"rs_1",'
    '"summary":[{"type":"summary_text","text":"Hmm."}],"encrypted_content":"E"}'
)


def user(text: str = "hi") -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def reply(*blocks: Any, model: ModelConfig = MODEL, stop_reason: str = "toolUse") -> AssistantMessage:
    return AssistantMessage.model_validate(
        {
            "content": list(blocks),
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "stopReason": stop_reason,
        }
    )


def result(call_id: str, *blocks: TextContent | ImageContent) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name="bash", content=list(blocks), timestamp=2)


def body_for(messages: list[LlmMessage], model: ModelConfig = MODEL, **options: Any) -> dict[str, Any]:
    settings = StreamOptions(**options)
    return build_responses_request(model, LlmContext("You help.", messages), settings).body


def test_reasoning_on_asks_for_a_summary_and_the_encrypted_reasoning() -> None:
    request = build_responses_request(
        MODEL, LlmContext("You help.", [user()]), StreamOptions(reasoning="medium", session_id="s-1")
    )
    assert request.path == "/responses"
    assert request.headers == {"session-id": "s-1", "x-client-request-id": "s-1"}
    assert request.body == {
        "model": "gpt-5-mini",
        "input": [
            {"role": "developer", "content": "You help."},
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        ],
        "stream": True,
        "prompt_cache_key": "s-1",
        "store": False,
        "max_output_tokens": 16000,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    }
    assert list(request.body) == [  # pi's order
        "model", "input", "stream", "prompt_cache_key", "store", "max_output_tokens", "reasoning", "include",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("level", "level_map", "expected"),
    [
        ("off", None, {"reasoning": {"effort": "none"}}),
        ("off", {"off": None}, {}),
        ("off", {"off": "minimal"}, {"reasoning": {"effort": "minimal"}}),
        ("xhigh", None, {"reasoning": {"effort": "high", "summary": "auto"}}),
        ("xhigh", {"xhigh": "xhigh"}, {"reasoning": {"effort": "xhigh", "summary": "auto"}}),
        ("low", {"low": None}, {}),
    ],
)
def test_thinking_levels(
    level: str, level_map: dict[str, str | None] | None, expected: dict[str, Any]
) -> None:
    model = MODEL.model_copy(update={"thinking_level_map": level_map})
    body = body_for([user()], model, reasoning=level)
    assert {key: body[key] for key in ("reasoning",) if key in body} == expected
    assert ("include" in body) == ("summary" in expected.get("reasoning", {}))


def test_a_model_without_reasoning_gets_a_system_prompt_and_no_reasoning() -> None:
    model = MODEL.model_copy(update={"reasoning": False})
    body = body_for([user()], model, reasoning="high", max_tokens=500)
    assert body["input"][0] == {"role": "system", "content": "You help."}
    assert "reasoning" not in body and "include" not in body
    assert body["max_output_tokens"] == 500


def test_cache_retention() -> None:
    none = build_responses_request(
        MODEL, LlmContext("", [user()]), StreamOptions(session_id="s", cache_retention="none")
    )
    assert "prompt_cache_key" not in none.body and none.headers == {}
    long = body_for([user()], session_id="s", cache_retention="long")
    assert (long["prompt_cache_key"], long["prompt_cache_retention"]) == ("s", "24h")
    assert "prompt_cache_key" not in body_for([user()])


def test_tools_are_flat_functions_and_tool_choice_passes_through() -> None:
    tool = ToolSpec("read", "Read a file", {"type": "object", "properties": {}})
    request = build_responses_request(
        MODEL, LlmContext("", [user()], [tool]), StreamOptions(tool_choice="none")
    )
    assert request.body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {}},
        }
    ]
    assert request.body["tool_choice"] == "none"
    assert request.body["input"][0]["role"] == "user"  # no system prompt, no system item


def test_a_reply_is_replayed_as_the_items_it_came_as() -> None:
    messages: list[LlmMessage] = [
        user("date?"),
        reply(
            ThinkingContent(thinking="Hmm.", thinking_signature=REASONING),
            TextContent(text="Checking.", text_signature='{"v":1,"id":"msg_1","phase":"commentary"}'),
            ToolCall(id="call_1|fc_1", name="bash", arguments={"command": "date"}),
        ),
        result("call_1|fc_1", TextContent(text="line 1"), TextContent(text="line 2")),
    ]
    items = body_for(messages)["input"][2:]
    assert items == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Hmm."}],
            "encrypted_content": "E",
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
            "status": "completed",
            "id": "msg_1",
            "phase": "commentary",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "bash",
            "arguments": '{"command":"date"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "line 1\nline 2"},
    ]
    assert list(items[0]) == ["type", "id", "summary", "encrypted_content"]
    assert list(items[2]) == ["type", "id", "call_id", "name", "arguments"]


def test_unsigned_thinking_is_skipped_and_drops_the_call_item_ids_after_it() -> None:
    messages: list[LlmMessage] = [
        user(),
        reply(
            ThinkingContent(thinking="no item came with this"),
            ToolCall(id="call_1|fc_1", name="bash", arguments={}),
        ),
        result("call_1|fc_1", TextContent(text="ok")),
    ]
    items = body_for(messages)["input"][2:]
    assert items[0] == {"type": "function_call", "call_id": "call_1", "name": "bash", "arguments": "{}"}
    assert [item["type"] for item in items] == ["function_call", "function_call_output"]


def test_a_chat_completions_reply_goes_back_as_text_with_unique_message_ids() -> None:
    chat = ModelConfig(id="qwen", provider="local")
    messages: list[LlmMessage] = [
        user(),
        reply(
            ThinkingContent(thinking="chat reasoning", thinking_signature="reasoning_content"),
            TextContent(text="answer"),
            ToolCall(id="call_x", name="bash", arguments={}),
            model=chat,
        ),
        result("call_x", TextContent(text="done")),
        reply(TextContent(text="after"), model=chat, stop_reason="stop"),
    ]
    items = body_for(messages)["input"][2:]
    assert [(item.get("type"), item.get("id")) for item in items] == [
        ("message", "msg_1"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "msg_3"),
    ]
    assert items[0]["content"][0]["text"] == "answer"  # the chat model's reasoning is not replayed
    assert items[1]["call_id"] == "call_x"


def test_images_for_a_model_that_sees_them() -> None:
    model = MODEL.model_copy(update={"input": ["text", "image"]})
    png = ImageContent(data="AAAA", mime_type="image/png")
    messages: list[LlmMessage] = [
        UserMessage(content=[TextContent(text="look"), png], timestamp=1),
        reply(ToolCall(id="call_1|fc_1", name="read", arguments={})),
        result("call_1|fc_1", png),
    ]
    items = body_for(messages, model)["input"][1:]
    image = {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,AAAA"}
    assert items[0] == {"role": "user", "content": [{"type": "input_text", "text": "look"}, image]}
    assert items[2] == {"type": "function_call_output", "call_id": "call_1", "output": "(see attached image)"}
    assert items[3] == {
        "role": "user",
        "content": [{"type": "input_text", "text": "Attached image(s) from tool result:"}, image],
    }


def test_images_for_a_text_only_model_become_placeholders() -> None:
    png = ImageContent(data="AAAA", mime_type="image/png")
    items = body_for([UserMessage(content=[png], timestamp=1)])["input"][1:]
    assert items == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "(image omitted: model does not support images)"}],
        }
    ]


def test_an_over_long_message_id_is_shortened_stably() -> None:
    long_id = "msg_" + "x" * 100
    messages: list[LlmMessage] = [
        user(),
        reply(TextContent(text="t", text_signature=long_id), stop_reason="stop"),
    ]
    first = body_for(messages)["input"][2]["id"]
    assert first.startswith("msg_") and len(first) <= 64
    assert body_for(messages)["input"][2]["id"] == first


def test_failed_replies_are_not_replayed() -> None:
    messages: list[LlmMessage] = [user(), reply(TextContent(text="half"), stop_reason="error"), user("again")]
    assert [item["content"][0]["text"] for item in body_for(messages)["input"][1:]] == ["hi", "again"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, {"session-id": "s-1", "x-client-request-id": "s-1"}),
        ({"provider": "openrouter", "base_url": "https://openrouter.ai/api/v1"}, {"x-session-id": "s-1"}),
        ({"compat": {"sessionAffinityFormat": "openai-nosession"}}, {"x-client-request-id": "s-1"}),
    ],
)
def test_the_session_headers_follow_the_session_affinity_format(
    fields: dict[str, Any], expected: dict[str, str]
) -> None:
    model = ModelConfig.model_validate({**MODEL.model_dump(by_alias=True, exclude={"compat"}), **fields})
    request = build_responses_request(model, LlmContext("", [user()]), StreamOptions(session_id="s-1"))
    assert request.headers == expected


def test_strict_is_sent_only_where_the_compat_says_the_server_knows_it() -> None:
    tool = ToolSpec("read", "Read a file", {"type": "object", "properties": {}})
    strict = ModelConfig.model_validate(
        {**MODEL.model_dump(by_alias=True, exclude={"compat"}), "compat": {"supportsStrictMode": True}}
    )
    request = build_responses_request(strict, LlmContext("", [user()], [tool]), StreamOptions())
    assert [entry["strict"] for entry in request.body["tools"]] == [False]
