"""`pi-tui context SESSION --hide ENTRY [--note TEXT] | --unhide ENTRY [--yes]`: the preview first, then
pi 1.6's `context_edit` entries, undo restoring the original, and every refusal with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.ai.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.modes.context_command import run_context_command
from pi_tui.session.compaction_pins import pin_message
from pi_tui.session_file.entries import ContextEditEntry
from pi_tui.session_file.store import SessionStore

BIG = "\n".join(f"line {n}: " + "x" * 60 for n in range(400))


def session_file(tmp_path: Path) -> tuple[SessionStore, dict[str, str]]:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    ids = {"model": store.append_model_change("openai", "gpt-test").id}
    ids["user"] = store.append_message(UserMessage(content="Read the log", timestamp=1)).id
    call = ToolCall(id="call_1", name="read", arguments={"path": "app.log"})
    ids["call"] = store.append_message(
        AssistantMessage(
            content=[call], provider="openai", model="gpt-test", usage=Usage(input=10), timestamp=2
        )
    ).id
    result = ToolResultMessage(
        tool_call_id="call_1", tool_name="read", content=[TextContent(text=BIG)], timestamp=3
    )
    ids["result"] = store.append_message(result).id
    ids["reply"] = store.append_message(
        AssistantMessage(
            content=[TextContent(text="No errors.")], provider="openai", model="gpt-test", timestamp=4
        )
    ).id
    return store, ids


def reopened(store: SessionStore) -> SessionStore:
    assert store.path is not None
    return SessionStore.open(store.path)


def test_hide_previews_first_then_writes_and_unhide_restores_the_original(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = session_file(tmp_path)
    assert store.path is not None
    before = store.path.read_text(encoding="utf-8")
    assert run_context_command([str(store.path), "--hide", ids["result"]]) == 0
    preview = capsys.readouterr().out
    assert f"Entry {ids['result']} (toolResult): left out of every later request." in preview
    assert "line 0: xxx" in preview and "more characters)" in preview
    assert "Saves ~" in preview and "tokens on every later request" in preview
    assert "the next request re-reads ~" in preview
    assert "Preview only: add --yes" in preview
    assert store.path.read_text(encoding="utf-8") == before  # nothing written

    assert run_context_command([str(store.path), "--hide", ids["result"], "--yes"]) == 0
    assert "Written: context_edit" in capsys.readouterr().out
    lines = store.path.read_text(encoding="utf-8").splitlines()
    assert "\n".join(lines[: len(before.splitlines())]) == before.rstrip("\n")  # history untouched
    edit = json.loads(lines[-1])
    assert (edit["type"], edit["targetId"], edit["replacement"]) == ("context_edit", ids["result"], None)
    hidden = reopened(store).build_context()
    assert ids["result"] not in hidden.entry_ids

    assert run_context_command([str(store.path), "--unhide", ids["result"], "--yes"]) == 0
    assert "restored to its original content" in capsys.readouterr().out
    restored = reopened(store).build_context()
    assert ids["result"] in restored.entry_ids
    index = restored.entry_ids.index(ids["result"])
    assert restored.messages[index].content == [TextContent(text=BIG)]  # type: ignore[union-attr]


def test_a_note_replaces_the_result_and_json_gives_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = session_file(tmp_path)
    assert store.path is not None
    args = [
        str(store.path),
        "--hide",
        ids["result"],
        "--note",
        "app.log: 400 lines, no errors",
        "--yes",
        "--json",
    ]
    assert run_context_command(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["action"] == "note" and report["written"]
    assert report["tokensSavedPerTurn"] > 5_000 and report["rereadTokens"] > 0
    context = reopened(store).build_context()
    message = context.messages[context.entry_ids.index(ids["result"])]
    assert isinstance(message, ToolResultMessage)
    assert message.content == [TextContent(text="app.log: 400 lines, no errors")]
    last = reopened(store).entries[-1]
    assert isinstance(last, ContextEditEntry) and last.target_id == ids["result"]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--hide", "nope"], "entry nope not found"),
        (["--hide", "@model"], "is not a message or tool result"),
        (["--unhide", "@result"], "has no context edit to undo"),
        (["--note", "x"], "--note goes with --hide ENTRY"),
    ],
)
def test_refusals_say_why_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], reason: str
) -> None:
    store, ids = session_file(tmp_path)
    assert store.path is not None
    before = store.path.read_text(encoding="utf-8")
    resolved = [ids[arg[1:]] if arg.startswith("@") else arg for arg in args]
    assert run_context_command([str(store.path), *resolved, "--yes"]) in (1, 2)
    assert reason in capsys.readouterr().err
    assert store.path.read_text(encoding="utf-8") == before


def test_hidden_twice_and_pinned_entries_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = session_file(tmp_path)
    assert store.path is not None
    assert run_context_command([str(store.path), "--hide", ids["result"], "--yes"]) == 0
    assert run_context_command([str(store.path), "--hide", ids["result"], "--yes"]) == 1
    assert "already hidden from the context" in capsys.readouterr().err
    pinned = reopened(store)
    pin_message(pinned, ids["user"])
    assert run_context_command([str(store.path), "--hide", ids["user"], "--yes"]) == 1
    assert "is pinned: pins protect it" in capsys.readouterr().err
