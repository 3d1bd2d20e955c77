"""Context-overflow detection: every pi pattern, the exclusions and the two usage-based cases."""

from __future__ import annotations

import pytest

from pi_tui.ai.messages import AssistantMessage, StopReason, Usage
from pi_tui.ai.overflow import is_context_overflow


def error(text: str) -> AssistantMessage:
    return AssistantMessage(stop_reason="error", error_message=text)


def replied(
    stop_reason: StopReason, input_tokens: int, cache_read: int = 0, output: int = 10
) -> AssistantMessage:
    return AssistantMessage(
        stop_reason=stop_reason, usage=Usage(input=input_tokens, cache_read=cache_read, output=output)
    )


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 210000 tokens > 200000 maximum",
        "413 request_too_large",
        "Input is too long for requested model.",
        "Your input exceeds the context window of this model",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
        "Please reduce the length of the messages or completion.",
        "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens",
        "prompt token count of 140000 exceeds the limit of 128000",
        "the request exceeds the available context size, try increasing it",
        "Trying to keep the first 9000 tokens when context the overflows. greater than the context length",
        "invalid params, context window exceeds limit (2013)",
        "Invalid request: Your request exceeded model token limit: 131072",
        "Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
        "model_context_window_exceeded",
        "prompt too long; exceeded max context length by 100 tokens",
        "prompt too long; exceeded context length by 5 tokens",
        "context_length_exceeded",
        "Context length exceeded",
        "Too many tokens in request",
        "Token limit exceeded for this request",
        "400 status code (no body)",
        "413 (no body)",
        "PROMPT IS TOO LONG",
    ],
)
def test_overflow_error_patterns(text: str) -> None:
    assert is_context_overflow(error(text))


@pytest.mark.parametrize(
    "text",
    [
        "Throttling error: too many tokens, please wait",
        "Service unavailable: token limit exceeded",
        "Rate limit reached: too many tokens per minute",
        "429 Too Many Requests: token limit exceeded",
        "500 Internal server error",
        "401 status code (no body)",
        "invalid request: 400 status code (no body)",
    ],
)
def test_non_overflow_errors(text: str) -> None:
    assert not is_context_overflow(error(text))


def test_error_without_message_or_non_error_reply_with_overflow_text() -> None:
    assert not is_context_overflow(AssistantMessage(stop_reason="error"))
    assert not is_context_overflow(AssistantMessage(stop_reason="stop", error_message="prompt is too long"))


def test_silent_overflow_needs_a_window_and_counts_cache_reads() -> None:
    assert is_context_overflow(replied("stop", 900, cache_read=200), 1000)
    assert not is_context_overflow(replied("stop", 800, cache_read=200), 1000)
    assert not is_context_overflow(replied("stop", 5000))


def test_length_stop_overflow_needs_zero_output_and_99_percent() -> None:
    assert is_context_overflow(replied("length", 990, output=0), 1000)
    assert not is_context_overflow(replied("length", 989, output=0), 1000)
    assert not is_context_overflow(replied("length", 1000, output=1), 1000)
    assert not is_context_overflow(replied("toolUse", 5000), 1000)
