"""A large, valid session file written directly as JSON lines (fast: no store, no validation).

Turns repeat user → assistant (a tool call) → tool result → assistant (text), each entry the child of
the previous one, so the whole file is one long branch as a long-lived session would be.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HEADER_ID = "01a2298d-9a92-72c7-b3e3-f020c9b72c00"
STAMP = "2026-11-29T23:04:35.814Z"
USAGE = {
    "input": 1200,
    "output": 40,
    "cacheRead": 800,
    "cacheWrite": 0,
    "totalTokens": 2040,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _message(number: int, call: str) -> dict[str, Any]:
    kind = number % 4
    if kind == 0:
        return {
            "role": "user",
            "content": [{"type": "text", "text": f"step {number}: look at file {number}.py"}],
        }
    if kind == 1:
        return {
            "role": "assistant",
            "content": [
                {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": f"{number}.py"}}
            ],
            "api": "openai-completions",
            "provider": "p",
            "model": "m",
            "usage": USAGE,
            "stopReason": "toolUse",
        }
    if kind == 2:
        return {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": "read",
            "content": [{"type": "text", "text": f"def f{number}():\n    return {number}\n"}],
            "isError": False,
        }
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": f"File {number} defines one function returning its number."}],
        "api": "openai-completions",
        "provider": "p",
        "model": "m",
        "usage": USAGE,
        "stopReason": "stop",
    }


def write_big_session(path: Path, entries: int, cwd: str = "/home/user/project") -> int:
    """Write `entries` message entries after a header; returns the file size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "version": 3, "id": HEADER_ID, "timestamp": STAMP, "cwd": cwd}
    lines = [json.dumps(header, separators=(",", ":"))]
    parent: str | None = None
    for number in range(entries):
        entry_id = f"{number:08x}"
        message = _message(number, f"call_{number - number % 4}")
        message["timestamp"] = 1795993475799 + number
        entry = {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": STAMP,
            "message": message,
        }
        lines.append(json.dumps(entry, separators=(",", ":")))
        parent = entry_id
    data = ("\n".join(lines) + "\n").encode("utf-8")
    path.write_bytes(data)
    return len(data)


def write_one_big_result(path: Path, text: str, cwd: str = "/home/user/project") -> int:
    """A session of one turn whose tool result is `text`: user → tool call → result → answer.

    The text is written in slices, so writing a 200 MB text costs no second copy of it. Returns the
    file size in bytes.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "version": 3, "id": HEADER_ID, "timestamp": STAMP, "cwd": cwd}
    placeholder = json.dumps("\x00the big text\x00")
    with path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(header, separators=(",", ":")) + "\n")
        parent: str | None = None
        for number in range(4):
            message = _message(number, "call_0")
            message["timestamp"] = 1795993475799 + number
            if message["role"] == "toolResult":
                message["content"] = [{"type": "text", "text": json.loads(placeholder)}]
            entry_id = f"{number:08x}"
            entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP}
            before, _, after = json.dumps({**entry, "message": message}, separators=(",", ":")).partition(
                placeholder
            )
            handle.write(before)
            if after:
                handle.write('"')
                for start in range(0, len(text), 1 << 20):
                    handle.write(json.dumps(text[start : start + (1 << 20)])[1:-1])
                handle.write('"' + after)
            handle.write("\n")
            parent = entry_id
    return path.stat().st_size
