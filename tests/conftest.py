"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.app
import textual.timer

_ROOT = Path(__file__).resolve().parents[1]
# The tests folder is not a package; make `tests.support` importable from the repository root.
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from tests.support.clocks import StallingTimerClock, clock_started_at  # noqa: E402
from tests.support.fast_tier import MARKER, mark_full_only, refuse_pilot  # noqa: E402
from tests.support.openai_server import keep_alive_server  # noqa: E402

__all__ = ["keep_alive_server"]  # a fixture for every test folder

# pytest-xdist workers (and some shells) export COLUMNS/LINES; they override a terminal's real size in
# every program started from a test (Textual asks shutil.get_terminal_size), so tmux tests drew at 80x24.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

if os.environ.get("PI_TUI_TEST_FRESH_BOOT") == "1":
    # The whole suite as on a machine booted a moment ago (see README, Development).
    time.monotonic = clock_started_at(0.05)

# Files written by the real pi, kept byte-identical inside the repository (see tests/fixtures/README.md).
PI_FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def pi_fixtures() -> Path:
    """The folder of files written by the real pi (`pi-sessions/`, `pi-contexts/`, `pi-requests/`)."""
    assert PI_FIXTURES.is_dir(), f"pi fixtures not found at {PI_FIXTURES}"
    return PI_FIXTURES


@pytest.fixture
def freshly_booted(monkeypatch: pytest.MonkeyPatch) -> None:
    """`time.monotonic()` reads 0.2 s, as on a machine that has just booted."""
    monkeypatch.setattr(time, "monotonic", clock_started_at(0.2))


@pytest.fixture
def stalling_timers(monkeypatch: pytest.MonkeyPatch) -> StallingTimerClock:
    """Textual's timers read a clock the test can make jump, as a held-up process sees it."""
    clock = StallingTimerClock()
    monkeypatch.setattr(textual.timer, "_time", clock)
    return clock


@pytest.fixture(autouse=True)
def _private_homes(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No test reads or writes the real `~/.pi-tui` or `~/.pi/agent`, nor reads the user's git settings."""
    homes = tmp_path_factory.mktemp("homes")
    monkeypatch.setenv("PI_TUI_HOME", str(homes / "pi-tui"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(homes / "pi-agent"))
    # The ignore rules read the user's git excludes file: the machine's must not change what tests list.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(homes / "config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # `make test-fast` is `-m "not full_only"` (tests/support/fast_tier.py says what is full-only).
    mark_full_only(items)


@pytest.fixture(autouse=True)
def _no_pilot_in_fast_tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked full_only that starts the app fails in every run: the fast tier cannot take it."""
    if request.node.get_closest_marker(MARKER) is None:
        monkeypatch.setattr(textual.app.App, "run_test", refuse_pilot)
