"""The real pi 1.6, live: it still sends what tests/fixtures/pi16/requests says it sends, and it continues a
session pi-tui wrote sending the conversation pi-tui sends.

1. For every dialect, a fresh recording (tests/live/pi16_recorder.py, the same way the committed files were
   made) equals the committed requests line for line, once the fresh session id is written as the committed
   one (paths and ports are scrubbed by the recorder). The session file pi wrote has the same entries.
2. For every dialect, pi-tui answers the first prompt, then a copy of its session file is continued by
   pi 1.6 (`--session FILE -p "Thanks."`) and another by pi-tui: both requests carry the same body fields,
   messages and header names (prose and identity header values differ by design, as in
   tests/ai/test_pi_dialects.py).
3. A pi-tui file with a retried failure (its `context_edit`) and a compaction (`systemMessage`, `usage`)
   is continued by pi 1.6 and by pi-tui with the same conversation.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_tui.config.paths import pi_tui_home
from tests.interop.headless import run_main
from tests.live.pi16_recorder import RUN_TIMEOUT_S, SETTINGS, models_json, record
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply
from tests.support.pi_dialects import (
    DIALECTS,
    FIRST_PROMPT,
    FIXTURES,
    SECOND_PROMPT,
    assert_same_body,
    header_view,
    install_models,
    responses_replies,
    scripted_replies,
    session_id_of,
    without_prose,
)


def entry_shape(session: str) -> list[tuple[str, str]]:
    """Each entry's type (and a message's role): what a session file holds, without ids and times."""
    shape = []
    for line in session.splitlines():
        entry = json.loads(line)
        message = entry.get("message")
        shape.append((entry["type"], message["role"] if isinstance(message, dict) else ""))
    return shape


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
async def test_a_fresh_recording_equals_the_committed_one(
    dialect: str, pi16_bin: Path, tmp_path: Path
) -> None:
    fresh = await record(pi16_bin, dialect, tmp_path.resolve())
    committed_session = (FIXTURES / f"{dialect}.session.jsonl").read_text(encoding="utf-8")
    fresh_id = json.loads(fresh.session.splitlines()[0])["id"]
    committed_id = json.loads(committed_session.splitlines()[0])["id"]
    committed = (FIXTURES / f"{dialect}.requests.jsonl").read_text(encoding="utf-8").splitlines()
    ours = fresh.requests.replace(fresh_id, committed_id).splitlines()
    assert len(ours) == len(committed)
    for number, (line, expected) in enumerate(zip(ours, committed, strict=True), start=1):
        assert json.loads(line) == json.loads(expected), f"{dialect}: request {number}"
        assert line == expected, f"{dialect}: request {number} (bytes)"
    assert entry_shape(fresh.session) == entry_shape(committed_session)


async def _continue_with_pi(pi: Path, session: Path, project: Path, agent: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(agent)),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "LANG": "C.UTF-8",
    }
    process = await asyncio.create_subprocess_exec(
        str(pi),
        "--offline",
        "--session",
        str(session),
        "-p",
        SECOND_PROMPT,
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT_S)
    assert process.returncode == 0, f"pi exited with {process.returncode}: {err.decode()} {out.decode()}"


def _last_request(server: OpenAIServer, index: int) -> dict[str, Any]:
    request = server.requests[index]
    return {"path": request.path, "headers": request.headers, "body": request.body}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
async def test_pi16_continues_a_pi_tui_session_sending_what_pi_tui_sends(
    dialect: str,
    pi16_bin: Path,
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if dialect.startswith("responses"):
        responses_replies(openai_server)
    else:
        scripted_replies(openai_server, dialect)
    openai_server.replies.append(openai_server.replies[-1])  # the closing answer, once for each tool
    ref = install_models(dialect, openai_server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    thinking = DIALECTS[dialect][0]
    assert await run_main(["-p", "--model", ref, "--thinking", thinking, FIRST_PROMPT], monkeypatch) == 0
    (written,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    original = written.read_bytes()
    for_pi = tmp_path / "for-pi.jsonl"
    for_pi_tui = written.with_name("for-pi-tui.jsonl")
    shutil.copyfile(written, for_pi)
    shutil.copyfile(written, for_pi_tui)
    written.unlink()  # `-c` below continues the copy, the only session left

    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(models_json(dialect, openai_server.port), encoding="utf-8")
    (agent / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    await _continue_with_pi(pi16_bin, for_pi, project, agent)
    assert await run_main(["-c", "-p", SECOND_PROMPT], monkeypatch) == 0

    assert len(openai_server.requests) == 4
    session_id = session_id_of(for_pi)
    pis, ours = _last_request(openai_server, 2), _last_request(openai_server, 3)
    assert pis["path"] == ours["path"]
    assert_same_body(without_prose(ours["body"], session_id), without_prose(pis["body"], session_id), 3)
    assert header_view(ours["headers"], session_id) == header_view(pis["headers"], session_id)
    # pi appended its turn to the file pi-tui wrote and left pi-tui's entries as they were.
    continued = for_pi.read_bytes()
    assert continued.startswith(original) and len(continued) > len(original)


async def test_pi16_continues_pi_tui_writes_of_checkpoints_edits_and_compactions(
    pi16_bin: Path,
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pi-tui file holding what pi-tui writes as pi 1.6 does (the prompt checkpoint, a retried failure
    left out with a `context_edit`, a compaction with `systemMessage` and `usage`): pi 1.6 continues it
    sending the conversation pi-tui sends, and its own rebuild agrees with pi-tui's."""
    dialect = "openai-plain"
    ref = install_models(dialect, openai_server)
    (pi_tui_home() / "settings.json").write_text(
        json.dumps({"retry": {"baseDelayMs": 1, "maxDelayMs": 5}, "compaction": {"keepRecentTokens": 1}}),
        encoding="utf-8",
    )
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    openai_server.enqueue(ErrorReply(503, {"error": {"message": "overloaded"}}))
    scripted_replies(openai_server, dialect)
    openai_server.replies.pop()  # the third scripted answer closes the conversation below
    assert await run_main(["-p", "--model", ref, FIRST_PROMPT], monkeypatch) == 0
    (written,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    openai_server.enqueue(text_reply("## Goal\nThe user asked for the date; it is 2026-11-29."))
    assert await run_main(["compact", str(written)], monkeypatch) == 0
    types = [json.loads(line)["type"] for line in written.read_text(encoding="utf-8").splitlines()]
    assert "context_edit" in types and "compaction" in types
    compaction = next(
        json.loads(line)
        for line in written.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["type"] == "compaction"
    )
    assert {"systemMessage", "usage"} <= set(compaction)

    for_pi = tmp_path / "for-pi.jsonl"
    shutil.copyfile(written, for_pi)
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(models_json(dialect, openai_server.port), encoding="utf-8")
    (agent / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    for _ in range(2):
        openai_server.enqueue(text_reply("You are welcome."))
    before = len(openai_server.requests)
    await _continue_with_pi(pi16_bin, for_pi, project, agent)
    assert await run_main(["-c", "-p", SECOND_PROMPT], monkeypatch) == 0

    assert len(openai_server.requests) == before + 2
    session_id = session_id_of(for_pi)
    pis, ours = _last_request(openai_server, before), _last_request(openai_server, before + 1)
    assert [message["role"] for message in pis["body"]["messages"]][:2] == ["system", "user"]
    assert "compacted" in json.dumps(pis["body"]["messages"][1])  # the summary leads, as pi-tui sends it
    assert_same_body(without_prose(ours["body"], session_id), without_prose(pis["body"], session_id), 2)
