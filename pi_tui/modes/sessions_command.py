"""`pi-tui sessions [--all] [--json]`: list sessions newest first, pi's own included.

`--rename SESSION NAME` names one (as `/name` does); `--delete SESSION` moves one to the trash (or
deletes it), after a yes on the terminal or with `--yes`. SESSION is a path or an id prefix.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pi_tui.config.paths import pi_sessions_root, sessions_root
from pi_tui.modes.session_command_support import fail
from pi_tui.modes.user_messages import os_error_text
from pi_tui.session.session_files import delete_session_file, rename_session_file
from pi_tui.session_file.listing import SessionSummary, list_sources
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionError

FIRST_MESSAGE_WIDTH = 60


def summary_json(summary: SessionSummary) -> dict[str, Any]:
    return {
        "id": summary.id,
        "path": str(summary.path),
        "cwd": summary.cwd,
        "name": summary.name,
        "firstMessage": summary.first_message,
        "messageCount": summary.message_count,
        "created": summary.created.isoformat(),
        "modified": summary.modified.isoformat(),
        "parentSessionPath": summary.parent_session_path,
        "source": summary.source,
    }


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_table(rows: Sequence[SessionSummary], out: TextIO, *, show_cwd: bool) -> None:
    if not rows:
        out.write("No sessions found.\n")
        return
    for row in rows:
        modified = row.modified.astimezone().strftime("%Y-%m-%d %H:%M")
        title = row.name or row.first_message
        where = f"  {row.cwd}" if show_cwd else ""
        source = "  [pi]" if row.source == "pi" else ""
        out.write(
            f"{row.id[:8]}  {modified}  {row.message_count:>4} msgs  "
            f"{_one_line(title, FIRST_MESSAGE_WIDTH)}{source}{where}\n"
        )


def run_sessions_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pi-tui sessions", description="List sessions, most recently active first; rename or delete one."
    )
    parser.add_argument("--all", action="store_true", help="sessions of every directory, not just this one")
    parser.add_argument("--json", action="store_true", help="one JSON array instead of a table")
    parser.add_argument("--session-dir", metavar="DIR", help="sessions root (default: $PI_TUI_HOME/sessions)")
    change = parser.add_mutually_exclusive_group()
    change.add_argument("--rename", nargs=2, metavar=("SESSION", "NAME"), help="name a session (path or id)")
    change.add_argument("--delete", metavar="SESSION", help="move a session to the trash, or delete it")
    parser.add_argument("--yes", action="store_true", help="--delete without asking")
    options = parser.parse_args(argv)
    root = sessions_root(options.session_dir)
    if options.rename:
        return _rename(options.rename[0], options.rename[1], root)
    if options.delete:
        return _delete(options.delete, root, assume_yes=options.yes)
    cwd = None if options.all else os.getcwd()
    rows = list_sources(cwd, root=root, pi_root=pi_sessions_root())
    if options.json:
        json.dump([summary_json(row) for row in rows], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_table(rows, sys.stdout, show_cwd=options.all)
    return 0


def _session_file(arg: str, root: Path) -> Path | None:
    resolved = resolve_session_arg(arg, os.getcwd(), root=root)
    if isinstance(resolved, SessionArgError):
        sys.stderr.write(f"pi-tui sessions: {resolved.message}\n")
        return None
    if not resolved.is_file():
        sys.stderr.write(f"pi-tui sessions: no session file at {resolved}\n")
        return None
    return resolved


def _rename(arg: str, name: str, root: Path) -> int:
    path = _session_file(arg, root)
    if path is None:
        return 1
    try:
        named = rename_session_file(path, name)
    except (ValueError, SessionError, OSError) as error:
        reason = os_error_text(error) if isinstance(error, OSError) else str(error)
        return fail(f"cannot rename {path}: {reason}")
    sys.stdout.write(f"Named {path} {named!r}\n")
    return 0


def _delete(arg: str, root: Path, *, assume_yes: bool) -> int:
    path = _session_file(arg, root)
    if path is None:
        return 1
    if not assume_yes:
        if not sys.stdin.isatty():
            sys.stderr.write("pi-tui sessions: --delete asks first; add --yes when not on a terminal\n")
            return 1
        answer = input(f"Delete session {path}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            sys.stdout.write("Kept.\n")
            return 1
    try:
        deletion = delete_session_file(path)
    except OSError as error:
        return fail(os_error_text(error))
    sys.stdout.write(f"{deletion.describe()}: {path}\n")
    return 0
