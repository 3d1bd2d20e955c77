"""The Chat Completions request per dialect: detection, explicit switches, thinking formats, caching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.ai.chat_request import build_chat_request
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_tui.ai.stream import LlmContext, StreamOptions, ToolSpec
from pi_tui.config.compat import Compat, CompatOverrides, detect_compat
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import load_registry

TOOL = ToolSpec("bash", "Run a command", {"type": "object"})


def model(**fields: object) -> ModelConfig:
    defaults: dict[str, object] = {"id": "m", "provider": "local", "base_url": "http://127.0.0.1:8080/v1"}
    return ModelConfig.model_validate({**defaults, **fields})


def context(*messages: object, tools: list[ToolSpec] | None = None) -> LlmContext:
    return LlmContext("sys", list(messages), tools if tools is not None else [TOOL])  # type: ignore[arg-type]


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def reply_with_call(m: ModelConfig) -> AssistantMessage:
    return AssistantMessage(
        content=[ToolCall(id="call_1", name="bash", arguments={"command": "ls"})],
        api=m.api,
        provider=m.provider,
        model=m.id,
        stop_reason="toolUse",
        timestamp=2,
    )


def result(text: str = "out") -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id="call_1", tool_name="bash", content=[TextContent(text=text)], timestamp=3
    )


NOT_OPENAI = {"supports_developer_role": False}
"""pi 1.6 sends the `developer` role to OpenAI alone."""


@pytest.mark.parametrize(
    ("provider", "base_url", "model_id", "expected"),
    [
        ("local", "http://127.0.0.1:8080/v1", "m", Compat(**NOT_OPENAI)),
        ("openai", "http://127.0.0.1:8080/v1", "m", Compat()),
        ("x", "https://api.openai.com/v1", "m", Compat()),
        (
            "x",
            "https://api.deepseek.com/v1",
            "m",
            Compat(
                supports_store=False,
                supports_developer_role=False,
                max_tokens_field="max_tokens",
                requires_reasoning_content_on_assistant_messages=True,
                thinking_format="deepseek",
            ),
        ),
        (
            "zai",
            "https://example.test/v4",
            "m",
            Compat(
                supports_store=False,
                supports_developer_role=False,
                supports_reasoning_effort=False,
                max_tokens_field="max_tokens",
                thinking_format="zai",
            ),
        ),
        (
            "openrouter",
            "https://openrouter.ai/api/v1",
            "anthropic/claude",
            Compat(
                supports_developer_role=False,
                thinking_format="openrouter",
                cache_control_format="anthropic",
                send_session_affinity_headers=True,
                session_affinity_format="openrouter",
            ),
        ),
        (
            "x",
            "https://openrouter.ai/api/v1",
            "openai/gpt-5",
            Compat(
                supports_developer_role=False,
                thinking_format="openrouter",
                send_session_affinity_headers=True,
                session_affinity_format="openrouter",
            ),
        ),
        (
            "moonshotai",
            "https://api.moonshot.ai/v1",
            "kimi",
            Compat(
                supports_store=False,
                supports_developer_role=False,
                supports_reasoning_effort=False,
                max_tokens_field="max_tokens",
            ),
        ),
        (
            "together",
            "https://api.together.xyz/v1",
            "m",
            Compat(
                supports_store=False,
                supports_developer_role=False,
                supports_reasoning_effort=False,
                max_tokens_field="max_tokens",
                thinking_format="together",
                supports_long_cache_retention=False,
            ),
        ),
        (
            "cf",
            "https://api.cloudflare.com/client/v4",
            "m",
            Compat(supports_store=False, supports_developer_role=False, supports_long_cache_retention=False),
        ),
    ],
)
def test_detection_by_provider_then_base_url(
    provider: str, base_url: str, model_id: str, expected: Compat
) -> None:
    assert detect_compat(provider, base_url, model_id) == expected


def test_an_explicit_switch_wins_and_the_rest_is_detected() -> None:
    deepseek = model(base_url="https://api.deepseek.com/v1", compat=CompatOverrides(supports_store=True))
    compat = deepseek.dialect()
    assert compat.supports_store is True and compat.thinking_format == "deepseek"


def test_models_json_compat_unknown_keys_are_reported_and_bad_values_located(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    entry = {"id": "m", "compat": {"supportsStore": False, "futureSwitch": 1}}
    path.write_text(json.dumps({"providers": {"p": {"baseUrl": "http://h/v1", "models": [entry]}}}, indent=2))
    registry = load_registry(path)
    assert registry.models[0].dialect().supports_store is False
    (warning,) = registry.diagnostics
    assert (warning.severity, warning.path) == ("warning", path)
    assert (
        warning.message
        == 'model "p/m": unknown compat key(s) futureSwitch: kept, but pi-tui does not act on them'
    )
    entry["compat"] = {"thinkingFormat": "klingon"}
    path.write_text(json.dumps({"providers": {"p": {"baseUrl": "http://h/v1", "models": [entry]}}}, indent=2))
    registry = load_registry(path)
    assert registry.models == []
    (diagnostic,) = registry.diagnostics
    assert (diagnostic.line, diagnostic.column) == (9, 31)
    assert "providers.p.models.0.compat.thinkingFormat" in diagnostic.message


@pytest.mark.parametrize(
    ("fmt", "on", "off"),
    [
        ("openai", {"reasoning_effort": "high"}, {}),
        (
            "deepseek",
            {"thinking": {"type": "enabled"}, "reasoning_effort": "high"},
            {"thinking": {"type": "disabled"}},
        ),
        # pi 1.6 adds `reasoning_effort` wherever the server takes it (detected here: a local server).
        (
            "zai",
            {"thinking": {"type": "enabled", "clear_thinking": False}, "reasoning_effort": "high"},
            {"thinking": {"type": "disabled"}},
        ),
        ("qwen", {"enable_thinking": True, "reasoning_effort": "high"}, {"enable_thinking": False}),
        (
            "together",
            {"reasoning": {"enabled": True}, "reasoning_effort": "high"},
            {"reasoning": {"enabled": False}},
        ),
        ("string-thinking", {"thinking": "high"}, {"thinking": "none"}),
        (
            "qwen-chat-template",
            {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}},
            {"chat_template_kwargs": {"enable_thinking": False, "preserve_thinking": True}},
        ),
        ("openrouter", {"reasoning": {"effort": "high"}}, {"reasoning": {"effort": "none"}}),
    ],
)
def test_every_thinking_format(fmt: str, on: dict[str, object], off: dict[str, object]) -> None:
    reasoning = model(reasoning=True, compat=CompatOverrides.model_validate({"thinkingFormat": fmt}))
    keys = ("reasoning_effort", "thinking", "enable_thinking", "chat_template_kwargs", "reasoning")

    def thinking_fields(level: str | None) -> dict[str, object]:
        body = build_chat_request(reasoning, context(user("hi")), StreamOptions(reasoning=level)).body  # type: ignore[arg-type]
        return {key: body[key] for key in keys if key in body}

    assert thinking_fields("high") == on
    assert thinking_fields(None) == off
    plain = model(compat=CompatOverrides.model_validate({"thinkingFormat": fmt}))
    assert not any(
        key in build_chat_request(plain, context(user("hi")), StreamOptions()).body for key in keys
    )


def test_the_thinking_level_map_names_the_providers_words() -> None:
    mapped = model(reasoning=True, thinking_level_map={"xhigh": "max", "low": None})
    body = build_chat_request(mapped, context(user("hi")), StreamOptions(reasoning="xhigh")).body
    assert body["reasoning_effort"] == "max"
    assert (
        "reasoning_effort"
        not in build_chat_request(mapped, context(user("hi")), StreamOptions(reasoning="low")).body
    )
    assert (
        build_chat_request(model(reasoning=True), context(user("hi")), StreamOptions(reasoning="xhigh")).body[
            "reasoning_effort"
        ]
        == "high"
    )


def test_cache_key_and_long_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    local = model()
    openai = model(base_url="https://api.openai.com/v1")
    options = StreamOptions(session_id="s-1")
    assert "prompt_cache_key" not in build_chat_request(local, context(user("hi")), options).body
    assert build_chat_request(openai, context(user("hi")), options).body["prompt_cache_key"] == "s-1"
    monkeypatch.setenv("PI_CACHE_RETENTION", "none")
    assert "prompt_cache_key" not in build_chat_request(openai, context(user("hi")), options).body
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    body = build_chat_request(local, context(user("hi")), options).body
    assert (body["prompt_cache_key"], body["prompt_cache_retention"]) == ("s-1", "24h")
    cloudflare = model(base_url="https://api.cloudflare.com/v1")
    assert "prompt_cache_key" not in build_chat_request(cloudflare, context(user("hi")), options).body
    marked = model(provider="openrouter", id="anthropic/x", base_url="https://openrouter.ai/api/v1")
    system = build_chat_request(marked, context(user("hi")), options).body["messages"][0]
    assert system["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_tool_history_without_tools_sends_an_empty_tools_list_where_the_compat_asks() -> None:
    plain = model()
    bare = context(user("q"), reply_with_call(plain), result(), tools=[])
    assert "tools" not in build_chat_request(plain, bare, StreamOptions()).body  # pi 1.6's default
    m = model(compat=CompatOverrides.model_validate({"requiresToolsWithToolHistory": True}))
    body = build_chat_request(
        m, context(user("q"), reply_with_call(m), result(), tools=[]), StreamOptions()
    ).body
    assert body["tools"] == []
    assert "tools" not in build_chat_request(m, context(user("q"), tools=[]), StreamOptions()).body


def test_markers_on_system_last_tool_and_the_last_message_as_pi_16_places_them() -> None:
    m = model(
        provider="openrouter", id="anthropic/claude-sonnet-4.5", base_url="https://openrouter.ai/api/v1"
    )
    tools = [TOOL, ToolSpec("read", "Read", {"type": "object"})]
    body = build_chat_request(
        m, context(user("q"), reply_with_call(m), result(), tools=tools), StreamOptions()
    ).body
    marker = {"type": "ephemeral"}
    assert body["messages"][0]["content"] == [{"type": "text", "text": "sys", "cache_control": marker}]
    assert "cache_control" not in body["tools"][0] and body["tools"][1]["cache_control"] == marker
    assert body["messages"][1]["content"] == [{"type": "text", "text": "q"}]  # behind the newer marker
    assert body["messages"][2]["content"] is None  # a tool call without text carries no marker
    assert body["messages"][3]["content"] == [{"type": "text", "text": "out", "cache_control": marker}]
    assert json.dumps(body).count('"cache_control"') == 3
    after_reply = build_chat_request(
        m, context(user("q"), reply_with_call(m), result(), user("next")), StreamOptions()
    )
    assert after_reply.body["messages"][3]["content"] == "out"
    assert after_reply.body["messages"][4]["content"] == [
        {"type": "text", "text": "next", "cache_control": marker}
    ]


def test_a_user_message_after_tool_results_is_bridged_where_required() -> None:
    strict = model(compat=CompatOverrides(requires_assistant_after_tool_result=True))
    messages = build_chat_request(
        strict, context(user("q"), reply_with_call(strict), result(), user("next")), StreamOptions()
    ).body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert messages[2]["content"] == "" and messages[4]["content"] == "I have processed the tool results."


@pytest.mark.parametrize(
    ("compat", "expected"),
    [
        ({"sendSessionAffinityHeaders": True}, {"session_id", "x-client-request-id", "x-session-affinity"}),
        (
            {"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openai-nosession"},
            {"x-client-request-id", "x-session-affinity"},
        ),
        ({"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openrouter"}, {"x-session-id"}),
        ({}, set()),
    ],
)
def test_session_affinity_headers_in_each_format(compat: dict[str, object], expected: set[str]) -> None:
    m = model(compat=CompatOverrides.model_validate(compat))
    request = build_chat_request(m, context(user("q")), StreamOptions(session_id="s-1"))
    assert set(request.headers) == expected
    assert set(request.headers.values()) <= {"s-1"}


def test_openrouter_sends_its_session_header_unasked() -> None:
    m = model(provider="openrouter", id="openai/gpt-5-mini", base_url="https://openrouter.ai/api/v1")
    headers = build_chat_request(m, context(user("q")), StreamOptions(session_id="s-1")).headers
    assert headers["x-session-id"] == "s-1" and "session_id" not in headers


@pytest.mark.parametrize(("mode", "sent"), [("enabled", True), ("disabled", False), ("auto", False)])
def test_the_prompt_cache_key_mode(mode: str, sent: bool) -> None:
    m = model(compat=CompatOverrides.model_validate({"promptCacheKeyMode": mode}))
    body = build_chat_request(m, context(user("q")), StreamOptions(session_id="s-1")).body
    assert ("prompt_cache_key" in body) is sent
