"""Reading a session file: everything loadable is loaded, everything else becomes a Diagnostic.

Nothing here raises for bad data and nothing here writes. The result says whether the file may be
appended to: a file without a valid header, an empty file, or a file of a newer format version is
read-only for pi-tui (pi would rewrite a headerless file in place; we never do).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

from pydantic import ValidationError

from pi_tui.ai.messages import SystemMessage
from pi_tui.ai.system_messages import system_message_problems
from pi_tui.ai.valid_text import valid_json_value
from pi_tui.session_file.diagnostics import Diagnostic
from pi_tui.session_file.entries import (
    CURRENT_SESSION_VERSION,
    ENTRY_ADAPTER,
    ENTRY_CLASSES,
    CompactionEntry,
    ContextEditEntry,
    MessageEntry,
    SessionEntry,
    SessionHeader,
    UnknownEntry,
    opaque_entry,
    parse_entry,
)
from pi_tui.session_file.ids import is_session_id
from pi_tui.session_file.migrations import header_version, migrate_objects

EMPTY_FILE = "empty file"


def invalid_session_id_reason(session_id: str) -> str:
    """Why a file whose header id could name any folder (`/tmp/x`, `../../x`) is opened read-only."""
    shown = session_id if len(session_id) <= 80 else session_id[:79] + "…"
    accepted = "pi's are UUIDs; letters, digits, - and _ are accepted"
    return f"its header's id {shown!r} is not a session id ({accepted})"


"""The read-only reason of a file holding nothing but whitespace (a store starts a new session in it)."""


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
            parsed.append((number, valid_json_value(json.loads(line))))
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
        result.read_only_reason = EMPTY_FILE
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
        else:
            if not is_session_id(result.header.id):
                result.read_only_reason = invalid_session_id_reason(result.header.id)
                note = f"{result.read_only_reason}; opened read-only, no folder is named after it"
                diagnostics.append(Diagnostic(path, objects[0][0], note))

        objects = objects[1:]
    _validate_entries(result, objects)
    return result


def _validate_entries(result: LoadedSession, objects: list[tuple[int, dict[str, Any]]]) -> None:
    seen: dict[str, str | None] = {}
    for number, obj in objects:
        _add_object(result, number, obj, seen)


def _add_object(result: LoadedSession, number: int, obj: dict[str, Any], seen: dict[str, str | None]) -> None:
    """Validate one parsed entry line and add it (or its diagnostic) to `result`."""
    if obj.get("type") == "session":
        result.skipped_lines += 1
        result.diagnostics.append(Diagnostic(result.path, number, "extra session header, skipped"))
        return
    try:
        entry = parse_entry(obj)
    except ValidationError as error:
        if not isinstance(obj.get("id"), str):
            result.skipped_lines += 1
            result.diagnostics.append(
                Diagnostic(result.path, number, f"invalid entry, skipped: {_describe(error)}")
            )
            return
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
    _add_entry(result, number, entry, seen)


def _add_entry(result: LoadedSession, number: int, entry: SessionEntry, seen: dict[str, str | None]) -> None:
    if entry.id in seen:
        result.diagnostics.append(Diagnostic(result.path, number, f"duplicate entry id {entry.id!r}"))
    for problem in _pi16_problems(entry, seen):
        result.diagnostics.append(Diagnostic(result.path, number, problem))
    seen[entry.id] = entry.parent_id
    result.entries.append(entry)


def _pi16_problems(entry: SessionEntry, seen: dict[str, str | None]) -> list[str]:
    """What pi 1.6 ignores in an entry it reads: a malformed part of a system message, a context edit
    whose target is missing or not on the edit's own branch (pi applies edits only there)."""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage):
        return system_message_problems(entry.message)
    if isinstance(entry, CompactionEntry) and entry.system_message is not None:
        return [f"compaction {problem}" for problem in system_message_problems(entry.system_message)]
    if isinstance(entry, ContextEditEntry):
        if entry.target_id not in seen:
            return [f"context edit of unknown entry {entry.target_id!r}, ignored"]
        if not _is_ancestor(entry.target_id, entry.parent_id, seen):
            return [f"context edit of {entry.target_id!r} on another branch, ignored"]
    return []


def _is_ancestor(target: str, start: str | None, parents: dict[str, str | None]) -> bool:
    visited: set[str] = set()
    current = start
    while current is not None and current not in visited:
        if current == target:
            return True
        visited.add(current)
        current = parents.get(current)
    return False


class _NeedsGeneralPath(Exception):
    """The streaming reader met something only the whole-file reader handles (bad UTF-8, no v3 header)."""


def _stream_session(path: Path, handle: BinaryIO) -> LoadedSession:
    """Read a v3 file line by line, each line validated straight from its JSON bytes.

    This is the path every healthy file takes, and the one that keeps big sessions cheap: no line
    list, no intermediate dicts, one entry at a time. It yields exactly what `load_session_text`
    would (same entries, diagnostics and order); any line the fast validation rejects is re-read the
    general way, and a file it cannot take whole raises `_NeedsGeneralPath`.
    """
    result = LoadedSession(path=path, header=None, entries=[])
    parse_notes: list[Diagnostic] = []
    seen: dict[str, str | None] = {}
    number = 0
    for raw in handle:
        number += 1
        result.ends_with_newline = raw.endswith(b"\n")
        if not raw.strip():
            continue
        if result.header is None:
            result.header = _v3_header(raw)
            continue
        try:
            entry = _validate_line(raw)
        except ValueError:
            _add_line_slowly(result, number, raw, seen, parse_notes)
            continue
        if isinstance(entry, UnknownEntry):
            if entry.type == "session":
                result.skipped_lines += 1
                result.diagnostics.append(Diagnostic(path, number, "extra session header, skipped"))
                continue
            message = f"unknown entry type {entry.type!r} kept as-is, not used for context"
            result.diagnostics.append(Diagnostic(path, number, message))
        _add_entry(result, number, entry, seen)
    if result.header is None:
        raise _NeedsGeneralPath
    # The whole-file reader reports unparsable lines before validation problems: keep its order.
    result.diagnostics[:0] = parse_notes
    return result


_TYPE_PREFIX = b'{"type":"'
_CLASS_BY_PREFIX = {
    _TYPE_PREFIX + kind.encode() + b'"': kind_class for kind, kind_class in ENTRY_CLASSES.items()
}


def _validate_line(raw: bytes) -> SessionEntry:
    """One line validated from its bytes; raises ValueError (ValidationError) where the union would.

    pi and pi-tui write `type` first, so the class is known from the line's start and validated
    directly: the union's discriminator is a Python function, which costs converting the whole line
    to Python objects first. A line that starts otherwise (or repeats `type`) goes through the union.
    """
    end = raw.find(b'"', len(_TYPE_PREFIX)) + 1 if raw.startswith(_TYPE_PREFIX) else 0
    kind_class = _CLASS_BY_PREFIX.get(raw[:end]) if end else None
    if kind_class is None:
        return ENTRY_ADAPTER.validate_json(raw)
    return cast(SessionEntry, kind_class.model_validate_json(raw))


def _v3_header(raw: bytes) -> SessionHeader:
    try:
        obj = valid_json_value(json.loads(raw.decode("utf-8")))
    except (ValueError, RecursionError) as error:
        raise _NeedsGeneralPath from error
    is_header = isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str)
    if not is_header or header_version(obj) != CURRENT_SESSION_VERSION:
        raise _NeedsGeneralPath
    try:
        header = SessionHeader.model_validate(obj)
    except ValidationError as error:
        raise _NeedsGeneralPath from error
    if not is_session_id(header.id):  # the whole-file reader says why the file is read-only
        raise _NeedsGeneralPath
    return header


def _add_line_slowly(
    result: LoadedSession, number: int, raw: bytes, seen: dict[str, str | None], parse_notes: list[Diagnostic]
) -> None:
    """A line the JSON-bytes validation rejected, handled exactly as the whole-file reader would."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _NeedsGeneralPath from error
    if line.endswith("\n"):
        line = line[:-1]
    if not line.strip():
        return
    try:
        # pydantic's JSON parser refuses lone surrogates (pi writes them), so such lines come here.
        obj = valid_json_value(json.loads(line))
    except (ValueError, RecursionError):
        result.skipped_lines += 1
        torn = not raw.endswith(b"\n")
        message = (
            "incomplete last line (interrupted write), skipped" if torn else "line is not valid JSON, skipped"
        )
        parse_notes.append(Diagnostic(result.path, number, message))
        return
    if not isinstance(obj, dict):
        result.skipped_lines += 1
        parse_notes.append(Diagnostic(result.path, number, "line is JSON but not an object, skipped"))
        return
    _add_object(result, number, obj, seen)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Loading allocates hundreds of thousands of objects that all survive; the cyclic collector would
    rescan the growing heap again and again (most of the load time on big files), and finds nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_session_file(path: Path) -> LoadedSession:
    """Load a file from disk; an unreadable file is an empty read-only result with a diagnostic."""
    with _collector_paused():
        try:
            with path.open("rb") as handle:
                return _stream_session(path, handle)
        except _NeedsGeneralPath:
            pass
        except OSError as error:
            return _unreadable(path, error)
        try:
            data = path.read_bytes()
        except OSError as error:
            return _unreadable(path, error)
        try:
            return load_session_text(path, data.decode("utf-8"))
        except UnicodeDecodeError:
            note = "file contains invalid UTF-8; bad bytes replaced by U+FFFD"
            return load_session_text(path, data.decode("utf-8", errors="replace"), decode_note=note)


def _unreadable(path: Path, error: OSError) -> LoadedSession:
    reason = f"unreadable: {error.strerror or error}"
    loaded = LoadedSession(path=path, header=None, entries=[], read_only_reason=reason)
    message = f"cannot read session file: {error.strerror or error}"
    loaded.diagnostics.append(Diagnostic(path, None, message))
    return loaded


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
