"""Entry lists for sessions derived from another one: branched copies (fork / clone) and exports.

pi's `createBranchedSession` drops label entries from the copied path without re-linking the entry that
followed a label, which leaves that entry an orphan root in the new file. We link such an entry to the
previous kept entry instead, so the copied branch stays one connected path (the only field changed).
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_tui.session_file.entries import (
    CURRENT_SESSION_VERSION,
    LabelEntry,
    SessionEntry,
    SessionHeader,
    entry_line,
    reparented,
)
from pi_tui.session_file.ids import file_timestamp, iso_timestamp, new_entry_id
from pi_tui.session_file.tree import Labels


def session_file_name(header: SessionHeader) -> str:
    """`<ISO timestamp with : and . as ->_<session id>.jsonl`, pi's naming."""
    return f"{file_timestamp(header.timestamp)}_{header.id}.jsonl"


def branched_entries(path: Sequence[SessionEntry], labels: Labels) -> list[SessionEntry]:
    """The root→leaf `path` without label entries, then fresh label entries (original label timestamps)
    for every label whose target is on the path, chained after the last entry."""
    kept: list[SessionEntry] = []
    ids: set[str] = set()
    for entry in path:
        if isinstance(entry, LabelEntry):
            continue
        previous = kept[-1].id if kept else None
        if previous is not None and entry.parent_id != previous:
            entry = reparented(entry, previous)
        kept.append(entry)
        ids.add(entry.id)
    parent = kept[-1].id if kept else None
    for target, text in labels.text.items():
        if target not in ids:
            continue
        label = LabelEntry(
            id=new_entry_id(ids),
            parent_id=parent,
            timestamp=labels.timestamp.get(target, ""),
            target_id=target,
            label=text,
        )
        ids.add(label.id)
        kept.append(label)
        parent = label.id
    return kept


def export_lines(session_id: str, cwd: str, branch: Sequence[SessionEntry]) -> list[str]:
    """A fresh header (this session's id, now, cwd) and the branch re-chained linearly."""
    header = SessionHeader(version=CURRENT_SESSION_VERSION, id=session_id, timestamp=iso_timestamp(), cwd=cwd)
    lines = [entry_line(header)]
    previous: str | None = None
    for entry in branch:
        lines.append(entry_line(reparented(entry, previous) if entry.parent_id != previous else entry))
        previous = entry.id
    return lines
