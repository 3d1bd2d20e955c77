"""Sessions pi-tui writes on Anthropic's Messages API, opened and continued by the real pi 1.6, and back.

pi-tui runs a turn with a tool call (and, on a thinking model, signed and redacted thinking) against the
loopback server speaking Anthropic's protocol; pi 1.6 (`$PI16_BIN`) opens that session file with
`--session` and answers one more prompt; pi-tui continues the file pi appended to. pi must send the
conversation pi-tui stored exactly as pi-tui sent it (the messages, thinking signatures and redacted data
byte for byte, the tool ids), and pi-tui's next request must start with exactly the messages pi sent:
each reads the other's session as its own. Skipped unless PI16_BIN names an executable.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai import anthropic_threads
from pi_tui.ai.output_room import output_tokens
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.paths import pi_tui_home
from tests.interop.headless import run_main
from tests.live.pi16_anthropic_recorder import record
from tests.support.anthropic_stream import Thinking, ToolUse, anthropic_reply
from tests.support.openai_server import OpenAIServer
from tests.support.pi_anthropic import fixture, load, pi_prose_contexts

PI16_BIN = os.environ.get("PI16_BIN", "")
pytestmark = pytest.mark.skipif(
    not (PI16_BIN and os.access(PI16_BIN, os.X_OK)), reason="PI16_BIN is not set to pi 1.6's executable"
)
PI_SECONDS = 120.0


@pytest.fixture
async def anthropic_server() -> AsyncIterator[OpenAIServer]:
    """The loopback server (it speaks Anthropic's protocol on `/v1/messages`)."""
    server = OpenAIServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_markers(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [without_markers(item) for item in value]
    return value


def enqueue_turn(server: OpenAIServer, thinking: bool) -> None:
    server.enqueue(
        anthropic_reply(
            thinking=[Thinking("The user wants the date.", "sig-live-1==")] if thinking else None,
            text="Let me check.",
            calls=[ToolUse("bash", '{"command":"echo 2026-11-29"}', call_id="toolu_live_1")],
            message_id="msg_live_1",
            model="claude-think-4" if thinking else "claude-plain-4",
        ),
        anthropic_reply(
            thinking=[Thinking("Got it.", "sig-live-2==")] if thinking else None,
            redacted=["RED-live-opaque=="] if thinking else None,
            text="It is 2026-11-29.",
            message_id="msg_live_2",
            model="claude-think-4" if thinking else "claude-plain-4",
        ),
    )


async def run_pi(args: list[str], agent_dir: Path, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
    process = await asyncio.create_subprocess_exec(
        PI16_BIN,
        "--offline",
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), PI_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("name", ["a-plain", "b-thinking"])
async def test_pi16_continues_a_pi_tui_session_and_pi_tui_continues_pis(
    name: str, anthropic_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anthropic_threads.forget()
    run = load(name, "run.json")
    ref = f"{run['provider']}/{run['model']}"
    models = (
        fixture(name, "models.json").read_text(encoding="utf-8").replace("PORT", str(anthropic_server.port))
    )
    home = pi_tui_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.json").write_text(models, encoding="utf-8")
    agent_dir = tmp_path / "pi-agent"
    agent_dir.mkdir()
    (agent_dir / "models.json").write_text(models, encoding="utf-8")
    (agent_dir / "settings.json").write_text("{}", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    thinking = name == "b-thinking"

    enqueue_turn(anthropic_server, thinking)
    first = ["-p", "--model", ref, "--thinking", run["thinking"], "What is the date? Use bash."]
    assert await run_main(first, monkeypatch) == 0
    (session_file,) = sorted((home / "sessions").rglob("*.jsonl"))
    ours_second = anthropic_server.requests[-1].body

    anthropic_server.enqueue(
        anthropic_reply(text="You are welcome.", message_id="msg_live_3", model=run["model"])
    )
    code, out, err = await run_pi(
        ["--session", str(session_file), "--thinking", run["thinking"], "-p", "Thanks."], agent_dir, project
    )
    assert code == 0, err
    assert "You are welcome." in out
    pis = anthropic_server.requests[-1].body
    # pi replays pi-tui's stored turn as pi-tui sent it: user prompt, reply (signed thinking, text, tool
    # use), tool result, second reply (thinking, redacted thinking, text), then its own prompt.
    assert len(pis["messages"]) == len(ours_second["messages"]) + 2
    assert without_markers(pis["messages"][: len(ours_second["messages"])]) == without_markers(
        ours_second["messages"]
    )
    replayed = json.dumps(pis["messages"])
    if thinking:
        assert '"signature": "sig-live-1=="' in replayed and '"signature": "sig-live-2=="' in replayed
        assert '{"type": "redacted_thinking", "data": "RED-live-opaque=="}' in replayed
    assert pis["messages"][-1]["content"][-1]["text"] == "Thanks."

    anthropic_server.enqueue(anthropic_reply(text="Bye.", message_id="msg_live_4", model=run["model"]))
    assert await run_main(["-c", "-p", "Bye now."], monkeypatch) == 0
    ours_after = anthropic_server.requests[-1].body
    assert without_markers(ours_after["messages"][: len(pis["messages"])]) == without_markers(pis["messages"])
    assert ours_after["messages"][-1]["content"][-1]["text"] == "Bye now."
    assert len(ours_after["messages"]) == len(pis["messages"]) + 2


async def test_pis_output_cap_on_a_prose_estimate_is_pi_tuis_to_the_token(tmp_path: Path) -> None:
    """f-compaction recorded afresh by pi 1.6, paths unscrubbed: for the requests whose `max_tokens` pi
    clamped on an estimate of prose (the first, and the first after the compaction), pi-tui's estimate of
    the same context (pi's system prompt, tool declarations and messages) gives pi's `max_tokens`
    exactly. The committed fixture differs by the scrubbed paths' length (test_pi16_anthropic.py)."""
    requests_text, session_text = await record(Path(PI16_BIN), "f-compaction", tmp_path, scrubbed=False)
    requests = [json.loads(line) for line in requests_text.splitlines()]
    session = [json.loads(line) for line in session_text.splitlines()]
    model = ModelConfig(id="claude-plain-4", context_window=32000, max_tokens=32000, api="anthropic-messages")
    contexts = pi_prose_contexts(session, requests)
    assert sorted(contexts) == [1, 5]
    for number, context in contexts.items():
        assert output_tokens(model, context) == requests[number - 1]["body"]["max_tokens"], (
            f"request {number}"
        )
