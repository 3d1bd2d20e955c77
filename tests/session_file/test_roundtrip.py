"""A session written by pi-tui reads back through the same models, line for line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.session_file.entries import entry_line
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support.json_canon import canonical
from tests.support.waiting import until_sync


def _write_full_session(root: Path) -> SessionStore:
    store = SessionStore.create("/home/user/project", root=root)
    store.append_model_change("fake", "fake-model")
    store.append_thinking_level_change("off")
    ask = store.append_message(UserMessage(content=[TextContent(text="Read notes ✓ \ud83d")], timestamp=1))
    store.append_message(
        AssistantMessage(
            content=[
                ThinkingContent(thinking="hmm", thinking_signature="sig"),
                TextContent(text="Reading."),
                ToolCall(id="call_1", name="read", arguments={"path": "notes.txt", "limit": 1.5}),
            ],
            provider="fake",
            model="fake-model",
            usage=Usage(input=1390, output=14, total_tokens=1404),
            stop_reason="toolUse",
            timestamp=2,
            response_id="chatcmpl-1",
        )
    )
    store.append_message(
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="read",
            content=[TextContent(text="TODO\n\x1b[31m")],
            details={"truncation": {"truncated": False}},
            timestamp=3,
        )
    )
    store.append_message(BashExecutionMessage(command="ls", output="a\n", exit_code=0, timestamp=4))
    store.append_compaction("summary", ask.id, 1404, {"readFiles": ["notes.txt"], "modifiedFiles": []}, False)
    store.branch_with_summary(ask.id, "explored", {"readFiles": [], "modifiedFiles": []}, False)
    store.append_label(ask.id, "start")
    store.append_session_info("Full session")
    store.append_custom("pi-tui.request", {"tokens": 1234, "ratio": 0.000054})
    store.append_custom_message("ext.note", "hello", display=True, details={"n": 1})
    return store


def test_pi_tui_written_session_reloads_with_the_same_models(tmp_path: Path) -> None:
    store = _write_full_session(tmp_path)
    assert store.path is not None
    loaded = read_session_file(store.path)
    assert loaded.diagnostics == []
    assert loaded.header == store.header
    lines = store.path.read_text(encoding="utf-8").splitlines()
    # Entry 2's text ends in a lone surrogate: written escaped as JSON.stringify does, and dropped when
    # read (pi's sanitizeSurrogates, docs/reliability.md section 12); every other entry comes back as is.
    assert loaded.entries[:2] + loaded.entries[3:] == store.entries[:2] + store.entries[3:]
    assert [entry_line(entry) for entry in loaded.entries[:2] + loaded.entries[3:]] == lines[1:3] + lines[4:]
    assert entry_line(loaded.entries[2]) == lines[3].replace("\\ud83d", "")
    assert '"ratio":0.000054' in lines[-2]  # JavaScript number text
    assert "\\ud83d" in lines[3]  # a lone surrogate is escaped, as JSON.stringify does
    assert canonical(lines[-2]) != canonical(lines[-2].replace("0.000054", "5.4e-05"))
    reopened = SessionStore.open(store.path)
    assert reopened.get_session_name() == "Full session"
    assert reopened.labels == store.labels
    rebuilt, live = reopened.build_context(), store.build_context()
    assert rebuilt.messages[1:] == live.messages[1:]
    assert rebuilt.messages[0] == live.messages[0].model_copy(
        update={"content": [TextContent(text="Read notes ✓ ")]}
    )


_CRASH_WRITER = """
import sys
from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.session_file.store import SessionStore
store = SessionStore.create("/p", root=__import__("pathlib").Path(sys.argv[1]))
store.append_message(AssistantMessage(content=[TextContent(text="x")], timestamp=1))
print(store.path, flush=True)
i = 0
while True:
    store.append_message(UserMessage(content="line %d " % i + "y" * 5000, timestamp=i))
    i += 1
"""


def test_kill_9_loses_at_most_the_entry_being_written(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen(
        [sys.executable, "-c", _CRASH_WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    path = Path(process.stdout.readline().strip())
    until_sync(lambda: path.stat().st_size >= 200_000, what="the writer to write 200 kB")
    process.send_signal(signal.SIGKILL)
    process.wait()
    loaded = read_session_file(path)
    assert len(loaded.entries) > 20
    assert len(loaded.diagnostics) <= 1
    if loaded.diagnostics:
        assert loaded.diagnostics[0].line_number == len(path.read_text().split("\n"))
    # the survivors form one unbroken chain
    ids = [entry.id for entry in loaded.entries]
    assert [entry.parent_id for entry in loaded.entries[1:]] == ids[:-1]
