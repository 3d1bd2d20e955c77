"""pi's `buildSessionContext` and `getSessionName`, on the file's raw JSON objects.

An independent second reading of pi's rules, checked against pi's own output in `pi-contexts/`, so a
file pi-tui has appended to can be rebuilt "as pi would" without trusting pi-tui's rebuild.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any


def iso_ms(stamp: str) -> int:
    return round(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def read_entries(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def _emitted(entry: dict[str, Any]) -> dict[str, Any] | None:
    kind = entry["type"]
    if kind == "message":
        message: dict[str, Any] = entry["message"]
        return message
    if kind == "custom_message":
        custom = {
            "role": "custom",
            "customType": entry["customType"],
            "content": entry["content"],
            "display": entry["display"],
            "details": entry.get("details"),
            "timestamp": iso_ms(entry["timestamp"]),
        }
        return {key: value for key, value in custom.items() if value is not None}
    if kind == "branch_summary" and entry["summary"]:
        return {
            "role": "branchSummary",
            "summary": entry["summary"],
            "fromId": entry["fromId"],
            "timestamp": iso_ms(entry["timestamp"]),
        }
    return None


def pi_context(entries: list[dict[str, Any]], leaf_id: str | None = None) -> dict[str, Any]:
    """`{leafId, thinkingLevel, model, messages}` as pi rebuilds them (leaf: the last entry)."""
    if not entries:
        return {"leafId": None, "thinkingLevel": "off", "model": None, "messages": []}
    by_id = {entry["id"]: entry for entry in entries}
    leaf = by_id.get(leaf_id) if leaf_id is not None else None
    leaf = leaf or entries[-1]
    path: list[dict[str, Any]] = []
    current: dict[str, Any] | None = leaf
    while current is not None:
        path.append(current)
        parent = current["parentId"]
        current = by_id.get(parent) if parent is not None and parent != current["id"] else None
    path.reverse()
    thinking, model, compaction = "off", None, None
    for entry in path:
        if entry["type"] == "thinking_level_change":
            thinking = entry["thinkingLevel"]
        elif entry["type"] == "model_change":
            model = {"provider": entry["provider"], "modelId": entry["modelId"]}
        elif entry["type"] == "message" and entry["message"]["role"] == "assistant":
            model = {"provider": entry["message"]["provider"], "modelId": entry["message"]["model"]}
        elif entry["type"] == "compaction":
            compaction = entry
    messages: list[dict[str, Any]] = []
    if compaction is None:
        chosen = path
    else:
        messages.append(
            {
                "role": "compactionSummary",
                "summary": compaction["summary"],
                "tokensBefore": compaction["tokensBefore"],
                "timestamp": iso_ms(compaction["timestamp"]),
            }
        )
        at = path.index(compaction)
        ids = [entry["id"] for entry in path[:at]]
        kept_from = ids.index(compaction["firstKeptEntryId"]) if compaction["firstKeptEntryId"] in ids else at
        chosen = path[kept_from:at] + path[at + 1 :]
    for entry in chosen:
        message = _emitted(entry)
        if message is not None:
            messages.append(message)
    return {"leafId": leaf["id"], "thinkingLevel": thinking, "model": model, "messages": messages}


def pi_session_name(entries: list[dict[str, Any]]) -> str | None:
    for entry in reversed(entries):
        if entry["type"] == "session_info":
            return (entry.get("name") or "").strip() or None
    return None


def pi_labels(entries: list[dict[str, Any]]) -> dict[str, str]:
    """target id → label, the latest label entry per target winning; an absent or empty label clears."""
    labels: dict[str, str] = {}
    for entry in entries:
        if entry["type"] == "label":
            if entry.get("label"):
                labels[entry["targetId"]] = entry["label"]
            else:
                labels.pop(entry["targetId"], None)
    return labels
