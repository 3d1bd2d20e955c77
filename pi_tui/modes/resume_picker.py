"""`-r/--resume` without the TUI: a numbered list of this directory's sessions (pi-tui's and pi's) on
stderr, and the choice read from stdin, so stdout stays clean for the run that follows.

With no choice on stdin (a closed pipe or nothing typed), the list stays on screen and the caller
exits with a message saying how to pick a session without the prompt (`--session <id>`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pi_tui.session_file.listing import SessionSummary, list_sources

TITLE_WIDTH = 60
NO_SESSIONS = "No sessions to resume in this directory."
NO_CHOICE = "No session chosen: type its number, or pass --session <id> (ids as listed above)."


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_WIDTH else flat[: TITLE_WIDTH - 1] + "…"


@dataclass(frozen=True)
class PickerError:
    message: str


def format_choices(rows: Sequence[SessionSummary]) -> str:
    """One numbered line per session, newest first: number, id prefix, time, size, name or first text."""
    lines = []
    width = len(str(len(rows)))
    for number, row in enumerate(rows, start=1):
        modified = row.modified.astimezone().strftime("%Y-%m-%d %H:%M")
        title = _title(row.name or row.first_message)
        source = "  [pi]" if row.source == "pi" else ""
        lines.append(
            f"{number:>{width}}) {row.id[:8]}  {modified}  {row.message_count:>4} msgs  {title}{source}"
        )
    return "\n".join(lines) + "\n"


def parse_choice(answer: str, count: int) -> int | PickerError:
    """The 0-based index for a typed number; an error value for anything else."""
    text = answer.strip()
    if not text:
        return PickerError(NO_CHOICE)
    if not text.isdigit() or not 1 <= int(text) <= count:
        return PickerError(f"Not a session number: {text!r} (choose 1-{count}).")
    return int(text) - 1


def pick_session(
    cwd: str,
    *,
    stdin: TextIO,
    stderr: TextIO,
    root: Path | None = None,
    pi_root: Path | None = None,
) -> Path | PickerError:
    """List, ask, read one line: the chosen session's path, or why there is none."""
    rows = list_sources(cwd, root=root, pi_root=pi_root)
    if not rows:
        return PickerError(NO_SESSIONS)
    stderr.write(format_choices(rows))
    stderr.write(f"Resume which session? [1-{len(rows)}] ")
    stderr.flush()
    answer = stdin.readline()
    if not answer.endswith("\n"):
        stderr.write("\n")
    choice = parse_choice(answer, len(rows))
    if isinstance(choice, PickerError):
        return choice
    return rows[choice].path
