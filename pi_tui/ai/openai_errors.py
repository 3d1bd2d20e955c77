"""Provider failures as the text a user (and the retry/overflow classifiers) sees.

Formats follow the JavaScript SDK pi uses, so pi's classification patterns match the same way:
`<status> <server message>` (e.g. `429 Rate limit exceeded`), `<status> status code (no body)`,
`Connection error.`, `Request timed out.`. A diagnostic keeps the status, the error's type and
code, and any `Retry-After` the server sent (in ms) for the session's retry delay.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable
from typing import Any

from pi_tui.ai.dialect_hints import compat_hint
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.redirects import refused_redirect_text
from pi_tui.config.key_secrets import MIN_KEY_CHARS, REDACTED

RETRY_AFTER_MS_HEADER = "retry-after-ms"
RETRY_AFTER_HEADER = "retry-after"


class MalformedStreamData(ValueError):
    """A streamed event that is valid JSON but not an object (`data: 42`)."""


def _server_message(body: object) -> str:
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
        if message is not None:
            return js_dumps(message)
        return js_dumps(body) if body else ""
    if isinstance(body, str):
        return body.strip()
    return "" if body is None else str(body)


def retry_after_ms(headers: Any) -> int | None:
    """The server's requested delay (`retry-after-ms`, or `retry-after` in seconds), if any. As in pi, a
    value that is not a finite number (`inf`, `1e400`, `nan`) is no request: the usual backoff applies."""
    if headers is None:
        return None
    for name, scale in ((RETRY_AFTER_MS_HEADER, 1), (RETRY_AFTER_HEADER, 1000)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            delay = float(raw) * scale
        except ValueError:
            continue  # an HTTP date; not worth parsing for a retry hint
        if math.isfinite(delay):
            return max(int(delay), 0)
    return None


def redact_key(text: str, api_key: str | None) -> str:
    """Some servers echo the key they refused (`Incorrect API key provided: sk-…`); the message is
    persisted and shown, so the key is cut out of it (keys are never stored: docs/reliability.md)."""
    if api_key and len(api_key) >= MIN_KEY_CHARS and api_key in text:
        return text.replace(api_key, REDACTED)
    return text


def redact_failure(
    failure: tuple[str, dict[str, Any] | None], secrets: Iterable[str]
) -> tuple[str, dict[str, Any] | None]:
    """A failure's text and every string of its diagnostic (message, code, type, nested fields) with each
    secret (the key, credential headers) cut out: a server may echo any of them in any field."""
    ordered = sorted((secret for secret in secrets if len(secret) >= MIN_KEY_CHARS), key=len, reverse=True)
    text, diagnostic = failure
    return _redacted(text, ordered), _redacted(diagnostic, ordered)


def _redacted(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {key: _redacted(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item, secrets) for item in value]
    return value


def describe_error(error: BaseException, api_key: str | None = None) -> tuple[str, dict[str, Any]]:
    """`(errorMessage, diagnostic)` for an exception raised while calling the provider, with `api_key`
    redacted from both."""
    import openai

    details: dict[str, Any] = {}
    if isinstance(error, openai.APIStatusError):
        details["status"] = error.status_code
        server_message = _server_message(error.body)
        refused = refused_redirect_text(error.response.headers)
        if refused is not None:
            text = f"{error.status_code} {refused}"
        elif not server_message:
            text = f"{error.status_code} status code (no body)"
        else:
            text = f"{error.status_code} {server_message}"
            hint = compat_hint(error.status_code, server_message)
            if hint is not None:
                text += f" ({hint})"
        delay = retry_after_ms(error.response.headers)
        if delay is not None:
            details["retryAfterMs"] = delay
    elif isinstance(error, openai.APIError):
        text = error.message
    elif isinstance(error, json.JSONDecodeError | MalformedStreamData):
        text = f"Malformed stream data from provider: {error}"
    else:
        text = str(error) or type(error).__name__
    text = redact_key(text, api_key)
    diagnostic_error: dict[str, Any] = {"name": type(error).__name__, "message": text}
    code = getattr(error, "code", None)
    if isinstance(code, str | int):
        diagnostic_error["code"] = code
    diagnostic: dict[str, Any] = {
        "type": "provider_error",
        "timestamp": int(time.time() * 1000),
        "error": diagnostic_error,
    }
    if details:
        diagnostic["details"] = details
    return text, diagnostic
