"""`pi-tui context SESSION --request`: the next request as it will be sent, keys redacted, file untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.cli import main
from pi_tui.config.paths import pi_tui_home
from tests.interop.headless import run_main
from tests.support.openai_server import OpenAIServer
from tests.support.pi_dialects import (
    FIRST_PROMPT,
    install_models,
    responses_replies,
    scripted_replies,
    session_id_of,
)


async def recorded_session(
    dialect: str, thinking: str, server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A session of the dialect's first exchange (a reasoning reply with a bash call, then its answer)."""
    ref = install_models(dialect, server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    scripted_replies(server)
    assert await run_main(["-p", "--model", ref, "--thinking", thinking, FIRST_PROMPT], monkeypatch) == 0
    (path,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    return path


async def test_the_next_request_shows_markers_and_redacts_keys(
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = await recorded_session("openrouter-anthropic", "high", openai_server, tmp_path, monkeypatch)
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["context", str(path), "--request", "--json", "--prompt", "And tomorrow?"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert path.read_bytes() == before
    assert shown["url"].endswith("/openrouter.ai/api/v1/chat/completions")
    assert shown["headers"]["authorization"] == "Bearer [redacted]"
    assert "sk-test-key" not in json.dumps(shown)
    assert shown["headers"]["x-openrouter-title"] == "pi-tui"
    body = shown["body"]
    messages = body["messages"]
    assert messages[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert messages[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "And tomorrow?", "cache_control": {"type": "ephemeral"}}],
    }
    assert [m.get("reasoning_content") for m in messages if m["role"] == "assistant"] == [
        "The user wants the date; run it.",
        "Got it.",
    ]
    assert body["reasoning"] == {"effort": "high"}


async def test_the_text_form_names_the_cache_key(
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = await recorded_session("openai-reasoning", "medium", openai_server, tmp_path, monkeypatch)
    capsys.readouterr()
    assert main(["context", str(path), "--request"]) == 0
    out = capsys.readouterr().out
    first, *_ = out.splitlines()
    assert first.startswith("POST http://127.0.0.1:") and first.endswith(
        "/api.openai.com/v1/chat/completions"
    )
    assert f'"prompt_cache_key": "{session_id_of(path)}"' in out
    assert '"role": "developer"' in out and "authorization: Bearer [redacted]" in out


async def test_a_responses_model_shows_its_responses_request(
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ref = install_models("responses-reasoning", openai_server)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    responses_replies(openai_server)
    assert await run_main(["-p", "--model", ref, "--thinking", "medium", FIRST_PROMPT], monkeypatch) == 0
    (path,) = sorted((pi_tui_home() / "sessions").rglob("*.jsonl"))
    capsys.readouterr()
    assert main(["context", str(path), "--request", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["url"].endswith("/v1/responses")
    assert shown["body"]["prompt_cache_key"] == session_id_of(path)
    assert [item.get("type", item.get("role")) for item in shown["body"]["input"]] == [
        "developer",
        "user",
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "message",
    ]
