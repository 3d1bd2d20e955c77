"""What the headless commands that take a `<session>` argument share: the parser, opening the file,
reporting a failure, printing JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pi_tui.config.paths import sessions_root
from pi_tui.modes.user_messages import report
from pi_tui.session_file.diagnostics import diagnostic_lines
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionStore


def fail(message: str) -> int:
    """Say why on stderr; exit status 1."""
    report(sys.stderr, message)
    return 1


def report_file_problems(store: SessionStore, stderr: TextIO | None = None) -> None:
    """What the loader skipped or doubted in the session file (the start page lists it too), once, on
    stderr, before the command's own output."""
    for line in diagnostic_lines(store.diagnostics):
        report(stderr if stderr is not None else sys.stderr, line)


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def open_session(arg: str, session_dir: str | None, *, writes: bool) -> SessionStore | str:
    """The session named by `arg`, or why it cannot be opened. A command that only reads never
    migrates an old-format file (that would rewrite it)."""
    resolved = resolve_session_arg(arg, os.getcwd(), root=sessions_root(session_dir))
    if isinstance(resolved, SessionArgError):
        return resolved.message
    if not resolved.is_file():
        return f"no session file at {resolved}"
    store = SessionStore.open(Path(resolved), migrate=writes)
    report_file_problems(store)
    return store


def session_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("session", help="session file path or session id prefix")
    parser.add_argument("--json", action="store_true", help="JSON instead of text")
    parser.add_argument("--session-dir", metavar="DIR", help="sessions root (default: $PI_TUI_HOME/sessions)")
    return parser
