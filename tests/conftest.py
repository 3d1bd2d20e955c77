"""Fixtures shared by every test folder."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
# The tests folder is not a package; make `tests.support` importable from the repository root.
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

# Fixtures live in `shared/` beside the checkout (a fresh clone in CI has a copy there too).
PI_FIXTURES = _ROOT.parent / "shared" / "fixtures"


@pytest.fixture
def pi_fixtures() -> Path:
    """The folder of files written by the real pi (`pi-sessions/`, `pi-contexts/`, README.md)."""
    assert PI_FIXTURES.is_dir(), f"pi fixtures not found at {PI_FIXTURES}"
    return PI_FIXTURES


@pytest.fixture(autouse=True)
def _private_homes(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No test reads or writes the real `~/.pi-tui` or `~/.pi/agent`."""
    homes = tmp_path_factory.mktemp("homes")
    monkeypatch.setenv("PI_TUI_HOME", str(homes / "pi-tui"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(homes / "pi-agent"))
    yield
