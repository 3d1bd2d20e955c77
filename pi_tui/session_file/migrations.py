"""Upgrading older session files to format v3, as pi does, and replacing a file atomically.

Migrations work on the parsed JSON objects, before validation, exactly as pi's `migrateSessionEntries`:
v1 → v2 gives every entry an id and chains the entries linearly (`firstKeptEntryIndex` becomes
`firstKeptEntryId`), v2 → v3 renames the message role `hookMessage` to `custom`.

A migrated file is written as a new file and renamed over the original (never rewritten in place).
The original is kept beside it as `<name>.v<old version>.bak`: the rewrite contains only what could
be parsed, so a corrupt line of an old file would otherwise be gone; the backup is not a `.jsonl`,
so listings ignore it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from pi_tui.config.paths import SESSION_FILE_MODE
from pi_tui.session_file.diagnostics import Diagnostic
from pi_tui.session_file.entries import CURRENT_SESSION_VERSION, SessionEntry, SessionHeader, entry_line
from pi_tui.session_file.ids import new_entry_id

BACKUP_SUFFIX = ".bak"
LEGACY_ROLE = "hookMessage"


def header_version(header: dict[str, Any]) -> int:
    """A header without a numeric `version` is a version-1 file."""
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def _v1_to_v2(objects: list[dict[str, Any]]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    migrated: list[dict[str, Any]] = []
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = 2
            migrated.append(obj)
            continue
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        # Rebuild so the new base fields sit where pi's v2 writer puts them (after `type`).
        rest = {key: value for key, value in obj.items() if key not in ("type", "id", "parentId")}
        rebuilt = {"type": obj.get("type"), "id": entry_id, "parentId": previous, **rest}
        if rebuilt.get("type") == "compaction" and "firstKeptEntryIndex" in rebuilt:
            index = rebuilt.pop("firstKeptEntryIndex")
            if isinstance(index, int) and 0 <= index < len(migrated):
                target = migrated[index]
                if target.get("type") != "session":
                    rebuilt["firstKeptEntryId"] = target["id"]
        obj.clear()
        obj.update(rebuilt)
        migrated.append(obj)
        previous = entry_id


def _v2_to_v3(objects: list[dict[str, Any]]) -> None:
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = 3
            continue
        message = obj.get("message")
        if obj.get("type") == "message" and isinstance(message, dict) and message.get("role") == LEGACY_ROLE:
            message["role"] = "custom"


def migrate_objects(objects: list[dict[str, Any]], from_version: int) -> bool:
    """Upgrade header + entries (file order, header first) in place to v3; True if anything changed.

    v1 `firstKeptEntryIndex` counts lines including the header, as pi's v1 writer did.
    """
    if from_version >= CURRENT_SESSION_VERSION:
        return False
    if from_version < 2:
        _v1_to_v2(objects)
    _v2_to_v3(objects)
    return True


def backup_path(path: Path, version: int) -> Path:
    return path.with_name(f"{path.name}.v{version}{BACKUP_SUFFIX}")


def write_migrated_file(
    path: Path,
    header: SessionHeader,
    entries: list[SessionEntry],
    version: int,
    migrate: bool,
    diagnostics: list[Diagnostic],
) -> str | None:
    """Replace an old-format file by its v3 form (`migrate=False`: leave it); None when that happened,
    else why the store stays read-only. What was done is added to `diagnostics`."""
    if not migrate:
        return f"format v{version} not migrated"
    text = "".join(f"{entry_line(item)}\n" for item in [header, *entries])
    backup = backup_path(path, version)
    try:
        replace_file_atomically(path, text, keep_backup_as=backup)
    except OSError as error:
        diagnostics.append(Diagnostic(path, None, f"could not migrate from format v{version}: {error}"))
        return f"format v{version} could not be migrated"
    diagnostics.append(
        Diagnostic(path, None, f"migrated from format v{version}; original kept as {backup.name}")
    )
    return None


def replace_file_atomically(path: Path, text: str | bytes, *, keep_backup_as: Path | None = None) -> None:
    """Write `text` to a new 0600 file beside `path`, fsync it, and rename it over `path` (a link there
    is replaced, never written through).

    Readers see the old file or the new one, never a mix. With `keep_backup_as`, the original is first
    hard-linked there (copied where links are unsupported), so a migration never loses the only copy of
    lines it could not parse.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, SESSION_FILE_MODE)
    try:
        data = text if isinstance(text, bytes) else text.encode("utf-8", errors="surrogatepass")
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    if keep_backup_as is not None and not keep_backup_as.exists():
        try:
            os.link(path, keep_backup_as)
        except OSError:
            shutil.copy2(path, keep_backup_as)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    """Make a created or renamed directory entry durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
