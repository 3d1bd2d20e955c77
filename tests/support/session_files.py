"""Building small session files by hand for loader, migration, listing and picker tests."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pi_tui.config.paths import cwd_folder_name

HEADER_ID = "01a2298d-9a92-72c7-b3e3-f020c9b72c00"


def header(version: int | None = 3, session_id: str = HEADER_ID, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": "session"}
    if version is not None:
        obj["version"] = version
    obj.update({"id": session_id, "timestamp": "2026-11-29T23:04:35.731Z", "cwd": "/home/user/project"})
    obj.update(extra)
    return obj


def user(entry_id: str, parent: str | None, text: str, ms: int = 1795993475799) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-11-29T23:04:35.814Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms},
    }


def assistant(entry_id: str, parent: str | None, text: str, ms: int = 1795993475900) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-11-29T23:04:35.988Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": {
                "input": 10,
                "output": 2,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 12,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "stop",
            "timestamp": ms,
        },
    }


def write_jsonl(path: Path, objects: list[Any], *, tail: str = "") -> Path:
    """Write one compact JSON object per line, then `tail` verbatim (e.g. a torn fragment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n" for obj in objects)
    path.write_text(text + tail, encoding="utf-8")
    return path


def read_objects(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_session(
    root: Path, cwd: str, session_id: str, texts: list[str], *, created: str, modified: str, name: str = ""
) -> Path:
    """A session file as pi-tui writes it: a header, user messages, optionally a name."""
    folder = root / cwd_folder_name(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": created, "cwd": cwd}
    ]
    parent = None
    for index, text in enumerate(texts):
        entry_id = f"{session_id[:4]}{index:04}"
        stamp = modified if index == len(texts) - 1 else created
        message = {"role": "user", "content": text, "timestamp": _ms(stamp)}
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
        )
        parent = entry_id
    if name:
        lines.append(
            {
                "type": "session_info",
                "id": "info0001",
                "parentId": parent,
                "timestamp": modified,
                "name": name,
            }
        )
    path = folder / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def write_sessions_to_resume(ours: Path, pi_sessions: Path, project: str) -> None:
    """Two of pi-tui's sessions of `project` (the newer one named `parser`) and one of pi's elsewhere:
    what the resume picker's tests and its README picture list."""
    write_session(
        ours,
        project,
        "aaaa1111",
        ["fix the parser", "and its tests"],
        created="2026-01-01T10:00:00.000Z",
        modified="2026-01-09T10:00:00.000Z",
        name="parser",
    )
    write_session(
        ours,
        project,
        "bbbb2222",
        ["add caching"],
        created="2026-01-05T10:00:00.000Z",
        modified="2026-01-06T10:00:00.000Z",
    )
    write_session(
        pi_sessions,
        "/srv/other",
        "cccc3333",
        ["deploy notes"] * 3,
        created="2026-01-02T10:00:00.000Z",
        modified="2026-01-03T10:00:00.000Z",
    )
