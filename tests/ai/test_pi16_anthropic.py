"""pi-tui's requests over Anthropic's Messages API equal pi 1.6's (tests/fixtures/pi16/anthropic).

Each conversation is replayed as pi was run (`-p PROMPT1`, then `-c -p PROMPTn`, with the recorded
environment) against the loopback server answering as the recording's server did, and every request
pi-tui makes is compared with pi's at the same position: the path and query, every body field and value
(the messages with their cache markers, replayed thinking and signatures, thread fields, `max_tokens`),
and the headers that carry meaning (`anthropic-version`, `anthropic-beta`, the key, pi's client headers).
Prose differs by design and is blanked: the system prompt's text and the tools' descriptions and schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai import anthropic_threads
from pi_tui.ai.anthropic_messages import to_anthropic_tools
from pi_tui.ai.output_room import estimated_input_tokens, output_tokens
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.paths import pi_tui_home
from tests.interop.headless import run_main
from tests.support.openai_server import OpenAIServer
from tests.support.pi_anthropic import (
    install,
    load,
    pi_assistants,
    pi_prose_contexts,
    pi_requests,
    pi_session_entries,
    script_replies,
)

MEANINGFUL_HEADERS = (
    "anthropic-version",
    "anthropic-beta",
    "x-api-key",
    "authorization",
    "accept",
    "anthropic-dangerous-direct-browser-access",
    "content-type",
)
SHARED = ("a-plain", "b-thinking", "c-long-cache", "d-threads", "e-retry", "g2-builtin-strict")
"""The shared recordings, and g2 (recorded here with tests/live/pi16_anthropic_recorder.py): the built-in
`anthropic` provider moved to loopback, pi's catalog model `claude-sonnet-4-6` (adaptive thinking, strict
tools, 128,000 output tokens), `ANTHROPIC_AUTH_TOKEN` as bearer."""


def without_prose(body: dict[str, Any]) -> dict[str, Any]:
    body = json.loads(json.dumps(body))
    for block in body.get("system") or []:
        if "You are a context summarization assistant" not in block["text"]:
            block["text"] = "<system prompt>"
    for tool in body.get("tools") or []:
        tool["description"] = "<description>"
        tool["input_schema"] = "<schema>"
    return body


def header_view(headers: dict[str, str]) -> dict[str, str]:
    return {name: headers[name] for name in MEANINGFUL_HEADERS if name in headers}


async def replay(name: str, server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    anthropic_threads.forget()
    ref = install(name, server)
    run = load(name, "run.json")
    for variable, value in (run.get("env") or {}).items():
        monkeypatch.setenv(variable, value)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    script_replies(name, server)
    first, *rest = run["prompts"]
    assert await run_main(["-p", "--model", ref, "--thinking", run["thinking"], first], monkeypatch) == 0
    for prompt in rest:
        anthropic_threads.forget()  # `-c` is a new pi process: its threads start over
        assert await run_main(["-c", "-p", prompt], monkeypatch) == 0


@pytest.mark.parametrize("name", SHARED)
async def test_requests_equal_pis(
    name: str, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await replay(name, openai_server, tmp_path, monkeypatch)
    expected = pi_requests(name)
    assert len(openai_server.requests) == len(expected)
    for number, (ours, theirs) in enumerate(zip(openai_server.requests, expected, strict=True), start=1):
        assert ours.path == theirs["path"] == "/v1/messages?beta=true", f"request {number}: path"
        assert without_prose(ours.body) == without_prose(theirs["body"]), f"request {number}: body"
        assert list(ours.body) == list(theirs["body"]), f"request {number}: key order"
        assert header_view(ours.headers) == header_view(theirs["headers"]), f"request {number}: headers"


def stored_assistants(path: Path) -> list[dict[str, Any]]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "assistant":
            found.append(entry["message"])
    return found


COMPARED_REPLY_FIELDS = (
    "content",
    "api",
    "provider",
    "model",
    "usage",
    "stopReason",
    "responseId",
    "rawStopReason",
    "thinkingLevel",
)


@pytest.mark.parametrize("name", ["a-plain", "b-thinking", "c-long-cache"])
async def test_replies_are_stored_as_pi_stores_them(
    name: str, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thinking with its signature, redacted thinking as `[Reasoning redacted]` with its data, usage with
    `cacheWrite1h` and the cost of a 1-hour write, Anthropic's own stop reason (`rawStopReason`) and the
    thinking level asked for: field for field what pi wrote. `durationMs` is kept too (timing, not
    compared by value)."""
    await replay(name, openai_server, tmp_path, monkeypatch)
    (session_file,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))

    def view(message: dict[str, Any]) -> dict[str, Any]:
        shown = {key: message.get(key) for key in COMPARED_REPLY_FIELDS}
        shown["usage"] = {**shown["usage"], "cost": {**shown["usage"]["cost"]}}
        shown["usage"]["cost"].pop("totalFromProvider", None)
        return shown

    ours = stored_assistants(session_file)
    assert [view(message) for message in ours] == [view(message) for message in pi_assistants(name)]
    assert all(isinstance(message.get("durationMs"), int) for message in ours)


async def test_compacted_conversation_equals_pis(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f-compaction: a 32000-token window, so `max_tokens` is clamped; after the threshold compaction the
    third prompt sends pi's messages (summary, the kept turn, the prompt). pi-tui asks for the summary in
    its own words (docs/compaction.md), so that request is not compared. Where pi estimated the context
    from the last reply's usage plus the messages after it (requests 2 and 3), `max_tokens` equals pi's
    exactly; where it estimated prose (request 1, and 5: the summary is newer than the reply it kept, so
    that reply's usage no longer counts), pi-tui's prose is its own, and the estimate is checked on pi's
    prose in `test_the_output_cap_estimate_is_pis`."""
    await replay("f-compaction", openai_server, tmp_path, monkeypatch)
    expected = pi_requests("f-compaction")
    assert len(openai_server.requests) == len(expected) == 5
    for number, (ours, theirs) in enumerate(zip(openai_server.requests, expected, strict=True), start=1):
        if number == 4:
            assert "context summarization assistant" in theirs["body"]["system"][0]["text"]
            continue
        mine, pis = without_prose(ours.body), without_prose(theirs["body"])
        our_max, pi_max = mine.pop("max_tokens"), pis.pop("max_tokens")
        assert mine == pis, f"request {number}: body"
        assert 16000 < our_max < 32000 and pi_max < 32000, f"request {number}: clamped, with room to answer"
        if number in (2, 3):
            assert our_max == pi_max, f"request {number}: max_tokens"


PI_PROSE_ESTIMATES = {1: 1497, 5: 1640}
"""pi 1.6.0's own `estimateContextTokens` (pi-ai dist/utils/estimate.js, run with Node 22) of f-compaction's
requests 1 and 5 as the fixture holds them: the system message, the tool declarations and the messages
(request 5: the compaction's `systemMessage`, the summary and what the compaction kept)."""
SCRUBBED_PROSE_TOKENS = 14
"""What pi's recorded `max_tokens` of those two requests lack against the estimate of the scrubbed files:
the fixtures replace three paths of pi's package folder and the project folder in the system prompt by
shorter ones (README, Scrub), which pi counted at their real length. The same 14 tokens in both requests,
as the same system prompt is in both; tests/live/test_pi16_anthropic_live.py checks with unscrubbed paths
that the estimate gives pi's `max_tokens` to the token."""


def test_the_output_cap_estimate_is_pis() -> None:
    """pi-tui's estimate of pi's own context (its system prompt, tool declarations with
    `constrainedSampling`, messages, chars/3.5) is pi's, to the token, and the clamp over it is pi's."""
    session = pi_session_entries("f-compaction")
    requests = pi_requests("f-compaction")
    model = ModelConfig(id="claude-plain-4", context_window=32000, max_tokens=32000, api="anthropic-messages")
    for number, context in pi_prose_contexts(session, requests).items():
        assert estimated_input_tokens(context) == PI_PROSE_ESTIMATES[number], f"request {number}"
        pi_max = requests[number - 1]["body"]["max_tokens"]
        assert output_tokens(model, context) == pi_max + SCRUBBED_PROSE_TOKENS, f"request {number}"


def test_strict_tools_are_pis_byte_for_byte() -> None:
    """g2: pi's own tool declarations (from its session's system message), converted by pi-tui for a
    catalog model, are the `tools` pi sent: `strict: true`, every property required, the optional ones
    `anyOf [..., {"type": "null"}]`, `additionalProperties: false`, the keys in pi's order, the last tool
    with the cache marker."""
    session = pi_session_entries("g2-builtin-strict")
    system = next(
        entry["message"]
        for entry in session
        if entry["type"] == "message" and entry["message"]["role"] == "system"
    )
    specs = [
        ToolSpec(tool["name"], tool["description"], tool["parameters"], tool.get("constrainedSampling"))
        for tool in system["toolsAdded"]
    ]
    sent = pi_requests("g2-builtin-strict")[0]["body"]["tools"]
    ours = to_anthropic_tools(
        specs, eager_input_streaming=True, marker={"type": "ephemeral"}, strict_tools=True
    )
    assert json.dumps(ours) == json.dumps(sent)
    assert all(tool["strict"] is True for tool in ours)
    plain = to_anthropic_tools(specs, eager_input_streaming=True, marker=None, strict_tools=False)
    assert not any("strict" in tool for tool in plain)
