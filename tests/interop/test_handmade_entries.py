"""Entry types and fields the real pi fixtures lack, in a file built BY HAND from pi's types.

The fixtures hold a model change only as the first entry and no `custom`, `custom_message`,
`bashExecution`, cleared label, thinking block, image or errored assistant. This file has all of
them, written as pi would (compact JSON, pi's field names). pi-tui must read it without loss, rebuild
pi's context, send what pi would send, and continue it with pi-format entries only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.entries import entry_line
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.interop.headless import ANSWER, PROMPT, endpoint, run_main, wire_text
from tests.interop.pi_reference import pi_context, pi_labels, read_entries
from tests.interop.pi_schema import check_appended, check_session_lines
from tests.support.json_canon import canonical
from tests.support.openai_server import OpenAIServer, text_reply

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
ZERO_COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def usage(prompt: int, output: int) -> dict[str, Any]:
    return {
        "input": prompt,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": prompt + output,
        "cost": ZERO_COST,
    }


class Builder:
    """Appends entries as pi's SessionManager does: each a child of the previous, stamped in order."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.second = 0

    def add(self, kind: str, **fields: Any) -> str:
        self.second += 1
        entry_id = f"{len(self.lines) + 1:08x}"
        parent = self.lines[-1]["id"] if self.lines else None
        stamp = f"2026-11-29T20:00:{self.second:02d}.000Z"
        self.lines.append({"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields})
        return entry_id

    def ms(self) -> int:
        return 1795982400000 + (self.second + 1) * 1000


def assistant(
    builder: Builder, provider: str, model: str, content: list[Any], **extra: Any
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": provider,
        "model": model,
        "usage": usage(1200, 20),
        "stopReason": "stop",
        "timestamp": builder.ms(),
        **extra,
    }


def build(cwd: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    b = Builder()
    ids: dict[str, str] = {}
    b.add("model_change", provider="fake", modelId="fake-model")
    b.add("thinking_level_change", thinkingLevel="off")
    ids["first"] = b.add(
        "message", message={"role": "user", "content": "List the files.", "timestamp": b.ms()}
    )
    thinking = {
        "type": "thinking",
        "thinking": "The user can run ls.",
        "thinkingSignature": "reasoning_content",
    }
    reply = assistant(b, "fake", "fake-model", [thinking, {"type": "text", "text": "Run ls yourself."}])
    ids["answer"] = b.add("message", message=reply | {"responseId": "chatcmpl-1"})
    bash = {"role": "bashExecution", "command": "ls", "output": "README.md", "exitCode": 0}
    b.add("message", message=bash | {"cancelled": False, "truncated": False, "timestamp": b.ms()})
    hidden = {"role": "bashExecution", "command": "cat secrets.txt", "output": "hunter2", "exitCode": 0}
    hidden |= {"cancelled": False, "truncated": False, "timestamp": b.ms(), "excludeFromContext": True}
    b.add("message", message=hidden)
    b.add("custom", customType="todo-ext", data={"items": ["tests first"]})
    b.add(
        "custom_message",
        customType="todo-ext",
        content="Remember: tests first.",
        display=True,
        details={"n": 1},
    )
    b.add("model_change", provider="openai", modelId="m")
    b.add("thinking_level_change", thinkingLevel="low")
    image = {"type": "image", "data": PNG_1PX, "mimeType": "image/png"}
    content = [{"type": "text", "text": "And this picture?"}, image]
    b.add("message", message={"role": "user", "content": content, "timestamp": b.ms()})
    failed = assistant(b, "openai", "m", [], stopReason="error", errorMessage="Connection error.")
    b.add("message", message=failed)
    b.add(
        "message",
        message={"role": "user", "content": [{"type": "text", "text": "Try again."}], "timestamp": b.ms()},
    )
    b.add("message", message=assistant(b, "openai", "m", [{"type": "text", "text": "Done."}]))
    b.add("label", targetId=ids["first"], label="start")
    b.add("label", targetId=ids["first"])  # no `label` key: cleared
    b.add("label", targetId=ids["answer"], label="answer")
    b.add("session_info", name="Hand-made")
    header = {"type": "session", "version": 3, "id": "019ad000-0000-7000-8000-000000000001"}
    header |= {"timestamp": "2026-11-29T20:00:00.000Z", "cwd": cwd}
    return [header, *b.lines], ids


@pytest.fixture
def handmade(project: Path) -> tuple[Path, dict[str, str]]:
    import os

    objects, ids = build(str(project))
    folder = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / cwd_folder_name(str(project))
    folder.mkdir(parents=True)
    path = folder / "2026-11-29T20-00-00-000Z_019ad000-0000-7000-8000-000000000001.jsonl"
    text = "".join(json.dumps(item, separators=(",", ":"), ensure_ascii=False) + "\n" for item in objects)
    path.write_text(text, encoding="utf-8")
    return path, ids


def test_the_handmade_file_is_valid_pi_format(handmade: tuple[Path, dict[str, str]]) -> None:
    path, _ = handmade
    check_session_lines(path.read_text(encoding="utf-8").splitlines())


def test_pi_tui_reads_every_entry_without_loss(handmade: tuple[Path, dict[str, str]]) -> None:
    path, ids = handmade
    loaded = read_session_file(path)
    assert loaded.diagnostics == [] and loaded.writable
    lines = path.read_text(encoding="utf-8").splitlines()
    assert loaded.header is not None
    ours = [entry_line(loaded.header), *(entry_line(entry) for entry in loaded.entries)]
    assert [canonical(line) for line in ours] == [canonical(line) for line in lines]

    store = SessionStore.open(path)
    context = store.build_context()
    expected = pi_context(read_entries(path))
    assert [message.to_json_obj() for message in context.messages] == expected["messages"]
    assert [message["role"] for message in expected["messages"]] == [
        "user",
        "assistant",
        "bashExecution",
        "bashExecution",
        "custom",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert context.thinking_level == expected["thinkingLevel"] == "low"
    assert context.model is not None and (context.model.provider, context.model.model_id) == ("openai", "m")
    assert store.labels == pi_labels(read_entries(path)) == {ids["answer"]: "answer"}
    assert store.get_session_name() == "Hand-made"


async def test_continuing_sends_what_pi_would_and_appends_pi_entries(
    handmade: tuple[Path, dict[str, str]],
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, _ = handmade
    before = path.read_bytes()
    old_context = pi_context(read_entries(path))["messages"]
    openai_server.enqueue(text_reply(ANSWER))

    code = await run_main(["-p", "--session", str(path), *endpoint(openai_server), PROMPT], monkeypatch)

    assert code == 0, capsys.readouterr().err
    new = check_appended(before, path.read_bytes())
    # The branch's model is already openai/m and it has a thinking level: no bookkeeping entries, only
    # pi 1.6's prompt checkpoint before the request.
    assert [entry["type"] for entry in new] == ["message", "message", "message", "custom"]
    assert new[0]["message"]["role"] == "system"
    messages = [entry["message"] for entry in new if entry["type"] == "message"]
    assert pi_context(read_entries(path))["messages"] == old_context + messages

    sent = [message for message in openai_server.requests[0].body["messages"] if message["role"] != "system"]
    texts = [wire_text(message) for message in sent]
    roles = [message["role"] for message in sent]
    assert roles == ["user", "assistant", "user", "user", "user", "user", "assistant", "user"]
    assert texts[2] == "Ran `ls`\n```\nREADME.md\n```"
    assert texts[3] == "Remember: tests first."
    assert texts[-1] == PROMPT
    everything = json.dumps(sent)
    assert "hunter2" not in everything and "Connection error." not in everything
