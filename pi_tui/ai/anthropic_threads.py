"""Anthropic's message threads as pi 1.6 uses them: a request continues the previous reply and sends only
the messages after it.

With threads on (`compat.supportsMessageThreads`, the default on api.anthropic.com, and caching on), the
first request of a session is the full body plus `thread: {type: "create"}`. After each clean reply the
session remembers, in memory only, `(message count, fingerprint of the settings and messages, reply id)`;
the next request whose messages start with exactly that prefix is sent as `thread: {type: "continue",
previous_message_id}` without `system` and `tools` and with only the new messages. A reply is continued
at most once; a new process starts with `create` again.

When the server refuses: a thread it has lost or that was already continued (`thread_not_found`,
`thread_already_continued`, `thread_continue_in_flight`, `thread_fingerprint_mismatch`) → the request
goes again at once as `create`; threads it does not support (`thread_unsupported_request`, or a 400
without a code that mentions "thread") → the request goes again without `thread` and the session stops
threading. Either way the reply records an `anthropic_thread_fallback` diagnostic, as pi's does.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from pi_tui.ai.anthropic_messages import to_anthropic_messages
from pi_tui.ai.convert import transform_messages
from pi_tui.ai.messages import AssistantMessage
from pi_tui.config.model_config import ModelConfig

NEW_THREAD_ERRORS = frozenset(
    {
        "thread_not_found",
        "thread_already_continued",
        "thread_continue_in_flight",
        "thread_fingerprint_mismatch",
    }
)
UNSUPPORTED_THREAD_ERROR = "thread_unsupported_request"
FALLBACK_DIAGNOSTIC = "anthropic_thread_fallback"
MAX_SESSIONS = 10_000
_SETTINGS_KEYS = ("system", "tools", "thinking", "output_config", "tool_choice")


@dataclass(frozen=True)
class _Reply:
    prefix_count: int
    prefix_hash: str
    reply_id: str


_state: OrderedDict[str, _Reply | Literal["off"]] = OrderedDict()
_lock = threading.Lock()


def _without_markers(value: Any) -> Any:
    """A message as the fingerprint sees it: no cache markers, a string content as one text block."""
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if key == "cache_control":
                continue
            if key == "content" and isinstance(item, str):
                item = [{"type": "text", "text": item}]
            result[key] = _without_markers(item)
        return result
    if isinstance(value, list):
        return [_without_markers(item) for item in value]
    return value


def _fingerprint(
    model: ModelConfig, body: dict[str, Any], headers: dict[str, str], messages: list[Any]
) -> str:
    settings = [model.provider, model.base_url, body.get("model"), *(body.get(key) for key in _SETTINGS_KEYS)]
    settings.append(headers.get("anthropic-beta"))
    text = json.dumps([settings, _without_markers(messages)], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _remember(session_id: str, value: _Reply | Literal["off"]) -> None:
    with _lock:
        _state.pop(session_id, None)
        _state[session_id] = value
        while len(_state) > MAX_SESSIONS:
            _state.popitem(last=False)


def forget(session_id: str | None = None) -> None:
    """Drop one session's thread (or every session's)."""
    with _lock:
        if session_id is None:
            _state.clear()
        else:
            _state.pop(session_id, None)


def created(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "thread": {"type": "create"}}


def threaded_body(
    model: ModelConfig, session_id: str, body: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any] | None:
    """The body to send for `body` on the session's thread; None when the session stopped threading."""
    with _lock:
        state = _state.get(session_id)
    if state == "off":
        return None
    messages = body["messages"]
    if (
        isinstance(state, _Reply)
        and len(messages) > state.prefix_count
        and _fingerprint(model, body, headers, messages[: state.prefix_count]) == state.prefix_hash
    ):
        forget(session_id)
        rest = {key: value for key, value in body.items() if key not in ("system", "tools")}
        rest["messages"] = messages[state.prefix_count :]
        rest["thread"] = {"type": "continue", "previous_message_id": state.reply_id}
        return rest
    return created(body)


def record_reply(
    model: ModelConfig,
    session_id: str,
    body: dict[str, Any],
    headers: dict[str, str],
    reply: AssistantMessage,
    *,
    allow_empty_signature: bool,
) -> None:
    """After a clean reply on a thread: the prefix the next request may continue from."""
    if reply.response_id is None or reply.response_model is not None:
        return
    converted = to_anthropic_messages(
        transform_messages([reply], model), allow_empty_signature=allow_empty_signature
    )
    replayed = [message for message in converted.messages if message["role"] == "assistant"]
    prefix = [*body["messages"], *replayed]
    _remember(session_id, _Reply(len(prefix), _fingerprint(model, body, headers, prefix), reply.response_id))


def stop_threading(session_id: str) -> None:
    _remember(session_id, "off")


def fallback(code: str | None, status: int | None, text: str) -> Literal["create", "unthreaded"] | None:
    """What to do after a refused threaded request: start a new thread, go without, or nothing."""
    if code in NEW_THREAD_ERRORS:
        return "create"
    if code == UNSUPPORTED_THREAD_ERROR or (code is None and status == 400 and "thread" in text):
        return "unthreaded"
    return None


def fallback_diagnostic(text: str, code: str | None, status: int | None) -> dict[str, Any]:
    return {
        "type": FALLBACK_DIAGNOSTIC,
        "timestamp": int(time.time() * 1000),
        "error": {"message": text},
        "details": {"reason": code or str(status)},
    }
