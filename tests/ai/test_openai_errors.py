"""Error texts and Retry-After hints from provider failures."""

from __future__ import annotations

import json

import httpx2
import openai

from pi_tui.ai.openai_errors import describe_error, retry_after_ms


def status_error(status: int, body: object, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://localhost/v1/chat/completions")
    response = httpx2.Response(status, headers=headers or {}, request=request)
    return openai.APIStatusError("ignored", response=response, body=body)


def test_status_error_texts_follow_the_javascript_sdk() -> None:
    assert describe_error(status_error(429, {"message": "Slow down"}))[0] == "429 Slow down"
    assert describe_error(status_error(400, {"type": "bad"}))[0] == '400 {"type":"bad"}'
    assert describe_error(status_error(503, "upstream busy"))[0] == "503 upstream busy"
    assert describe_error(status_error(400, None))[0] == "400 status code (no body)"
    assert describe_error(status_error(400, ""))[0] == "400 status code (no body)"


def test_retry_after_headers() -> None:
    _, diagnostic = describe_error(status_error(429, {"message": "x"}, {"retry-after-ms": "1500"}))
    assert diagnostic["details"] == {"status": 429, "retryAfterMs": 1500}
    assert retry_after_ms({"retry-after": "2.5"}) == 2500
    assert retry_after_ms({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_ms({}) is None


def test_other_failures() -> None:
    request = httpx2.Request("POST", "http://localhost/v1/chat/completions")
    assert describe_error(openai.APIConnectionError(request=request))[0] == "Connection error."
    assert describe_error(openai.APITimeoutError(request=request))[0] == "Request timed out."
    try:
        json.loads("{bad")
    except json.JSONDecodeError as error:
        assert describe_error(error)[0].startswith("Malformed stream data from provider")
    text, diagnostic = describe_error(RuntimeError())
    assert text == "RuntimeError"
    assert diagnostic["error"]["name"] == "RuntimeError"


def test_a_refused_dialect_field_names_the_compat_switch_that_fixes_it() -> None:
    cases = {
        "Unsupported parameter: 'store' is not supported with this model.": '"supportsStore": false',
        "Unrecognized request argument supplied: stream_options": '"supportsUsageInStreaming": false',
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
        "instead.": '"maxTokensField": "max_completion_tokens"',
        "Extra inputs are not permitted: max_completion_tokens": '"maxTokensField": "max_tokens"',
        "tools.0.function.strict: Extra inputs are not permitted": '"supportsStrictMode": false',
        "Invalid value: 'developer'. Supported values are: 'system', 'assistant', 'user', 'tool'.": (
            '"supportsDeveloperRole": false'
        ),
        "Missing `reasoning_content` field in the assistant message at message index 2": (
            '"requiresReasoningContentOnAssistantMessages": true'
        ),
        "Unexpected role 'user' after role 'tool'": '"requiresAssistantAfterToolResult": true',
    }
    for message, switch in cases.items():
        text = describe_error(status_error(400, {"message": message}))[0]
        assert text.startswith(f"400 {message}") and f"{switch} in the model's compat" in text, text


def test_no_hint_without_a_refused_field_or_for_other_statuses() -> None:
    assert describe_error(status_error(400, {"message": "Your prompt is too long."}))[0] == (
        "400 Your prompt is too long."
    )
    unrelated = "Unsupported parameter: 'store' is not supported"
    assert describe_error(status_error(500, {"message": unrelated}))[0] == f"500 {unrelated}"
