"""Sessions for the compaction tests: a real store on disk with a few long turns."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.session_file.store import SessionStore

MODEL = ModelConfig(id="sum-model", provider="test")
SMALL = CompactionSettings(keep_recent_tokens=300, reserve_tokens=2000)


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1_800_000_000_000)


def reply(text: str, total: int = 1000, calls: list[ToolCall] | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text), *(calls or [])],
        provider="test",
        model="sum-model",
        usage=Usage(total_tokens=total),
        stop_reason="toolUse" if calls else "stop",
        timestamp=1_800_000_001_000,
    )


def long_session(folder: Path, turns: int = 4, *, cwd: str = "/work/project") -> SessionStore:
    """`turns` user/assistant pairs of ~250 tokens each, with one read and one bash call in turn 1."""
    store = SessionStore.create(cwd, folder)
    store.append_model_change("test", "sum-model")
    store.append_thinking_level_change("off")
    for turn in range(turns):
        store.append_message(user(f"Turn {turn}: look at src/mod{turn}.py " + "u" * 1000))
        if turn == 1:
            calls = [
                ToolCall(id="c1", name="read", arguments={"path": "src/mod1.py"}),
                ToolCall(id="c2", name="bash", arguments={"command": "pytest -x"}),
            ]
            store.append_message(reply("Checking.", 1500 + turn, calls))
            for call_id, name, text in (("c1", "read", "code"), ("c2", "bash", "FAILED test_x - 30s")):
                store.append_message(
                    ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])
                )
        store.append_message(reply(f"Answer {turn} " + "a" * 1000, 2000 + 500 * turn))
    return store
