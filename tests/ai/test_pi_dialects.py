"""pi-tui's requests equal pi 1.6's, dialect by dialect (tests/fixtures/pi16/requests, all 13 dialects).

Each dialect replays the conversation pi was recorded in: `-p "What is the date? Use bash." --thinking L`,
then `-c -p "Thanks."`, against the loopback server answering as the recording's server did. Every
request pi-tui makes is compared with pi's request at the same position, strictly: the same body fields in
the same order with the same values, the same messages (roles, keys, replayed reasoning, cache markers),
the same header names. Prose (the system prompt, tool descriptions and schemas) and session ids differ by
design: the session id must be the session's own wherever pi put its own.

pi 0.73.1's recordings (tests/fixtures/pi-requests) are history: only its Responses session is read here,
to show that a file of that pi still replays as it was sent.
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
    DIALECTS,
    FIRST_PROMPT,
    FIXTURES,
    PI073_FIXTURES,
    SECOND_PROMPT,
    assert_same_body,
    header_view,
    install_models,
    pi_requests,
    responses_replies,
    scripted_replies,
    session_id_of,
    without_prose,
)


def test_every_dialect_is_recorded() -> None:
    """The 13 dialects of docs/providers.md, each with pi 1.6's models.json, requests and session file."""
    assert len(DIALECTS) == 13
    for dialect in DIALECTS:
        for suffix in ("models.json", "requests.jsonl", "session.jsonl"):
            assert (FIXTURES / f"{dialect}.{suffix}").is_file(), f"{dialect}.{suffix}"


@pytest.mark.parametrize("dialect", sorted(CHAT_DIALECTS))
async def test_requests_equal_pis(
    dialect: str, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = install_models(dialect, openai_server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    scripted_replies(openai_server, dialect)

    first = ["-p", "--model", ref, "--thinking", CHAT_DIALECTS[dialect], FIRST_PROMPT]
    assert await run_main(first, monkeypatch) == 0
    assert await run_main(["-c", "-p", SECOND_PROMPT], monkeypatch) == 0

    sessions = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1
    session_id = session_id_of(sessions[0])
    expected = pi_requests(dialect)
    pi_session_id = session_id_of(FIXTURES / f"{dialect}.session.jsonl")
    assert len(openai_server.requests) == len(expected)
    for number, (ours, theirs) in enumerate(zip(openai_server.requests, expected, strict=True), start=1):
        assert ours.path == theirs["path"], f"request {number}: path"
        assert_same_body(
            without_prose(ours.body, session_id), without_prose(theirs["body"], pi_session_id), number
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


REPLY_FIELDS = ("content", "api", "provider", "model", "stopReason", "responseId")


def stored_replies(path: Path) -> list[dict[str, Any]]:
    return [
        {key: message[key] for key in REPLY_FIELDS if key in message}
        for message in stored_messages(path, "assistant")
    ]


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
        assert_same_body(
            without_prose(ours.body, session_id), without_prose(theirs["body"], pi_session_id), number
        )
        # Replayed items go back key for key as pi wrote them (the reasoning item exactly as received).
        assert [list(item) for item in ours.body["input"]] == [list(item) for item in theirs["body"]["input"]]
        assert header_view(ours.headers, session_id) == header_view(theirs["headers"], pi_session_id), (
            f"request {number}: headers"
        )
    # The replies are stored as pi stored them: thinking signed with the whole reasoning item, text with
    # its message id, tool calls as `call_id|item_id`. (Usage is the scripted server's; pi 1.6's newer
    # reply fields are the session format's, tests/session_file.)
    assert stored_replies(session_file) == stored_replies(pi_session)
    ours_results = stored_messages(session_file, "toolResult")
    assert [(result["toolCallId"], result["content"]) for result in ours_results] == [
        (result["toolCallId"], result["content"]) for result in stored_messages(pi_session, "toolResult")
    ]


@pytest.mark.parametrize("folder", [FIXTURES, PI073_FIXTURES], ids=["pi-1.6", "pi-0.73.1"])
def test_pis_responses_session_replays_as_pi_sent_it(folder: Path) -> None:
    """pi's own session file, opened by pi-tui, gives the `input` that pi sent for its last request."""
    dialect = "responses-reasoning"
    messages = SessionStore.open(folder / f"{dialect}.session.jsonl").build_context().messages
    model = ModelConfig(id="gpt-5-mini", provider="openai", api="openai-responses", reasoning=True)
    context = LlmContext("", convert_to_llm(messages[:-1]))  # up to the last request ("Thanks.")
    request = build_responses_request(model, context, StreamOptions())
    assert request.body["input"] == pi_requests(dialect, folder)[-1]["body"]["input"][1:]
