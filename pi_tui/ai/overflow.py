"""Did a reply fail because the request did not fit the model's context? (pi's `isContextOverflow`)

Overflow is never retried as-is: the session compacts and retries once (docs/compaction.md).
Patterns are pi's, one per provider wording, matched case-insensitively against the reply's `errorMessage`.
"""

from __future__ import annotations

import re

from pi_tui.ai.messages import AssistantMessage

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt is too long",  # Anthropic
        r"request_too_large",  # Anthropic 413
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter, vLLM
        r"exceeds the limit of \d+",  # Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai
        r"prompt too long; exceeded (?:max )?context length",  # Ollama
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",  # Cerebras
    )
)

NON_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (r"^(?:Throttling error|Service unavailable):", r"rate limit", r"too many requests")
)

LENGTH_STOP_OVERFLOW_RATIO = 0.99


def is_overflow_error_text(text: str) -> bool:
    """An error text that names a context overflow and is not a throttling message."""
    if any(pattern.search(text) for pattern in NON_OVERFLOW_PATTERNS):
        return False
    return any(pattern.search(text) for pattern in OVERFLOW_PATTERNS)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """pi's `isContextOverflow`: an overflow error, or (with a window) a silent or length-stop overflow."""
    if message.stop_reason == "error" and message.error_message:
        return is_overflow_error_text(message.error_message)
    if context_window is None or context_window <= 0:
        return False
    prompt = message.usage.input + message.usage.cache_read
    if message.stop_reason == "stop":
        return prompt > context_window  # z.ai accepts and silently truncates
    if message.stop_reason == "length":
        return message.usage.output == 0 and prompt >= LENGTH_STOP_OVERFLOW_RATIO * context_window
    return False
