"""What to tell the user as a session opens for chat: whether turns can be added to it at all, and whether
others may write in the folders its files go to. The headless modes print these, the TUI shows them."""

from __future__ import annotations

from pathlib import Path

from pi_tui.config.paths import shared_write_mode
from pi_tui.session.session_setup import spill_dir_for
from pi_tui.session_file.store import SessionStore

_warned: set[Path] = set()
"""Folders already warned about in this process: a warning per folder, not one per session opened."""


def continue_refusal(store: SessionStore) -> str | None:
    """Why no turn can be added to `store`, as one line; None when it can.

    Asked before anything is sent: a reply the file cannot take would be shown and then lost."""
    reason = store.read_only_reason
    if reason is None:
        return None
    where = store.path if store.path is not None else "this session"
    return (
        f"cannot continue session {where} ({reason}): nothing was sent; pi-tui only adds to session "
        "files it fully understands, start a new session instead"
    )


def missing_tool_note(missing: list[str]) -> str | None:
    """The one line naming the tools a session's file has in force that pi-tui does not have."""
    if not missing:
        return None
    names = ", ".join(missing)
    return f"this session's tool set includes {names}, which pi-tui does not have: continuing without them"


def folder_warnings(store: SessionStore) -> list[str]:
    """One line for each existing folder of the session's files that its group or everyone may write in
    (they could remove, replace or plant links among pi-tui's files there), each folder once per process.
    Such folders are left as they are: pi-tui sets the mode only of folders it makes."""
    if store.path is None:
        return []
    spill = spill_dir_for(store)
    folders = [store.path.parent, *((spill.parent, spill) if spill is not None else ())]
    warnings = []
    for folder in folders:
        mode = shared_write_mode(folder)
        if mode is None or folder in _warned:
            continue
        _warned.add(folder)
        warnings.append(
            f"warning: {folder} may be written by others (mode {mode:o}); "
            "pi-tui keeps this session's files there but leaves the folder's mode as it is"
        )
    return warnings
