"""pi's own folder (`$PI_CODING_AGENT_DIR/sessions`) holding copies of the real pi session files, of
both corpora: pi 0.73.1's under their own names, pi 1.6.0's prefixed `pi16-`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pi_tui.config.paths import cwd_folder_name
from tests.support.openai_server import openai_server
from tests.support.pi_corpora import PI_0_73, PI_1_6

__all__ = ["openai_server"]

PI16_PREFIX = "pi16-"
SOURCES = {name: PI_0_73.session(name) for name in PI_0_73.names} | {
    PI16_PREFIX + name: PI_1_6.session(name) for name in PI_1_6.names
}
FIXTURE_NAMES = tuple(SOURCES)
"""Every pi file of both corpora, by its name in `pi_folder`."""
PI_PROJECT = "/home/user/project"
"""The cwd in every fixture's header; it does not exist here, as after moving a project."""


@pytest.fixture
def pi_folder(pi_fixtures: Path) -> Path:
    """pi's per-cwd session folder with every fixture copied in, byte for byte, under its own name."""
    folder = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / cwd_folder_name(PI_PROJECT)
    folder.mkdir(parents=True)
    for name, source in SOURCES.items():
        shutil.copyfile(source, folder / f"{name}.jsonl")
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An existing working directory, made current."""
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.chdir(path)
    return path
