"""`pi-tui sessions [--all] [--json]`: list sessions newest first, pi's own included."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from pi_tui.config.paths import pi_sessions_root, sessions_root
from pi_tui.session.listing import SessionSummary, list_sources

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
        prog="pi-tui sessions", description="List sessions, most recently active first."
    )
    parser.add_argument("--all", action="store_true", help="sessions of every directory, not just this one")
    parser.add_argument("--json", action="store_true", help="one JSON array instead of a table")
    parser.add_argument("--session-dir", metavar="DIR", help="sessions root (default: $PI_TUI_HOME/sessions)")
    options = parser.parse_args(argv)
    cwd = None if options.all else os.getcwd()
    rows = list_sources(cwd, root=sessions_root(options.session_dir), pi_root=pi_sessions_root())
    if options.json:
        json.dump([summary_json(row) for row in rows], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_table(rows, sys.stdout, show_cwd=options.all)
    return 0
