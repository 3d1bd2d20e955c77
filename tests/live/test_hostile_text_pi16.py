"""pi 1.6 itself and pi-tui continue one session that holds lone surrogates (as pi writes them) and send
the same messages: pi drops the surrogates when it sends, pi-tui when it reads the file, and the request
is the same either way. Runs the real pi (`PI16_BIN`) against the loopback server; skipped without it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tests.reliability.test_hostile_text import pi_session_with_surrogates
from tests.support.openai_server import OpenAIServer, openai_server, text_reply

__all__ = ["openai_server"]  # the loopback server fixture, for this module alone

PI16_BIN = os.environ.get("PI16_BIN")
pytestmark = pytest.mark.skipif(not PI16_BIN, reason="PI16_BIN is not set")


async def run(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode(errors="replace")
    assert out.decode().strip() == "answer"


async def test_pi16_and_pi_tui_send_the_same_messages_for_a_session_with_surrogates(
    openai_server: OpenAIServer, tmp_path: Path, pi_fixtures: Path
) -> None:
    assert PI16_BIN is not None
    agent = tmp_path / "pi-agent"
    agent.mkdir()
    provider = {
        "baseUrl": openai_server.base_url,
        "apiKey": "sk-loop-12345678",
        "api": "openai-completions",
        "models": [{"id": "m", "contextWindow": 32000}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    (agent / "settings.json").write_text("{}")
    source = pi_session_with_surrogates(pi_fixtures, tmp_path)
    for name in ("for-pi.jsonl", "for-pi-tui.jsonl"):
        (tmp_path / name).write_bytes(source.read_bytes())
    openai_server.enqueue(text_reply("answer"), text_reply("answer"))
    env = {"PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1"}

    await run(
        [
            PI16_BIN,
            "--offline",
            "-p",
            "--session",
            str(tmp_path / "for-pi.jsonl"),
            "--model",
            "loop/m",
            "next",
        ],
        tmp_path,
        env,
    )
    pi_tui = [sys.executable, "-m", "pi_tui", "-p", "--session", str(tmp_path / "for-pi-tui.jsonl")]
    await run(
        [
            *pi_tui,
            "--base-url",
            openai_server.base_url,
            "--model",
            "m",
            "--api-key",
            "sk-loop-12345678",
            "next",
        ],
        tmp_path,
        env,
    )

    pi_request, pi_tui_request = (request.body for request in openai_server.requests)
    # The system prompts differ by design (docs/pi-compatibility.md); every message after them is pi's.
    assert pi_tui_request["messages"][1:] == pi_request["messages"][1:]
    assert "\\ud800" not in json.dumps(pi_request["messages"])
