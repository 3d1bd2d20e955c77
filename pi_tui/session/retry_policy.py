"""When and how long to wait before sending a failed request again, by pi's rules."""

from __future__ import annotations

from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.config.settings import RetrySettings

RETRY_AFTER_KEY = "retryAfterMs"


def requested_delay_ms(message: AssistantMessage) -> int | None:
    """The server's `Retry-After`, as the provider recorded it in the message's diagnostics."""
    for diagnostic in reversed(message.diagnostics or []):
        details = diagnostic.get("details") if isinstance(diagnostic, dict) else None
        value = details.get(RETRY_AFTER_KEY) if isinstance(details, dict) else None
        if isinstance(value, int | float) and value >= 0:
            return int(value)
    return None


def retry_delay_ms(attempt: int, settings: RetrySettings, message: AssistantMessage) -> int:
    """2 s, 4 s, 8 s … by default; a server's `Retry-After` wins; both capped at `maxDelayMs`."""
    requested = requested_delay_ms(message)
    delay = requested if requested is not None else settings.base_delay_ms * 2 ** (attempt - 1)
    return min(delay, settings.max_delay_ms)


def should_retry(message: AssistantMessage | None, settings: RetrySettings, context_window: int) -> bool:
    """Retry transient failures only; context overflow goes to compaction, never back as-is."""
    return (
        settings.enabled
        and message is not None
        and message.stop_reason == "error"
        and is_retryable_error(message, context_window)
    )
