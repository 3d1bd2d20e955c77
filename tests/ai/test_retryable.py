"""Retryable classification: every pi pattern, and overflow is never retryable."""

from __future__ import annotations

import pytest

from pi_tui.ai.messages import AssistantMessage, Usage
from pi_tui.ai.retryable import is_retryable_error


def error(text: str) -> AssistantMessage:
    return AssistantMessage(stop_reason="error", error_message=text)


@pytest.mark.parametrize(
    "text",
    [
        "Overloaded",
        "Provider returned error",
        "provider_returned_error",
        "Rate limit exceeded",
        "rate_limit_error",
        "ratelimit",
        "Too many requests",
        "429",
        "500",
        "502",
        "503",
        "504",
        "Service unavailable",
        "service_unavailable",
        "Server error",
        "internal_error",
        "Network error",
        "Connection error.",
        "connection refused",
        "Connection lost",
        "WebSocket closed",
        "websocket error",
        "other side closed",
        "fetch failed",
        "upstream connect error or disconnect/reset before headers",
        "reset before headers",
        "socket hang up",
        "stream ended without finish_reason",
        "http2 request did not get a response",
        "Request timed out.",
        "the operation will time out",
        "timeout",
        "terminated",
        "retry delay too long",
    ],
)
def test_retryable_patterns(text: str) -> None:
    assert is_retryable_error(error(text), 128000)


@pytest.mark.parametrize(
    "text",
    [
        "401 Incorrect API key provided",
        "404 The model does not exist",
        "400 Invalid schema",
        "Request was aborted.",
    ],
)
def test_not_retryable(text: str) -> None:
    assert not is_retryable_error(error(text), 128000)


def test_overflow_is_never_retryable_even_with_a_retryable_word() -> None:
    assert not is_retryable_error(error("500: prompt is too long"), 128000)
    assert not is_retryable_error(error("413 status code (no body)"), 128000)


def test_only_error_replies_are_retryable() -> None:
    aborted = AssistantMessage(stop_reason="aborted", error_message="Connection error.")
    assert not is_retryable_error(aborted, 128000)
    assert not is_retryable_error(AssistantMessage(stop_reason="error"), 128000)
    silent = AssistantMessage(stop_reason="stop", usage=Usage(input=2000))
    assert not is_retryable_error(silent, 1000)
