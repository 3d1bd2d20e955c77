"""pi's own folder (`$PI_CODING_AGENT_DIR/sessions`) holding copies of the real pi session files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pi_tui.config.paths import cwd_folder_name
from tests.support.openai_server import openai_server

__all__ = ["openai_server"]

FIXTURE_NAMES = ("a-plain", "b-tools", "c-auto-compaction", "f-tree")
PI_PROJECT = "/home/user/project"
"""The cwd in every fixture's header; it does not exist here, as after moving a project."""


@pytest.fixture
def pi_folder(pi_fixtures: Path) -> Path:
    """pi's per-cwd session folder with every fixture copied in, byte for byte, under its own name."""
    folder = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / cwd_folder_name(PI_PROJECT)
    folder.mkdir(parents=True)
    for name in FIXTURE_NAMES:
        shutil.copyfile(pi_fixtures / "pi-sessions" / f"{name}.jsonl", folder / f"{name}.jsonl")
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An existing working directory, made current."""
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.chdir(path)
    return path
