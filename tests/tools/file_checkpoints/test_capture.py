"""Capture and restore of what a tool changes, on real files: symlinks kept as symlinks and never
followed out of the project, the bash scan's bounds, and files outside the project never kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_tui.session.rewind import _write_state
from pi_tui.tools.file_checkpoints import capture as capture_module
from pi_tui.tools.file_checkpoints.capture import FileCapture, capture_state, project_relative
from pi_tui.tools.file_checkpoints.store import CheckpointStore, FileState


def make(tmp_path: Path) -> tuple[FileCapture, Path]:
    project = tmp_path / "project"
    project.mkdir()
    return FileCapture(
        CheckpointStore(tmp_path / "checkpoints", "s"), str(project), cap_bytes=1 << 30
    ), project


def test_a_symlink_is_captured_and_restored_as_a_symlink(tmp_path: Path) -> None:
    capture, project = make(tmp_path)
    (project / "real.txt").write_text("r")
    (project / "link.txt").symlink_to("real.txt")
    state = capture_state(capture.store, str(project), "link.txt")
    assert state == FileState(kind="symlink", target="real.txt")
    (project / "link.txt").unlink()
    (project / "link.txt").write_text("a plain file now")
    _write_state(capture.store, str(project), "link.txt", state)
    assert os.readlink(project / "link.txt") == "real.txt"


def test_a_restore_never_goes_through_a_folder_link_out_of_the_project(tmp_path: Path) -> None:
    capture, project = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "sub").symlink_to(outside)
    state = FileState(kind="absent")
    (outside / "victim").write_text("keep me")
    with pytest.raises(OSError, match="outside the project"):
        _write_state(capture.store, str(project), "sub/victim", state)
    assert (outside / "victim").read_text() == "keep me"
    assert project_relative(str(project), str(project / "sub" / "victim")) is None
    assert project_relative(str(project), "/etc/passwd") is None


def test_bash_changes_are_found_by_time_and_size(tmp_path: Path) -> None:
    capture, project = make(tmp_path)
    (project / "kept.txt").write_text("same")
    (project / "gone.txt").write_text("bye")
    before = capture.before_command()
    (project / "gone.txt").unlink()
    (project / "new.txt").write_text("hello")
    record = capture.after_command(before)
    changes = {change.path: (change.before.kind, change.after.kind) for change in record.files}
    assert changes == {"gone.txt": ("file", "absent"), "new.txt": ("absent", "file")}


def test_bash_scan_is_skipped_above_the_bounds_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    capture, project = make(tmp_path)
    monkeypatch.setattr(capture_module, "MAX_SCANNED_FILES", 3)
    for index in range(5):
        (project / f"f{index}").write_text("x")
    record = capture.after_command(capture.before_command())
    assert (
        record.note is not None
        and "bash may have changed files" in record.note
        and "more than 3 files" in record.note
    )
    assert not record.files
