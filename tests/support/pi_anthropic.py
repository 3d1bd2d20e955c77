"""pi 1.6's recorded conversations over Anthropic's Messages API (tests/fixtures/pi16/anthropic): their
configs, and the loopback server's answers rebuilt from each `<name>.script.json`, so a test can run
pi-tui through the same conversation and compare its requests with pi's.

The recording server numbered its replies by request: message ids `msg_fake_0001`, tool ids
`toolu_fake_<request>_<call>`, error request ids `req_fake_<request>`. Its usage came from its cache
emulation of pi's bytes; a reply here reports the usage pi stored for the same reply (the request's
`max_tokens` clamp reads the last usage, so the same numbers give the same clamp).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pi_tui.ai.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pi_tui.ai.stream import LlmContext, LlmMessage, ToolSpec
from pi_tui.config.paths import pi_tui_home
from tests.support.anthropic_stream import (
    Thinking,
    ToolUse,
    anthropic_error,
    anthropic_reply,
    stream_error,
    usage_block,
)
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.pi_dialects import session_id_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16" / "anthropic"
CONVERSATIONS = ("a-plain", "b-thinking", "c-long-cache", "d-threads", "e-retry", "f-compaction")
_ERROR_TYPES = {
    429: "rate_limit_error",
    529: "overloaded_error",
    500: "api_error",
    400: "invalid_request_error",
}


def fixture(name: str, suffix: str) -> Path:
    return FIXTURES / f"{name}.{suffix}"


def load(name: str, suffix: str) -> Any:
    return json.loads(fixture(name, suffix).read_text(encoding="utf-8"))


def pi_requests(name: str) -> list[dict[str, Any]]:
    lines = fixture(name, "requests.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def pi_session_id(name: str) -> str:
    return session_id_of(fixture(name, "session.jsonl"))


def pi_assistants(name: str) -> list[dict[str, Any]]:
    found = []
    for line in fixture(name, "session.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "assistant":
            found.append(entry["message"])
    return found


def pi_session_entries(name: str) -> list[dict[str, Any]]:
    lines = fixture(name, "session.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _system_text(message: dict[str, Any]) -> str:
    """pi's `getSystemMessageText`: the content, then each section, joined by blank lines."""
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = "\n".join(block["text"] for block in content if block.get("type") == "text")
    parts = [content, *(text for text in (message.get("sections") or {}).values() if text is not None)]
    return "\n\n".join(part for part in parts if part)


def _tool_specs(message: dict[str, Any]) -> list[ToolSpec]:
    return [
        ToolSpec(tool["name"], tool["description"], tool["parameters"], tool.get("constrainedSampling"))
        for tool in message.get("toolsAdded") or []
    ]


def _llm_message(message: dict[str, Any]) -> LlmMessage:
    role = message["role"]
    if role == "assistant":
        return AssistantMessage.model_validate(message)
    if role == "toolResult":
        return ToolResultMessage.model_validate(message)
    return UserMessage.model_validate(message)


def pi_prose_contexts(session: list[dict[str, Any]], requests: list[dict[str, Any]]) -> dict[int, LlmContext]:
    """f-compaction's requests whose output cap pi estimated from prose (no reply's usage counted), as
    contexts of pi's own prompt, tools and messages: request 1 (the first prompt), and the first request
    after the compaction (its summary, as pi sent it, dated by the compaction entry; the entries the
    compaction kept; the new prompt)."""
    messages = [entry for entry in session if entry["type"] == "message"]
    system = next(entry["message"] for entry in messages if entry["message"]["role"] == "system")
    first_prompt = next(entry["message"] for entry in messages if entry["message"]["role"] == "user")
    contexts = {1: LlmContext(_system_text(system), [_llm_message(first_prompt)], _tool_specs(system))}
    compaction_at = next(index for index, entry in enumerate(session) if entry["type"] == "compaction")
    compaction = session[compaction_at]
    kept_at = next(
        index for index, entry in enumerate(session) if entry["id"] == compaction["firstKeptEntryId"]
    )
    summary_request = next(
        number for number, request in enumerate(requests, start=1)
        if "context summarization assistant" in json.dumps(request["body"].get("system"))
    )  # fmt: skip
    after = requests[summary_request]["body"]
    summary = UserMessage(
        content=[TextContent(text=block["text"]) for block in after["messages"][0]["content"]],
        timestamp=int(datetime.fromisoformat(compaction["timestamp"]).timestamp() * 1000),
    )
    kept = [
        _llm_message(entry["message"])
        for entry in session[kept_at:]
        if entry["type"] == "message" and entry["message"]["role"] != "system"
    ]
    # The request went out before its reply: everything kept up to the newest prompt.
    last_prompt = max(index for index, message in enumerate(kept) if isinstance(message, UserMessage))
    contexts[summary_request + 1] = LlmContext(
        _system_text(compaction["systemMessage"]),
        [summary, *kept[: last_prompt + 1]],
        _tool_specs(compaction["systemMessage"]),
    )
    return contexts


def install(name: str, server: OpenAIServer) -> str:
    """Write the conversation's models.json (and settings) into pi-tui's home; returns the model's ref."""
    home = pi_tui_home()
    home.mkdir(parents=True, exist_ok=True)
    models = fixture(name, "models.json").read_text(encoding="utf-8")
    (home / "models.json").write_text(models.replace("PORT", str(server.port)), encoding="utf-8")
    settings = fixture(name, "settings.json")
    if settings.exists():
        (home / "settings.json").write_text(settings.read_text(encoding="utf-8"), encoding="utf-8")
    run = load(name, "run.json")
    return f"{run['provider']}/{run['model']}"


def _usage(stored: dict[str, Any] | None) -> dict[str, Any]:
    if stored is None:
        return usage_block(10, 5)
    usage = stored["usage"]
    return usage_block(
        usage["input"],
        usage["output"],
        cache_read=usage["cacheRead"],
        cache_write=usage["cacheWrite"],
        cache_write_1h=usage.get("cacheWrite1h", 0),
    )


def _reply(entry: dict[str, Any], number: int, stored: dict[str, Any] | None, model: str) -> Reply:
    message_id = f"msg_fake_{number:04d}"
    if "status" in entry:
        status = entry["status"]
        return anthropic_error(
            status,
            _ERROR_TYPES.get(status, "api_error"),
            entry["error"],
            request_id=f"req_fake_{number}",
            headers=entry.get("headers"),
        )
    if "stream_error" in entry:
        return stream_error(
            entry["stream_error"]["type"], entry["stream_error"]["message"], message_id=message_id
        )
    thinking = [Thinking(entry["thinking"], entry["signature"])] if "thinking" in entry else None
    redacted = [entry["redacted_thinking"]] if "redacted_thinking" in entry else None
    calls = [
        ToolUse(
            call["name"],
            json.dumps(call["arguments"], separators=(",", ":")),
            call_id=f"toolu_fake_{number}_{i}",
        )
        for i, call in enumerate(entry.get("tool_calls") or [])
    ]
    return anthropic_reply(
        text=entry.get("text"),
        thinking=thinking,
        redacted=redacted,
        calls=calls or None,
        message_id=message_id,
        model=stored["model"] if stored is not None else model,
        usage=_usage(stored),
    )


def script_replies(name: str, server: OpenAIServer) -> None:
    """Answer each request as the recording server did: the main queue in order, the request at the place
    where pi asked for a summary (pi-tui may ask inside the conversation, docs/compaction.md) from the
    summary queue."""
    script = load(name, "script.json")
    queue = list(script["queue"])
    summaries = list(script.get("summary_queue") or [])
    recorded = fixture(name, "session.jsonl").exists()  # not yet while tests/live records it
    stored = {message.get("responseId"): message for message in pi_assistants(name)} if recorded else {}
    model = load(name, "run.json")["model"]
    answered = 0
    summary_places = {
        number
        for number, request in enumerate(pi_requests(name) if recorded else [], start=1)
        if "context summarization assistant" in json.dumps(request["body"].get("system") or "")
    }

    def respond(body: Any) -> Reply | None:
        nonlocal answered
        answered += 1
        pool = summaries if answered in summary_places and summaries else queue
        if not pool:
            return None
        entry = pool.pop(0)
        return _reply(entry, answered, stored.get(f"msg_fake_{answered:04d}"), model)

    server.responder = respond
