"""`pi-tui compactions | compact | restore` run as real subprocesses, with PI_TUI_HOME set by conftest.

The commands are called through `run_*_command` (cli.py registers them), each in a fresh interpreter.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pi_tui.config.paths import session_dir_for_cwd, sessions_root
from pi_tui.context.accounting.record import messages_size
from pi_tui.context.compaction.inline_prompts import STOP_PREAMBLE, TURN_CONTEXT_DIVIDER
from pi_tui.context.compaction.preview import CompactionPreview, PreviewItem
from pi_tui.modes.compaction_commands import print_preview
from pi_tui.session.branch_run_model import branch_model
from pi_tui.session_file.entries import CompactionEntry, CustomEntry
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.session_support import long_session
from tests.support.openai_server import OpenAIServer, text_reply

_RUNNER = (
    "import sys\n"
    "from pi_tui.modes import compaction_commands as c\n"
    "sys.exit(getattr(c, sys.argv[1])(sys.argv[2:]))\n"
)


def _args(command: str, *args: str) -> list[str]:
    return [sys.executable, "-c", _RUNNER, f"run_{command}_command", *args]


def run(command: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _args(command, *args), capture_output=True, text=True, cwd=cwd, env=dict(os.environ), timeout=60
    )


def _fixture(tmp_path: Path, pi_fixtures: Path) -> Path:
    path = tmp_path / "c.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", path)
    path.chmod(0o600)
    return path


def test_timeline_as_json_and_text(tmp_path: Path, pi_fixtures: Path) -> None:
    path = _fixture(tmp_path, pi_fixtures)
    result = run("compactions", str(path), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == ["4db33679", "f66ec6cb", "25ab72d3"]
    assert rows[0]["reason"] == "unknown" and rows[0]["tokensBefore"] == 9400 and rows[0]["onCurrentBranch"]
    # pi's entries say nothing comparable about the size after, and no request after them was recorded.
    assert (rows[0]["tokensAfter"], rows[0]["tokensAfterSource"], rows[0]["entryTokensBefore"]) == (
        None,
        None,
        9400,
    )
    text = run("compactions", str(path), cwd=tmp_path)
    assert "* 4db33679" in text.stdout and "9,400 -> ?" in text.stdout


def test_show_one_compaction(tmp_path: Path, pi_fixtures: Path) -> None:
    path = _fixture(tmp_path, pi_fixtures)
    result = run("compactions", str(path), "--show", "f66ec6cb", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["summary"].startswith("## Goal")
    assert {section["heading"]: section["status"] for section in shown["diff"]}["## Progress"] == "changed"
    assert shown["audit"]["counts"]["path"]["found"] >= 2
    text = run("compactions", str(path), "--show", "f66ec6cb", cwd=tmp_path).stdout
    assert "--- diff to the previous summary ---" in text and "Unchanged: ## Goal" in text
    bad = run("compactions", str(path), "--show", "0db2ed98", cwd=tmp_path)
    assert bad.returncode == 1 and "not a compaction entry" in bad.stderr


def test_preview_uses_the_settings_and_calls_no_model(tmp_path: Path, pi_fixtures: Path) -> None:
    path = _fixture(tmp_path, pi_fixtures)
    settings = Path(os.environ["PI_TUI_HOME"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"compaction": {"keepRecentTokens": 1000}}))
    result = run("compact", str(path), "--preview", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    preview = json.loads(result.stdout)
    assert preview["firstKeptEntryId"] == "413e3f77" and preview["isSplitTurn"] is False
    assert [item["id"] for item in preview["kept"]] == ["413e3f77", "11edc4f8"]
    assert preview["summarized"][0] == {"id": "62859023", "role": "user", "tokens": 1065}
    # The whole request as a record measures it: no request was recorded, so the messages alone (pi's
    # own figure, 6,100, is the last reported usage plus chars/4).
    store = SessionStore.open(path, migrate=False)
    model, _ = branch_model(store)
    context = store.build_context()
    assert preview["tokensBefore"] == messages_size(model, context.messages, context.entry_ids)
    assert preview["tokensAfterEstimate"] < preview["tokensBefore"]
    text = run("compact", str(path), "--preview", cwd=tmp_path).stdout
    assert text.startswith("Cut before 413e3f77\nSummarised: 6 messages")
    assert path.read_bytes() == (pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl").read_bytes()


def test_preview_counts_the_rows_it_lists() -> None:
    # A split turn: one older message and the turn's own start are summarised, one message is kept.
    preview = CompactionPreview(
        first_kept_entry_id="a2",
        first_kept_index=3,
        is_split_turn=True,
        summarized=[PreviewItem("u1", "user", 40)],
        turn_prefix=[PreviewItem("u2", "user", 12)],
        kept=[PreviewItem("a2", "assistant", 30)],
        tokens_before=1300,
        tokens_after_estimate=700,
        summary_budget=800,
        has_previous_summary=False,
        read_files=[],
        modified_files=[],
    )
    out = io.StringIO()
    print_preview(preview, out)
    lines = out.getvalue().splitlines()
    listed = [line for line in lines if line.startswith("  summarised ")]
    assert len(listed) == 2
    assert lines[1] == "Summarised: 2 messages, ~52 tokens (of which turn prefix: 1 message)"
    assert lines[2] == "Kept: 1 message, ~30 tokens"
    assert lines[3] == "Tokens (whole request): ~1,300 -> ~700 (-46%) (summary up to 800)"


def test_restore_prints_the_new_leaf_and_persists_it(tmp_path: Path, pi_fixtures: Path) -> None:
    path = _fixture(tmp_path, pi_fixtures)
    result = run("restore", str(path), "25ab72d3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    leaf = result.stdout.strip()
    # What it brought back goes to stderr (stdout is the leaf id alone, for scripts).
    assert result.stderr.startswith("pi-tui: restored. Brings back the ")
    assert "the context becomes about " in result.stderr
    store = SessionStore.open(path)
    marker = store.get_entry(leaf)
    assert store.leaf_id == leaf and isinstance(marker, CustomEntry)
    assert marker.parent_id == "c7be840f" and marker.data == {"compactionId": "25ab72d3"}
    context = store.build_context()
    assert context.entry_ids[0] is None and context.entry_ids[1] == "aeb10ef8"  # the 2nd summary rules again
    bad = run("restore", str(path), "zzzz", "--json", cwd=tmp_path)
    assert bad.returncode == 1 and "zzzz is not a compaction entry" in bad.stderr
    missing = run("restore", str(tmp_path / "none.jsonl"), "x", cwd=tmp_path)
    assert missing.returncode == 1 and "no session file" in missing.stderr


async def test_compact_through_the_loopback_server_by_session_id(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # More than the 20,000 newest tokens compaction keeps: something to summarise.
    store = long_session(session_dir_for_cwd(str(project), sessions_root()), 60, cwd=str(project))
    assert store.path is not None and store.path.is_file()
    server = OpenAIServer()
    await server.start()
    try:
        # The cut falls inside a turn: one reply holds both summaries, divided as the instructions ask.
        server.enqueue(text_reply(f"## Goal\nSummarised over HTTP\n{TURN_CONTEXT_DIVIDER}\nThe turn so far"))
        process = await asyncio.create_subprocess_exec(
            *_args("compact", store.header.id[:13], "--json", "--instructions", "mind the tests",
                   "--model", "test-model", "--base-url", server.base_url, "--api-key", "sk-x"),
            cwd=project, env=dict(os.environ), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        await server.stop()
    assert process.returncode == 0, err.decode()
    outcome = json.loads(out)
    assert outcome["ok"] and outcome["summary"].startswith("## Goal\nSummarised over HTTP")
    body = server.requests[0].body
    assert body["model"] == "test-model"
    # A local server keeps the conversation's KV cache: the summary is asked inside the conversation.
    assert [message["role"] for message in body["messages"][:2]] == ["system", "user"]
    instructions = body["messages"][-1]["content"][0]["text"]
    assert instructions.startswith(STOP_PREAMBLE) and "Additional focus: mind the tests" in instructions
    assert outcome["summaryStrategy"] == "inline"
    reopened = SessionStore.open(store.path)
    entry = reopened.get_entry(outcome["entryId"])
    assert isinstance(entry, CompactionEntry) and entry.details["reason"] == "manual"
    assert entry.details["summaryStrategy"] == "inline"
    assert entry.details["model"] == "openai/test-model"
    again = run("compact", str(store.path), cwd=project)
    assert again.returncode == 1 and "Already compacted" in again.stderr
