"""Session lists for the resume picker, `--session` and `-c` (the newest session of a folder).

Listing must stay fast over hundreds of files, so files are streamed line by line and only the lines
listing needs are parsed: pi and pi-tui write `type` first, so other entry types are recognised by
their line prefix and skipped unparsed. Nothing is validated beyond what the summary reads. The
functions are synchronous; front ends call them through `asyncio.to_thread` (or `list_sources_async`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pi_tui.config.paths import cwd_folder_name, pi_sessions_root, sessions_root
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.loader import has_session_header

SessionSource: TypeAlias = Literal["pi-tui", "pi"]
NO_MESSAGES = "(no messages)"
_TYPE_PREFIX = '{"type":"'
_NEEDED_PREFIXES = ('{"type":"message"', '{"type":"session_info"')


@dataclass(frozen=True)
class SessionSummary:
    """One row of a session list."""

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    source: SessionSource = "pi-tui"


def _from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "".join(str(block.get("text", "")) for block in texts)
    return ""


class _Scan:
    """What listing accumulates while streaming one file's entries."""

    def __init__(self) -> None:
        self.count = 0
        self.first_message: str | None = None
        self.name: str | None = None
        self.last_activity = 0

    def feed(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "session_info":
            name = obj.get("name")
            self.name = name.strip() or None if isinstance(name, str) else None
            return
        message = obj.get("message")
        if kind != "message" or not isinstance(message, dict):
            return
        self.count += 1
        role = message.get("role")
        if role not in ("user", "assistant"):
            return
        if role == "user" and self.first_message is None:
            self.first_message = _text_of(message.get("content"))
        stamp = message.get("timestamp")
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            moment: int | None = int(stamp)
        else:
            moment = iso_to_ms(obj["timestamp"]) if isinstance(obj.get("timestamp"), str) else None
        if moment is not None:
            self.last_activity = max(self.last_activity, moment)


def summarize_session_file(path: Path, source: SessionSource = "pi-tui") -> SessionSummary | None:
    """The listing row for one file, or None when it has no valid session header or cannot be read."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            header = _parse(handle.readline())
            if header is None or header.get("type") != "session" or not isinstance(header.get("id"), str):
                return None
            scan = _Scan()
            for line in handle:
                if line.startswith(_TYPE_PREFIX) and not line.startswith(_NEEDED_PREFIXES):
                    continue
                obj = _parse(line)
                if obj is not None:
                    scan.feed(obj)
        mtime_ms = int(path.stat().st_mtime * 1000)
    except OSError:
        return None
    header_ms = iso_to_ms(header["timestamp"]) if isinstance(header.get("timestamp"), str) else None
    modified = scan.last_activity or header_ms or mtime_ms
    parent = header.get("parentSession")
    cwd = header.get("cwd")
    return SessionSummary(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        name=scan.name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=_from_ms(header_ms if header_ms is not None else mtime_ms),
        modified=_from_ms(modified),
        message_count=scan.count,
        first_message=scan.first_message if scan.first_message is not None else NO_MESSAGES,
        source=source,
    )


def _parse(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _sorted(summaries: Iterable[SessionSummary | None]) -> list[SessionSummary]:
    present = [item for item in summaries if item is not None]
    return sorted(present, key=lambda item: item.modified, reverse=True)


def newest_session_file(folder: Path) -> Path | None:
    """The most recently modified file of `folder` with a valid session header (what `-c` continues)."""
    candidates = [item for item in folder.glob("*.jsonl") if item.is_file()] if folder.is_dir() else []
    for candidate in sorted(candidates, key=lambda item: item.stat().st_mtime, reverse=True):
        if has_session_header(candidate):
            return candidate
    return None


def list_folder(folder: Path, source: SessionSource = "pi-tui") -> list[SessionSummary]:
    """Sessions filed directly in `folder`, most recently modified first."""
    if not folder.is_dir():
        return []
    return _sorted(summarize_session_file(item, source) for item in folder.glob("*.jsonl") if item.is_file())


def list_sessions(
    cwd: str, root: Path | None = None, source: SessionSource = "pi-tui"
) -> list[SessionSummary]:
    """Sessions of one working directory under a sessions root (default: pi-tui's)."""
    return list_folder((root or sessions_root()) / cwd_folder_name(cwd), source)


def list_all_sessions(root: Path | None = None, source: SessionSource = "pi-tui") -> list[SessionSummary]:
    """Sessions of every working directory under a sessions root."""
    base = root or sessions_root()
    if not base.is_dir():
        return []
    folders = [item for item in base.iterdir() if item.is_dir()]
    return _sorted(row for folder in folders for row in list_folder(folder, source))


def list_sources(
    cwd: str | None = None, *, root: Path | None = None, pi_root: Path | None = None
) -> list[SessionSummary]:
    """pi-tui's sessions and pi's own (`~/.pi/agent/sessions`) together, tagged by `source`;
    only those of `cwd` when given."""
    ours, theirs = root or sessions_root(), pi_root or pi_sessions_root()
    if cwd is not None:
        rows = list_sessions(cwd, ours, "pi-tui") + list_sessions(cwd, theirs, "pi")
    else:
        rows = list_all_sessions(ours, "pi-tui") + list_all_sessions(theirs, "pi")
    return _sorted(rows)


async def list_sources_async(
    cwd: str | None = None, *, root: Path | None = None, pi_root: Path | None = None
) -> list[SessionSummary]:
    """`list_sources` off the event loop."""
    return await asyncio.to_thread(list_sources, cwd, root=root, pi_root=pi_root)
