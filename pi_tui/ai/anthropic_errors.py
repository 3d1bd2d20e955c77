"""Messages API failures as the text a user (and the retry and overflow classifiers) sees, in pi's wording.

pi's JavaScript client words an HTTP error as `<status> <the body as compact JSON>`
(`529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"…"}`), so
the retry patterns (`overloaded`, `rate limit`, `429`, `5xx`) and the overflow pattern (`prompt is too
long`) read it as they read pi's. A 400 whose message names a field a `compat` switch leaves out says
which switch (pi_tui/ai/dialect_hints.py does the same for Chat Completions). Other failures keep the
SDK's words (`Connection error.`, `Request timed out.`).
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from typing import Any

from pi_tui.ai.dialect_hints import REFUSAL_WORDS
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.openai_errors import redact_key, retry_after_ms
from pi_tui.ai.redirects import refused_redirect_text

CONNECTION_ERROR = "Connection error."
"""The SDK's words for a connection that failed before the reply began, used for one that failed during it."""
_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), hint)
    for pattern, hint in (
        (r"\bthread\b", '"supportsMessageThreads": false'),
        (r"\beager_input_streaming\b", '"supportsEagerToolInputStreaming": false'),
        (r"\bttl\b", '"supportsLongCacheRetention": false'),
        (
            r"tools?\.\d+\.cache_control|cache_control.{0,40}\btools?\b",
            '"supportsCacheControlOnTools": false',
        ),
        (r"\bdiagnostics\b", '"sendCacheMissDiagnostics": false'),
        (r"\bstrict\b", '"supportsStrictTools": false'),
        (r"\badaptive\b|\boutput_config\b", '"forceAdaptiveThinking": false'),
        (r"\bsignature\b.{0,40}(empty|required|missing|invalid)", '"allowEmptySignature": false'),
    )
)


STRICT_LIMIT_MESSAGES = (
    "The compiled grammar is too large",
    "Too many strict tools (",
    "Schemas contains too many parameters with union types (",
)
"""How Claude refuses a request whose strict tools exceed its limits (pi 1.6's list)."""
STRICT_FALLBACK_DIAGNOSTIC = "anthropic_strict_tools_fallback"
MAX_STRICT_LIMITED_SESSIONS = 10_000
_strict_limited: OrderedDict[str, None] = OrderedDict()


def is_strict_limit_error(error: BaseException) -> bool:
    """A 400 `invalid_request_error` saying the strict tools are too many or too large."""
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    if status_of(error) != 400 or not isinstance(inner, dict) or inner.get("type") != "invalid_request_error":
        return False
    message = inner.get("message")
    return isinstance(message, str) and any(part in message for part in STRICT_LIMIT_MESSAGES)


def strict_limits_exceeded(session_id: str | None) -> bool:
    return session_id is not None and session_id in _strict_limited


def mark_strict_limits_exceeded(session_id: str | None) -> None:
    """This session's later requests send the tools that only prefer strict without it (pi's rule)."""
    if session_id is None:
        return
    _strict_limited[session_id] = None
    while len(_strict_limited) > MAX_STRICT_LIMITED_SESSIONS:
        _strict_limited.popitem(last=False)


def strict_tools_fallback_diagnostic(text: str) -> dict[str, Any]:
    return {
        "type": STRICT_FALLBACK_DIAGNOSTIC,
        "timestamp": int(time.time() * 1000),
        "error": {"message": text},
        "details": {"reason": "strict_tool_limits_exceeded"},
    }


def anthropic_hint(status: int, message: str) -> str | None:
    if status not in (400, 422) or not REFUSAL_WORDS.search(message):
        return None
    for pattern, hint in _HINTS:
        if pattern.search(message):
            return f"this endpoint may need {hint} in the model's compat (models.json)"
    return None


def error_code(error: BaseException) -> str | None:
    """`error.details.error_code` of an HTTP error's body (the thread errors carry one)."""
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    details = inner.get("details") if isinstance(inner, dict) else None
    code = details.get("error_code") if isinstance(details, dict) else None
    return code if isinstance(code, str) else None


def status_of(error: BaseException) -> int | None:
    import anthropic

    return error.status_code if isinstance(error, anthropic.APIStatusError) else None


def describe_anthropic_error(error: BaseException, api_key: str | None = None) -> tuple[str, dict[str, Any]]:
    """`(errorMessage, diagnostic)` for an exception raised while calling the Messages API."""
    import anthropic
    import httpx2

    details: dict[str, Any] = {}
    if isinstance(error, anthropic.APIStatusError):
        details["status"] = error.status_code
        body = error.body
        shown = js_dumps(body) if isinstance(body, dict | list) else str(body or "").strip()
        text = f"{error.status_code} {shown}" if shown else f"{error.status_code} status code (no body)"
        refused = refused_redirect_text(error.response.headers)
        hint = anthropic_hint(error.status_code, shown)
        if refused is not None:
            text = f"{error.status_code} {refused}"
        elif hint is not None:
            text += f" ({hint})"
        delay = retry_after_ms(error.response.headers)
        if delay is not None:
            details["retryAfterMs"] = delay
    elif isinstance(error, anthropic.APIError):
        text = error.message
    elif isinstance(error, httpx2.TransportError):  # the connection dropped while the reply streamed
        text = CONNECTION_ERROR
    elif isinstance(error, ValueError):  # a data line that is not JSON
        text = f"Malformed stream data from provider: {error}"
    else:
        text = str(error) or type(error).__name__
    text = redact_key(text, api_key)
    diagnostic: dict[str, Any] = {
        "type": "provider_error",
        "timestamp": int(time.time() * 1000),
        "error": {"name": type(error).__name__, "message": text},
    }
    if details:
        diagnostic["details"] = details
    return text, diagnostic
