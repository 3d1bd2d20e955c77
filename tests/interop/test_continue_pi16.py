"""Continuing pi 1.6's sessions headless sends what pi 1.6 sends: its context edits honoured, its tool
set kept, another model's thinking dropped (tests/fixtures/pi16/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import PI16_PREFIX
from tests.interop.headless import ANSWER, PROMPT, endpoint, run_main, wire_text
from tests.support.openai_server import OpenAIServer, text_reply


def tool_names(request_body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request_body.get("tools", [])]


async def continue_once(
    path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str]:
    server.enqueue(text_reply(ANSWER))
    code = await run_main(["-p", "--here", "--session", str(path), *endpoint(server), PROMPT], monkeypatch)
    out = capsys.readouterr()
    assert (code, out.out) == (0, f"{ANSWER}\n"), out.err
    return server.requests[0].body, out.err


async def test_context_edits_and_tool_changes_are_honoured(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    body, err = await continue_once(
        pi_folder / f"{PI16_PREFIX}y-context-edit-tools.jsonl", openai_server, monkeypatch, capsys
    )

    wire = json.dumps(body["messages"])
    # The redacted output goes as its replacement, the left-out result as pi sends a missing one,
    # the left-out draft not at all.
    assert "SECRET-TOKEN-4242\\n" not in wire and "[tool output redacted by extension]" in wire
    assert "DROP-ME-77\\nnotes.txt" not in wire
    assert "DRAFT-ANSWER" not in wire
    results = [message for message in body["messages"] if message["role"] == "tool"]
    assert [(result["tool_call_id"], wire_text(result)) for result in results] == [
        ("call_3_0", "[tool output redacted by extension]"),
        ("call_5_0", "No result provided"),
    ]
    # edit and write were removed, grep and find added: the tools pi 1.6 offers.
    assert tool_names(body) == ["read", "bash", "grep", "find"]
    assert "does not have" not in err


async def test_a_recorded_tool_pi_tui_lacks_is_named_once(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / f"{PI16_PREFIX}a-plain.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    system = json.loads(lines[3])
    assert system["message"]["role"] == "system"
    declaration = {"name": "web_fetch", "description": "Fetch a URL", "parameters": {"type": "object"}}
    system["message"]["toolsAdded"].append(declaration)
    lines[3] = json.dumps(system, separators=(",", ":")) + "\n"
    path.write_text("".join(lines), encoding="utf-8")

    body, err = await continue_once(path, openai_server, monkeypatch, capsys)

    assert tool_names(body) == ["read", "bash", "edit", "write"]
    assert err.count("web_fetch") == 1
    assert "pi-tui does not have" in err


async def test_another_models_thinking_is_not_replayed(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / f"{PI16_PREFIX}a-plain.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index, reply = next(
        (i, json.loads(line))
        for i, line in enumerate(lines)
        if '"role":"assistant"' in line and '"stopReason":"stop"' in line
    )
    reply["message"]["content"].insert(0, {"type": "thinking", "thinking": "REASONER-THOUGHT"})
    reply["message"]["model"] = "fake-reasoner"
    lines[index] = json.dumps(reply, separators=(",", ":")) + "\n"
    path.write_text("".join(lines), encoding="utf-8")

    body, _ = await continue_once(path, openai_server, monkeypatch, capsys)

    assert "REASONER-THOUGHT" not in json.dumps(body)
    assert any(message["role"] == "assistant" for message in body["messages"])
