"""Is a failed reply worth sending again unchanged? (pi's `_isRetryableError`)

Only `error` replies with a message qualify, and never a context overflow (that goes to compaction).
`?` in pi's patterns means "any one character or none" (`rate_limit`, `ratelimit`, `rate limit`).
"""

from __future__ import annotations

import re

from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.overflow import is_context_overflow

RETRYABLE_PATTERN = re.compile(
    "|".join(
        (
            r"overloaded",
            r"provider.?returned.?error",
            r"rate.?limit",
            r"too many requests",
            r"429",
            r"500",
            r"502",
            r"503",
            r"504",
            r"service.?unavailable",
            r"server.?error",
            r"internal.?error",
            r"network.?error",
            r"connection.?error",
            r"connection.?refused",
            r"connection.?lost",
            r"websocket.?closed",
            r"websocket.?error",
            r"other side closed",
            r"fetch failed",
            r"upstream.?connect",
            r"reset before headers",
            r"socket hang up",
            r"ended without",
            r"http2 request did not get a response",
            r"timed? out",
            r"timeout",
            r"terminated",
            r"retry delay",
        )
    ),
    re.IGNORECASE,
)


def is_retryable_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    """pi's `_isRetryableError` for the current model's context window."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return RETRYABLE_PATTERN.search(message.error_message) is not None
