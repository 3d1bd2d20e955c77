"""pi 1.6's `buildSessionContext` and `getSessionName`, on the file's raw JSON objects.

An independent second reading of pi's rules, checked against pi's own output in `pi-contexts/` (0.73.1)
and `pi16/contexts/` (1.6.0), so a file pi-tui has appended to can be rebuilt "as pi would" without
trusting pi-tui's rebuild. pi 1.6's rules are 0.73.1's plus system messages, a compaction's
`systemMessage` and context edits; a 0.73.1 file has none of them.
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


def _projected(entry: dict[str, Any], edit: dict[str, Any] | None) -> list[dict[str, Any]]:
    if entry["type"] == "compaction":
        summary = {
            "role": "compactionSummary",
            "summary": entry["summary"],
            "tokensBefore": entry["tokensBefore"],
            "timestamp": iso_ms(entry["timestamp"]),
        }
        messages = [entry["systemMessage"], summary] if entry.get("systemMessage") else [summary]
    else:
        message = _emitted(entry)
        messages = [] if message is None else [message]
    if edit is None:
        return messages
    replacement = edit["replacement"]
    if replacement is None:
        return []
    edited = []
    for message in messages:
        if message["role"] in ("user", "assistant", "toolResult", "custom"):
            content = replacement["content"]
            if message["role"] in ("assistant", "toolResult") and isinstance(content, str):
                content = [{"type": "text", "text": content}]
            message = {**message, "content": content}
        edited.append(message)
    return edited


def pi_projection(entries: list[dict[str, Any]], leaf_id: str | None = None) -> dict[str, Any]:
    """`{leafId, thinkingLevel, model, messages, projection}` as pi 1.6 rebuilds them (leaf: the last
    entry); `projection` is `[(entry id, messages it gave)]` for every entry of the context."""
    if not entries:
        return {"leafId": None, "thinkingLevel": "off", "model": None, "messages": [], "projection": []}
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
    if compaction is None:
        chosen = path
    else:
        at = path.index(compaction)
        ids = [entry["id"] for entry in path[:at]]
        kept_from = ids.index(compaction["firstKeptEntryId"]) if compaction["firstKeptEntryId"] in ids else at
        kept = [
            entry
            for entry in path[kept_from:at]
            if not (entry["type"] == "message" and entry["message"]["role"] == "system")
        ]
        chosen = [compaction, *kept, *path[at + 1 :]]
    edits = {entry["targetId"]: entry for entry in chosen if entry["type"] == "context_edit"}
    messages: list[dict[str, Any]] = []
    projection: list[tuple[str, int]] = []
    for index, entry in enumerate(chosen):
        given = (
            [] if entry["type"] == "compaction" and index > 0 else _projected(entry, edits.get(entry["id"]))
        )
        messages.extend(given)
        projection.append((entry["id"], len(given)))
    return {
        "leafId": leaf["id"],
        "thinkingLevel": thinking,
        "model": model,
        "messages": messages,
        "projection": projection,
    }


def pi_context(entries: list[dict[str, Any]], leaf_id: str | None = None) -> dict[str, Any]:
    """`{leafId, thinkingLevel, model, messages}` as pi rebuilds them (leaf: the last entry)."""
    rebuilt = pi_projection(entries, leaf_id)
    del rebuilt["projection"]
    return rebuilt


def pi_sent(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The context messages a provider gets besides the system prompt (pi-ai's `transformMessages`):
    system messages are the prompt, failed replies are dropped, a call without a result gets one
    (`No result provided`, as for a result a context edit left out)."""
    sent: list[dict[str, Any]] = []
    pending: list[str] = []

    def close() -> None:
        sent.extend(
            {"role": "toolResult", "toolCallId": call, "content": "No result provided"} for call in pending
        )
        pending.clear()

    for message in messages:
        role = message["role"]
        if role == "system":
            continue
        if role == "assistant":
            close()
            if message["stopReason"] in ("error", "aborted"):
                continue
            pending.extend(block["id"] for block in message["content"] if block["type"] == "toolCall")
        elif role == "toolResult":
            if message["toolCallId"] in pending:
                pending.remove(message["toolCallId"])
        elif role == "user":
            close()
        sent.append(message)
    close()
    return sent


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
