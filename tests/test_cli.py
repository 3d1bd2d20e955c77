"""The command line as a user meets it: real subprocesses, a private PI_TUI_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui import __version__

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PI_TUI_HOME": str(home), "PI_CODING_AGENT_DIR": str(home / "pi-agent")}
    return subprocess.run(
        [sys.executable, "-m", "pi_tui", *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_version_prints_package_version(tmp_path: Path) -> None:
    result = run_cli("--version", home=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"pi-tui {__version__}"


def test_help_names_the_subcommands(tmp_path: Path) -> None:
    result = run_cli("--help", home=tmp_path)
    assert result.returncode == 0
    assert "pi-tui sessions" in result.stdout
    assert "--session-dir" in result.stdout


def test_unknown_flag_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("--no-such-flag", home=tmp_path)
    assert result.returncode == 2
    assert "unrecognized arguments: --no-such-flag" in result.stderr


def test_fork_with_another_session_flag_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("--fork", "0190", "-c", "--no-session", "-p", "hi", home=tmp_path)
    assert result.returncode == 2
    assert "--fork cannot be combined with --continue, --no-session" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("context", "{fixture}"),
        ("context", "{fixture}", "--json"),
        ("compactions", "{fixture}", "--json"),
        ("tree", "{fixture}"),
        ("sessions", "--all"),
    ],
)
def test_a_reader_that_stops_early_gets_no_traceback(
    args: tuple[str, ...], tmp_path: Path, pi_fixtures: Path
) -> None:
    """`pi-tui context S | head -1`: the pipe is closed before pi-tui writes; it ends quietly, status 0."""
    fixture = str(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl")
    env = {**os.environ, "PI_TUI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_tui", *(arg.format(fixture=fixture) for arg in args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first byte
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
