"""What a store does when its session file changed under it (docs/reliability.md, section 14).

Before each append the writer checks that the file is still the one the store last read or wrote, at
the same length (`writer.append_lines` with `expected`). When it is not, something else wrote to it: a
second `pi-tui -p -c` on the same session, pi, `pi-tui tree --label`, a user's `: > file`. Appending
anyway forked the session silently, or wrote entries under no header. Instead, losing nothing:

- the file grew by complete entry lines (another writer appended): those entries are taken in, and this
  store's entries follow them, still children of its own last entry, so a second run's turns are a
  branch beside the first's; said in one line;
- the file was emptied (`: > file`): it is rewritten whole, header first, from what the store holds;
- anything else (cut to a part, replaced, removed, torn or foreign lines appended): the file is left as
  the other writer left it, and the session goes on in a new file of the same folder holding every
  entry the store held, its header naming the old file as its parent; said in one line with both paths.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from pydantic import ValidationError

from pi_tui.ai.valid_text import valid_json_value
from pi_tui.session_file.entries import MessageEntry, SessionEntry, parse_entry
from pi_tui.session_file.writer import SessionFileChanged, read_appended

ADOPT_LIMIT = 64 << 20
"""More than this appended by someone else is not taken in (the session moves to a new file instead)."""


def appended_entries(change: SessionFileChanged, known: Collection[str]) -> list[SessionEntry] | None:
    """The entries another writer appended, when every appended line is a complete entry with a new id;
    None otherwise (then the session moves to a new file)."""
    if not change.grew:
        return None
    try:
        data = read_appended(change.path, change.expected.size, ADOPT_LIMIT)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    if not text.endswith("\n"):
        return None  # a line still being written, or torn
    entries: list[SessionEntry] = []
    seen = set(known)
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = valid_json_value(json.loads(line))
        except (ValueError, RecursionError):
            return None
        if not isinstance(obj, dict) or obj.get("type") == "session":
            return None
        try:
            entry = parse_entry(obj)
        except ValidationError:
            return None
        if entry.id in seen:
            return None
        seen.add(entry.id)
        entries.append(entry)
    return entries


def adopted_notice(path: Path, entries: list[SessionEntry]) -> str:
    turns = any(isinstance(entry, MessageEntry) for entry in entries)
    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    text = f"another process wrote {count} to {path} while pi-tui had it open; they are kept in it"
    if turns:
        text += (
            ", and this session's turns go on from its own last entry, on a branch beside theirs "
            "(see /tree or pi-tui tree)"
        )
    return text


def rewritten_notice(path: Path, count: int) -> str:
    return (
        f"{path} was emptied by another process while pi-tui was writing it; it was rewritten whole from "
        f"what pi-tui held ({count} entries), so nothing is lost"
    )


def moved_notice(path: Path, target: Path, change: SessionFileChanged) -> str:
    found, expected = change.found, change.expected
    if found is None:
        what = "removed"
    elif (found.device, found.inode) != (expected.device, expected.inode):
        what = "replaced"
    elif found.size < expected.size:
        what = "cut short"
    else:
        what = "added to with lines that are not whole session entries"
    return (
        f"{path} was {what} by another process while pi-tui was writing it; nothing more is written "
        f"there: this session, with every entry pi-tui held, continues in {target}"
    )
