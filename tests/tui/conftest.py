"""UI tests run at a fixed size, in UTC, on copies of real pi sessions."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_tui.config.paths import cwd_folder_name

PROJECT = "/home/user/project"


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def pi_session_root(tmp_path: Path, pi_fixtures: Path) -> Path:
    """A pi sessions folder holding every fixture session, filed under the fixtures' cwd."""
    root = tmp_path / "pi-sessions"
    folder = root / cwd_folder_name(PROJECT)
    folder.mkdir(parents=True)
    for source in sorted((pi_fixtures / "pi-sessions").glob("*.jsonl")):
        shutil.copy(source, folder / source.name)
    return root
