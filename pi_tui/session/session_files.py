"""Renaming and deleting a session that is not open: `/resume`'s Ctrl+R / Ctrl+D and `pi-tui sessions`.

A rename appends a `session_info` entry, as `/name` does in a running session, so pi reads the same
name. A delete moves the file to the desktop trash when a `trash` command is installed (as pi does) and
removes it otherwise; pi-tui's spilled tool output for that session goes with it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_tui.session.session_setup import SPILL_FOLDER_NAME
from pi_tui.session_file.ids import is_session_id
from pi_tui.session_file.store import SessionStore

TRASH_TIMEOUT_S = 30


@dataclass(frozen=True)
class Deletion:
    """How a session left: `trash` (recoverable) or `unlink`; whether spilled output went with it."""

    method: Literal["trash", "unlink"]
    spill_removed: bool

    def describe(self) -> str:
        where = "moved to the trash" if self.method == "trash" else "deleted"
        return f"Session {where}" + (" with its spilled tool output" if self.spill_removed else "")


def rename_session_file(path: Path, name: str) -> str:
    """Name the session in `path`; returns the trimmed name. Raises ValueError for an empty name and
    SessionError / OSError when the file cannot be read or written."""
    trimmed = name.strip()
    if not trimmed:
        raise ValueError("a session name cannot be empty")
    SessionStore.open(path).append_session_info(trimmed)
    return trimmed


def session_id_of(path: Path) -> str | None:
    """The id in the session file's header line, without reading the rest of it."""
    try:
        with path.open("rb") as file:
            header = json.loads(file.readline())
    except (OSError, ValueError):
        return None
    session_id = header.get("id") if isinstance(header, dict) else None
    # Only an id of pi's shape names the spill and checkpoint folders to remove: `../../x` must not.
    return session_id if isinstance(session_id, str) and is_session_id(session_id) else None


def delete_session_file(path: Path) -> Deletion:
    """Trash (or failing that, unlink) the session file and its spill folder, and drop its file
    checkpoints. Raises OSError, with what `trash` said when it failed too, if the file stays."""
    path = path.absolute()  # an argument never starts with "-", whatever `trash` takes for options
    if not path.is_file():
        raise OSError(f"no session file at {path}")
    session_id = session_id_of(path)
    spill = path.parent / SPILL_FOLDER_NAME / session_id if session_id else None
    trash_problem = _trash(path)
    if trash_problem is None or not path.exists():
        method: Literal["trash", "unlink"] = "trash"
    else:
        try:
            path.unlink()
        except OSError as error:
            hint = f" (trash: {trash_problem})" if trash_problem else ""
            raise OSError(f"cannot delete {path}: {error.strerror or error}{hint}") from error
        method = "unlink"
    if session_id:
        from pi_tui.tools.file_checkpoints.store import CheckpointStore

        CheckpointStore.beside(path, session_id).delete_session()  # objects no other session names
    spill_removed = False
    if spill is not None and spill.is_dir():
        if method == "trash" and _trash(spill) is None:
            spill_removed = True
        else:
            shutil.rmtree(spill, ignore_errors=True)
            spill_removed = not spill.exists()
    return Deletion(method, spill_removed)


def _trash(path: Path) -> str | None:
    """None when `trash` took the path; otherwise why not ("" when no `trash` is installed)."""
    command = shutil.which("trash")
    if command is None:
        return ""
    try:
        run = subprocess.run(
            [command, str(path)], capture_output=True, text=True, timeout=TRASH_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if run.returncode == 0:
        return None
    return (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[0][:200]
