"""Renaming and deleting sessions that are not open: real files, a real `trash` command (a script on PATH)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_tui.ai.messages import TextContent, UserMessage
from pi_tui.session.session_files import delete_session_file, rename_session_file, session_id_of
from pi_tui.session.session_setup import spill_dir_for
from pi_tui.session_file.listing import summarize_session_file
from pi_tui.session_file.store import SessionStore
from tests.interop.pi_schema import check_appended


def our_session(folder: Path) -> SessionStore:
    store = SessionStore.create("/home/user/project", folder)
    store.append_message(
        UserMessage(content=[TextContent(text="Fix the tests")], timestamp=1_800_000_000_000)
    )
    spill = spill_dir_for(store)
    assert spill is not None
    spill.mkdir(parents=True)
    (spill / "bash-1.log").write_text("200,000 lines\n")
    return store


def fake_trash(bin_dir: Path, trash_dir: Path, *, works: bool) -> None:
    """A `trash` command on PATH: moves its argument into `trash_dir`, or fails like a broken one."""
    bin_dir.mkdir(exist_ok=True)
    trash_dir.mkdir(exist_ok=True)
    body = f'mv "$1" "{trash_dir}/"' if works else 'echo "trash: no trash can on this volume" >&2; exit 1'
    script = bin_dir / "trash"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)


@pytest.fixture
def no_trash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


def test_a_rename_appends_a_name_pi_reads(tmp_path: Path, pi_fixtures: Path) -> None:
    path = tmp_path / "a-plain.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "a-plain.jsonl", path)
    before = path.read_bytes()
    assert rename_session_file(path, "  Parser work  ") == "Parser work"
    [entry] = check_appended(before, path.read_bytes())
    assert entry["type"] == "session_info" and entry["name"] == "Parser work"
    summary = summarize_session_file(path)
    assert summary is not None and summary.name == "Parser work"


def test_an_empty_name_is_refused_and_nothing_written(tmp_path: Path) -> None:
    store = our_session(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()
    with pytest.raises(ValueError, match="empty"):
        rename_session_file(store.path, "   ")
    assert store.path.read_bytes() == before


def test_without_trash_the_file_and_its_spill_are_deleted(tmp_path: Path, no_trash: None) -> None:
    store = our_session(tmp_path)
    assert store.path is not None and session_id_of(store.path) == store.session_id
    deletion = delete_session_file(store.path)
    assert (deletion.method, deletion.spill_removed) == ("unlink", True)
    assert deletion.describe() == "Session deleted with its spilled tool output"
    assert not store.path.exists()
    assert not (tmp_path / "spill" / store.session_id).exists()


def test_trash_takes_the_file_and_its_spill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_trash(tmp_path / "bin", tmp_path / "Trash", works=True)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + ":/usr/bin:/bin")
    store = our_session(tmp_path / "sessions")
    assert store.path is not None
    deletion = delete_session_file(store.path)
    assert (deletion.method, deletion.spill_removed) == ("trash", True)
    assert deletion.describe().startswith("Session moved to the trash")
    assert sorted(item.name for item in (tmp_path / "Trash").iterdir()) == sorted(
        [store.path.name, store.session_id]
    )


def test_a_failing_trash_falls_back_to_deleting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_trash(tmp_path / "bin", tmp_path / "Trash", works=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + ":/usr/bin:/bin")
    store = our_session(tmp_path / "sessions")
    assert store.path is not None
    assert delete_session_file(store.path).method == "unlink"
    assert not store.path.exists()


def test_a_missing_file_is_a_clear_error(tmp_path: Path, no_trash: None) -> None:
    with pytest.raises(OSError, match="no session file at"):
        delete_session_file(tmp_path / "gone.jsonl")
