"""pi-tui's requests equal pi's, dialect by dialect (tests/fixtures/pi-requests).

Each dialect replays the conversation pi was recorded in: `-p "What is the date? Use bash." --thinking L`,
then `-c -p "Thanks."`, against the loopback server answering as the recording's server did. Every
request pi-tui makes is compared with pi's request at the same position: the same body fields and values,
the same messages (roles, keys, replayed reasoning, cache markers), the same header names. Prose (the
system prompt, tool descriptions and schemas) and session ids differ by design: the session id must be
the session's own wherever pi put its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.paths import pi_tui_home
from pi_tui.session_file.store import SessionStore
from tests.interop.headless import run_main
from tests.support.openai_server import OpenAIServer
from tests.support.pi_dialects import (
    CHAT_DIALECTS,
    FIRST_PROMPT,
    FIXTURES,
    SECOND_PROMPT,
    install_models,
    pi_requests,
    responses_replies,
    scripted_replies,
    session_id_of,
)

PROSE_TOOL_KEYS = ("description", "parameters")
TRANSPORT_HEADERS = {
    "accept",
    "accept-encoding",
    "accept-language",
    "authorization",
    "connection",
    "content-length",
    "content-type",
    "host",
    "sec-fetch-mode",
}
SESSION_HEADERS = {"session_id", "x-client-request-id", "x-session-affinity"}


def without_prose(body: dict[str, Any], session_id: str) -> dict[str, Any]:
    """The body with prose blanked and the session id replaced by a placeholder."""
    body = json.loads(json.dumps(body))
    messages = body.get("messages") or body.get("input") or []
    if messages and messages[0].get("role") in ("system", "developer"):
        content = messages[0]["content"]
        if isinstance(content, str):
            messages[0]["content"] = "<system prompt>"
        else:
            for part in content:
                part["text"] = "<system prompt>"
    for tool in body.get("tools") or []:
        function = tool.get("function", tool)
        for key in PROSE_TOOL_KEYS:
            function.pop(key, None)
    if body.get("prompt_cache_key") == session_id:
        body["prompt_cache_key"] = "<session id>"
    return body


def without_trailing_tool_marker(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """pi-tui's one addition to pi's markers: a request ending in a tool result marks it too, so the next
    request reads it from cache (pi marks only the newest user or assistant text). Returns the body as pi
    would have sent it and whether the marker was there."""
    body = json.loads(json.dumps(body))
    last = body["messages"][-1]
    content = last.get("content")
    if last["role"] != "tool" or not isinstance(content, list):
        return body, False
    assert [part.get("cache_control") for part in content] == [{"type": "ephemeral"}]
    last["content"] = content[0]["text"]
    return body, True


def header_view(headers: dict[str, str], session_id: str) -> dict[str, str]:
    """Header names, with the values that must match: the session id where pi sends its own."""
    view: dict[str, str] = {}
    for name, value in headers.items():
        if name in TRANSPORT_HEADERS or name.startswith("x-stainless") or name == "user-agent":
            continue
        view[name] = "<session id>" if name in SESSION_HEADERS and value == session_id else "<value>"
    return view


@pytest.mark.parametrize("dialect", sorted(CHAT_DIALECTS))
async def test_requests_equal_pis(
    dialect: str, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = install_models(dialect, openai_server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    scripted_replies(openai_server)

    first = ["-p", "--model", ref, "--thinking", CHAT_DIALECTS[dialect], FIRST_PROMPT]
    assert await run_main(first, monkeypatch) == 0
    assert await run_main(["-c", "-p", SECOND_PROMPT], monkeypatch) == 0

    sessions = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1
    session_id = session_id_of(sessions[0])
    expected = pi_requests(dialect)
    pi_session_id = session_id_of(FIXTURES / f"{dialect}.session.jsonl")
    assert len(openai_server.requests) == len(expected)
    marks_tool_results = "anthropic" in dialect
    for number, (ours, theirs) in enumerate(zip(openai_server.requests, expected, strict=True), start=1):
        assert ours.path == theirs["path"], f"request {number}: path"
        body, marked = without_trailing_tool_marker(ours.body)
        ends_in_tool_result = theirs["body"]["messages"][-1]["role"] == "tool"
        assert marked == (marks_tool_results and ends_in_tool_result), f"request {number}: tool result marker"
        assert without_prose(body, session_id) == without_prose(theirs["body"], pi_session_id), (
            f"request {number}: body"
        )
        assert header_view(ours.headers, session_id) == header_view(theirs["headers"], pi_session_id), (
            f"request {number}: headers"
        )
    # The reopened session replays the reasoning exactly: its signature field was kept on disk.
    assert SessionStore.open(sessions[0]).build_context().messages


def stored_messages(path: Path, role: str) -> list[dict[str, Any]]:
    """The session file's messages of `role` as written, without their timestamps."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        message = entry.get("message") if entry.get("type") == "message" else None
        if message is not None and message["role"] == role:
            found.append({key: value for key, value in message.items() if key != "timestamp"})
    return found


async def test_responses_api_requests_and_session_equal_pis(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialect = "responses-reasoning"
    responses_replies(openai_server)
    ref = install_models(dialect, openai_server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert await run_main(["-p", "--model", ref, "--thinking", "medium", FIRST_PROMPT], monkeypatch) == 0
    assert await run_main(["-c", "-p", SECOND_PROMPT], monkeypatch) == 0
    (session_file,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))

    session_id = session_id_of(session_file)
    pi_session = FIXTURES / f"{dialect}.session.jsonl"
    pi_session_id = session_id_of(pi_session)
    expected = pi_requests(dialect)
    assert len(openai_server.requests) == len(expected)
    for number, (ours, theirs) in enumerate(zip(openai_server.requests, expected, strict=True), start=1):
        assert ours.path == theirs["path"] == "/v1/responses", f"request {number}: path"
        assert without_prose(ours.body, session_id) == without_prose(theirs["body"], pi_session_id), (
            f"request {number}: body"
        )
        # Replayed items go back key for key as pi wrote them (the reasoning item exactly as received).
        assert [list(item) for item in ours.body["input"]] == [list(item) for item in theirs["body"]["input"]]
        assert header_view(ours.headers, session_id) == header_view(theirs["headers"], pi_session_id), (
            f"request {number}: headers"
        )
    # The replies are stored as pi stored them: thinking signed with the whole reasoning item, text with
    # its message id, tool calls as `call_id|item_id`, the same usage and cost.
    assert stored_messages(session_file, "assistant") == stored_messages(pi_session, "assistant")
    ours_results = stored_messages(session_file, "toolResult")
    assert [(result["toolCallId"], result["content"]) for result in ours_results] == [
        (result["toolCallId"], result["content"]) for result in stored_messages(pi_session, "toolResult")
    ]


def test_pis_responses_session_replays_as_pi_sent_it() -> None:
    """pi's own session file, opened by pi-tui, gives the `input` pi sent for its last request."""
    dialect = "responses-reasoning"
    messages = SessionStore.open(FIXTURES / f"{dialect}.session.jsonl").build_context().messages
    model = ModelConfig(id="gpt-5-mini", provider="openai", api="openai-responses", reasoning=True)
    context = LlmContext("", convert_to_llm(messages[:-1]))  # up to the last request ("Thanks.")
    request = build_responses_request(model, context, StreamOptions())
    assert request.body["input"] == pi_requests(dialect)[-1]["body"]["input"][1:]
