"""Reading a session file: everything loadable is loaded, everything else becomes a Diagnostic.

Nothing here raises for bad data and nothing here writes. The result says whether the file may be
appended to: a file without a valid header, an empty file, or a file of a newer format version is
read-only for pi-tui (pi would rewrite a headerless file in place; we never do).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pi_tui.session.diagnostics import Diagnostic
from pi_tui.session.entries import (
    CURRENT_SESSION_VERSION,
    SessionEntry,
    SessionHeader,
    UnknownEntry,
    opaque_entry,
    parse_entry,
)
from pi_tui.session.migrations import header_version, migrate_objects


@dataclass
class LoadedSession:
    """The parsed content of one file plus what went wrong while reading it."""

    path: Path
    header: SessionHeader | None
    entries: list[SessionEntry]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    original_version: int = CURRENT_SESSION_VERSION
    migrated: bool = False
    read_only_reason: str | None = None
    ends_with_newline: bool = True
    """False when the last byte is not `\\n` (a torn write): an append must first end that line."""
    skipped_lines: int = 0

    @property
    def writable(self) -> bool:
        return self.read_only_reason is None


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    more = f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{location}: {first['msg']}{more}" if location else f"{first['msg']}{more}"


def _parse_lines(path: Path, text: str, diagnostics: list[Diagnostic]) -> tuple[list[tuple[int, Any]], int]:
    """(line number, parsed object) for every line that is JSON; a bad last line without `\\n` is torn."""
    lines = text.split("\n")
    torn_candidate = not text.endswith("\n")
    if not torn_candidate:
        lines.pop()
    parsed: list[tuple[int, Any]] = []
    skipped = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            parsed.append((number, json.loads(line)))
        except (ValueError, RecursionError):
            skipped += 1
            if torn_candidate and number == len(lines):
                message = "incomplete last line (interrupted write), skipped"
            else:
                message = "line is not valid JSON, skipped"
            diagnostics.append(Diagnostic(path, number, message))
    return parsed, skipped


def load_session_text(path: Path, text: str, *, decode_note: str | None = None) -> LoadedSession:
    """Parse, migrate (in memory only) and validate the content of a session file."""
    diagnostics: list[Diagnostic] = []
    if decode_note:
        diagnostics.append(Diagnostic(path, None, decode_note))
    parsed, skipped = _parse_lines(path, text, diagnostics)
    result = LoadedSession(
        path=path,
        header=None,
        entries=[],
        diagnostics=diagnostics,
        ends_with_newline=text == "" or text.endswith("\n"),
        skipped_lines=skipped,
    )
    objects: list[tuple[int, dict[str, Any]]] = []
    for number, obj in parsed:
        if isinstance(obj, dict):
            objects.append((number, obj))
        else:
            result.skipped_lines += 1
            diagnostics.append(Diagnostic(path, number, "line is JSON but not an object, skipped"))
    if not text.strip():
        result.read_only_reason = "empty file"
        diagnostics.append(Diagnostic(path, None, "empty session file; opened read-only"))
        return result
    first = objects[0][1] if objects else None
    has_header = first is not None and first.get("type") == "session" and isinstance(first.get("id"), str)
    if not has_header:
        result.read_only_reason = "no session header"
        line = objects[0][0] if objects else None
        diagnostics.append(Diagnostic(path, line, "first entry is not a session header; opened read-only"))
    else:
        version = header_version(objects[0][1])
        result.original_version = version
        if version > CURRENT_SESSION_VERSION:
            result.read_only_reason = f"format version {version} is newer than {CURRENT_SESSION_VERSION}"
            diagnostics.append(
                Diagnostic(
                    path,
                    objects[0][0],
                    f"session format version {version} is newer than this pi-tui "
                    f"supports ({CURRENT_SESSION_VERSION}); loaded best-effort, read-only",
                )
            )
        elif version < CURRENT_SESSION_VERSION:
            result.migrated = migrate_objects([obj for _, obj in objects], version)
        try:
            result.header = SessionHeader.model_validate(objects[0][1])
        except ValidationError as error:
            result.read_only_reason = "invalid session header"
            diagnostics.append(Diagnostic(path, objects[0][0], f"invalid session header: {_describe(error)}"))
        objects = objects[1:]
    _validate_entries(result, objects)
    return result


def _validate_entries(result: LoadedSession, objects: list[tuple[int, dict[str, Any]]]) -> None:
    seen: set[str] = set()
    for number, obj in objects:
        if obj.get("type") == "session":
            result.skipped_lines += 1
            result.diagnostics.append(Diagnostic(result.path, number, "extra session header, skipped"))
            continue
        try:
            entry = parse_entry(obj)
        except ValidationError as error:
            if not isinstance(obj.get("id"), str):
                result.skipped_lines += 1
                result.diagnostics.append(
                    Diagnostic(result.path, number, f"invalid entry, skipped: {_describe(error)}")
                )
                continue
            entry = opaque_entry(obj)
            result.diagnostics.append(
                Diagnostic(
                    result.path, number, f"invalid {obj.get('type')!r} entry kept as-is: {_describe(error)}"
                )
            )
        else:
            if isinstance(entry, UnknownEntry):
                message = f"unknown entry type {entry.type!r} kept as-is, not used for context"
                result.diagnostics.append(Diagnostic(result.path, number, message))
        if entry.id in seen:
            result.diagnostics.append(Diagnostic(result.path, number, f"duplicate entry id {entry.id!r}"))
        seen.add(entry.id)
        result.entries.append(entry)


def read_session_file(path: Path) -> LoadedSession:
    """Load a file from disk; an unreadable file is an empty read-only result with a diagnostic."""
    try:
        data = path.read_bytes()
    except OSError as error:
        loaded = LoadedSession(path=path, header=None, entries=[], read_only_reason="unreadable")
        message = f"cannot read session file: {error.strerror or error}"
        loaded.diagnostics.append(Diagnostic(path, None, message))
        return loaded
    try:
        return load_session_text(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        note = "file contains invalid UTF-8; bad bytes replaced by U+FFFD"
        return load_session_text(path, data.decode("utf-8", errors="replace"), decode_note=note)


def read_first_line(path: Path, limit: int = 1 << 20) -> dict[str, Any] | None:
    """The first line parsed as a JSON object, or None (unreadable, not JSON, not an object)."""
    try:
        with path.open("rb") as handle:
            line = handle.readline(limit)
    except OSError:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def has_session_header(path: Path) -> bool:
    """pi's validity test for `continueRecent`: the first line is a header with a string id."""
    header = read_first_line(path)
    return header is not None and header.get("type") == "session" and isinstance(header.get("id"), str)
