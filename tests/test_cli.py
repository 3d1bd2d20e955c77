"""The command line as a user meets it: real subprocesses, a private PI_TUI_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pi_tui import __version__


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
