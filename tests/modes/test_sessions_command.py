"""`pi-tui sessions` on real files: ours written by SessionStore, pi's copied from the fixtures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.store import SessionStore


def run_sessions(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) if path is None else {**os.environ, "PATH": path}
    return subprocess.run(
        [sys.executable, "-m", "pi_tui", "sessions", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def write_our_session(cwd: Path, question: str) -> SessionStore:
    store = SessionStore.create(str(cwd))
    store.append_message(UserMessage(content=[TextContent(text=question)], timestamp=1_800_000_000_000))
    store.append_message(
        AssistantMessage(
            content=[TextContent(text="ok")], provider="p", model="m", timestamp=1_800_000_001_000
        )
    )
    return store


def install_pi_fixtures(pi_fixtures: Path, project: str) -> Path:
    folder = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / cwd_folder_name(project)
    folder.mkdir(parents=True)
    for source in (pi_fixtures / "pi-sessions").glob("*.jsonl"):
        shutil.copy(source, folder / source.name)
    return folder


def test_lists_this_directory_only_by_default(tmp_path: Path, pi_fixtures: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store = write_our_session(project, "How do I parse JSON?")
    install_pi_fixtures(pi_fixtures, "/home/user/project")

    result = run_sessions("--json", cwd=project)

    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == [store.session_id]
    assert rows[0]["firstMessage"] == "How do I parse JSON?"
    assert rows[0]["messageCount"] == 2
    assert rows[0]["source"] == "pi-tui"


def test_all_includes_pi_sessions_newest_first(tmp_path: Path, pi_fixtures: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_our_session(project, "ours")
    install_pi_fixtures(pi_fixtures, "/home/user/project")

    rows = json.loads(run_sessions("--all", "--json", cwd=project).stdout)

    assert len(rows) == 5
    assert {row["source"] for row in rows} == {"pi", "pi-tui"}
    modified = [row["modified"] for row in rows]
    assert modified == sorted(modified, reverse=True)
    tree = next(row for row in rows if row["path"].endswith("f-tree.jsonl"))
    assert tree["name"] == "API cache design"
    assert tree["cwd"] == "/home/user/project"


def test_table_output_and_empty_message(tmp_path: Path, pi_fixtures: Path) -> None:
    empty = run_sessions(cwd=tmp_path)
    assert empty.stdout == "No sessions found.\n"

    install_pi_fixtures(pi_fixtures, "/home/user/project")
    table = run_sessions("--all", cwd=tmp_path).stdout.splitlines()
    assert len(table) == 4
    assert any("API cache design" in line and "[pi]" in line for line in table)


def test_rename_by_id_prefix_then_the_listing_shows_the_name(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store = write_our_session(project, "How do I parse JSON?")

    renamed = run_sessions("--rename", store.session_id[:8], "JSON parsing", cwd=project)

    assert renamed.returncode == 0, renamed.stderr
    assert "'JSON parsing'" in renamed.stdout
    [row] = json.loads(run_sessions("--json", cwd=project).stdout)
    assert row["name"] == "JSON parsing"
    refused = run_sessions("--rename", store.session_id[:8], "  ", cwd=project)
    assert refused.returncode == 1 and "cannot be empty" in refused.stderr


def test_delete_asks_first_and_with_yes_removes_the_session(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store = write_our_session(project, "Scratch work")
    assert store.path is not None

    refused = run_sessions("--delete", store.session_id, cwd=project)  # stdin is not a terminal here
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert store.path.exists()

    no_trash = str(tmp_path / "no-trash-here")  # a `trash` on this machine must not get test files
    deleted = run_sessions("--delete", store.session_id, "--yes", cwd=project, path=no_trash)
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.startswith("Session deleted") and str(store.path) in deleted.stdout
    assert not store.path.exists()
    assert json.loads(run_sessions("--json", cwd=project).stdout) == []
    missing = run_sessions("--delete", store.session_id, "--yes", cwd=project)
    assert missing.returncode == 1 and "no session id starts with" in missing.stderr
