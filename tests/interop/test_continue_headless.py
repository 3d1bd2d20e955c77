"""Continuing pi's sessions headless: `pi-tui -p --session <pi file> "msg"` against the loopback server.

pi-tui must append pi-format entries only: every old byte stays, every new line passes the strict pi
schema and chains from the old leaf, and the file reopened (by pi-tui, and by the reference rebuild of
pi's rules) continues from the old context plus exactly the new messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import FIXTURE_NAMES, PI_PROJECT
from tests.interop.headless import (
    ANSWER,
    PROMPT,
    context_json,
    endpoint,
    enqueue_tool_turn,
    run_main,
    wire_text,
)
from tests.interop.pi_reference import pi_context, pi_labels, pi_sent, read_entries
from tests.interop.pi_schema import check_appended
from tests.support.conversation import replay_checkpoints
from tests.support.openai_server import OpenAIServer, text_reply


@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_continuing_appends_pi_entries_only(
    pi_folder: Path,
    project: Path,
    name: str,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / f"{name}.jsonl"
    before = path.read_bytes()
    old_context = context_json(path)
    old_labels = pi_labels(read_entries(path))
    enqueue_tool_turn(openai_server)

    # The fixtures' cwd is gone (as after moving a project): --here continues in the current directory.
    code = await run_main(
        ["-p", "--here", "--session", str(path), *endpoint(openai_server), PROMPT], monkeypatch
    )

    out = capsys.readouterr()
    assert (code, out.out) == (0, f"{ANSWER}\n"), out.err
    new = check_appended(before, path.read_bytes())
    assert [entry["type"] for entry in new if entry["type"] != "custom"] == [
        "model_change",
        "message",
        "message",
        "message",
        "message",
        "message",
    ]
    model_change = new[0]
    assert (model_change["provider"], model_change["modelId"]) == ("openai", "m")
    messages = [entry["message"] for entry in new if entry["type"] == "message"]
    assert [message["role"] for message in messages] == [
        "system",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert messages[1]["content"] == [{"type": "text", "text": PROMPT}]
    assert messages[3]["content"] == [{"type": "text", "text": "interop\n"}]
    assert_checkpoint_spells_out_the_request(read_entries(path), openai_server.requests[0].body)
    assert {entry["customType"] for entry in new if entry["type"] == "custom"} == {"pi-tui.request"}

    assert context_json(path) == old_context + messages
    as_pi = pi_context(read_entries(path))
    assert as_pi["messages"] == old_context + messages
    assert as_pi["model"] == {"provider": "openai", "modelId": "m"}
    assert as_pi["leafId"] == new[-1]["id"]
    assert pi_labels(read_entries(path)) == old_labels
    assert json.loads(before.splitlines()[0])["cwd"] == PI_PROJECT

    # What the model got: pi's whole context (summaries as user text), then the prompt.
    sent = [message for message in openai_server.requests[0].body["messages"] if message["role"] != "system"]
    assert len(sent) == len(pi_sent(old_context)) + 1
    assert wire_text(sent[-1]) == PROMPT
    if any(message["role"] == "compactionSummary" for message in old_context[:2]):
        assert wire_text(sent[0]).startswith("The conversation history before this point was compacted")


def assert_checkpoint_spells_out_the_request(entries: list[dict[str, Any]], body: dict[str, Any]) -> None:
    """Replaying every system message of the file (pi 1.6's `getCurrentSystemMessage`) gives the
    prompt pi-tui sent, section by section, and the tools it offered, declaration by declaration."""
    prompt, tools = replay_checkpoints(entries)
    [system] = [message for message in body["messages"] if message["role"] in ("system", "developer")]
    assert prompt == system["content"]
    sent_tools = [tool["function"] for tool in body.get("tools", [])]
    assert [(tool["name"], tool["description"], tool["parameters"]) for tool in tools] == [
        (tool["name"], tool["description"], tool["parameters"]) for tool in sent_tools
    ]


async def test_a_pi_session_id_prefix_is_found_in_pis_folder(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / "a-plain.jsonl"
    before = path.read_bytes()
    session_id = json.loads(before.splitlines()[0])["id"]
    openai_server.enqueue(text_reply(ANSWER))

    code = await run_main(
        ["-p", "--here", "--session", session_id[:8], *endpoint(openai_server), PROMPT], monkeypatch
    )

    assert code == 0, capsys.readouterr().err
    new = check_appended(before, path.read_bytes())
    assert [entry["message"]["role"] for entry in new if entry["type"] == "message"] == [
        "system",
        "user",
        "assistant",
    ]


async def test_without_here_a_missing_cwd_is_refused_and_nothing_written(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / "b-tools.jsonl"
    before = path.read_bytes()

    code = await run_main(["-p", "--session", str(path), *endpoint(openai_server), PROMPT], monkeypatch)

    assert code == 1
    assert "pass --here" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert openai_server.requests == []
