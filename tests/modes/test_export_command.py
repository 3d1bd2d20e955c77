"""`pi-tui export`: output by extension, the default name, `--json`, id prefixes, errors; the session
file is never written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.cli import build_parser
from pi_tui.modes.export_command import run_export_command
from pi_tui.session_file.store import SessionStore


def copy_fixture(pi_fixtures: Path, tmp_path: Path, name: str = "c-auto-compaction") -> Path:
    target = tmp_path / f"{name}.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / f"{name}.jsonl", target)
    return target


def test_html_by_default_named_after_the_session(
    pi_fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = copy_fixture(pi_fixtures, tmp_path)
    before, stamp = session.read_bytes(), session.stat().st_mtime_ns
    monkeypatch.chdir(tmp_path)
    assert run_export_command([str(session), "--json"]) == 0
    session_id = json.loads(session.read_text().splitlines()[0])["id"]
    out = tmp_path / f"{session_id}.html"
    result = json.loads(capsys.readouterr().out)
    assert result == {"path": str(out), "bytes": out.stat().st_size, "format": "html"}
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="compactions"' in page
    assert session.read_bytes() == before and session.stat().st_mtime_ns == stamp


def test_jsonl_by_extension_relative_to_the_cwd(
    pi_fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = copy_fixture(pi_fixtures, tmp_path, "f-tree")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    assert run_export_command([str(session), "out/branch.jsonl"]) == 0
    assert "Exported JSONL" in capsys.readouterr().out
    lines = (tmp_path / "out" / "branch.jsonl").read_text().splitlines()
    leaf = json.loads(session.read_text().splitlines()[-1])["id"]
    assert json.loads(lines[-1])["id"] == leaf
    assert json.loads(lines[0])["type"] == "session"


def test_an_id_prefix_finds_the_session_of_this_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionStore.create(str(tmp_path))
    store.append_message(UserMessage(content="hello there", timestamp=1))
    store.append_message(AssistantMessage(content=[TextContent(text="general kenobi")], timestamp=2))
    monkeypatch.chdir(tmp_path)
    assert run_export_command([store.session_id[:13], "page.html", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "html"
    assert "general kenobi" in (tmp_path / "page.html").read_text()


def test_errors_are_one_line_and_exit_1(
    pi_fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = copy_fixture(pi_fixtures, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run_export_command([str(session), "out.pdf"]) == 1
    assert "use .html or .jsonl" in capsys.readouterr().err
    assert run_export_command([str(tmp_path / "missing.jsonl")]) == 1
    assert "no session file" in capsys.readouterr().err
    assert run_export_command(["ffffffff-no-such-id"]) == 1
    assert "no session id starts with" in capsys.readouterr().err
    assert run_export_command([str(session), str(tmp_path / "no-such-dir" / "x.html")]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.html")) and not list(tmp_path.glob("*.pdf"))


def test_the_cli_dispatches_export(pi_fixtures: Path, tmp_path: Path) -> None:
    session = copy_fixture(pi_fixtures, tmp_path, "b-tools")
    done = subprocess.run(
        [sys.executable, "-m", "pi_tui", "export", str(session), "x.html", "--json", "--full-output"],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["path"] == str(tmp_path / "x.html")
    help_text = build_parser().format_help()
    assert "pi-tui export" in help_text
