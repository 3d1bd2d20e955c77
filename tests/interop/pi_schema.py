"""A strict checker of pi's session format v3, written from pi's message and entry types.

It is independent of pi-tui's own models: every line is checked as plain JSON. Each entry type, message
role, content block, `usage` and `cost` has a closed set of keys (required and optional), so a key pi
does not write is an error. Every key, at any depth, must be camelCase, except inside a tool call's
`arguments` (chosen by the model). `details` (tool results, compactions, branch summaries) and a custom
entry's `data` are free-form in pi (`T = unknown`); pi reads only `readFiles` / `modifiedFiles` from a
compaction's or branch summary's details, so those must be string lists when present. The keys are
pi 1.6.0's, a superset of 0.73.1's (system messages, `context_edit`, `usage` entries and the new fields).
test_pi_schema.py shows that every line the real pi wrote passes, and that broken lines fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

ISO_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
ENTRY_ID = re.compile(r"^[0-9a-f]{8}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
CAMEL_CASE = re.compile(r"^[a-z][a-zA-Z0-9]*$")
THINKING_LEVELS = {"off", "minimal", "low", "medium", "high", "xhigh"}
STOP_REASONS = {"stop", "length", "toolUse", "error", "aborted", "deferred"}
# Message timestamps are Unix milliseconds: after 2001-09-09, before 2286.
MIN_MS, MAX_MS = 10**12, 10**13
PI_TUI_CUSTOM_PREFIX = "pi-tui."


class SchemaError(AssertionError):
    pass


Check = Callable[[Any, str], None]


def _fail(where: str, what: str) -> None:
    raise SchemaError(f"{where}: {what}")


def string(value: Any, where: str) -> None:
    if not isinstance(value, str):
        _fail(where, f"expected a string, got {value!r}")


def non_empty(value: Any, where: str) -> None:
    string(value, where)
    if not value:
        _fail(where, "empty string")


def integer(value: Any, where: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _fail(where, f"expected a non-negative integer, got {value!r}")


def number(value: Any, where: str) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        _fail(where, f"expected a non-negative number, got {value!r}")


def boolean(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        _fail(where, f"expected a boolean, got {value!r}")


def iso(value: Any, where: str) -> None:
    if not isinstance(value, str) or not ISO_TIMESTAMP.match(value):
        _fail(where, f"expected an ISO-8601 UTC timestamp like 2026-05-04T10:20:30.123Z, got {value!r}")


def millis(value: Any, where: str) -> None:
    integer(value, where)
    if not MIN_MS <= value < MAX_MS:
        _fail(where, f"expected Unix milliseconds, got {value!r}")


def nullable_id(value: Any, where: str) -> None:
    if value is not None and (not isinstance(value, str) or not ENTRY_ID.match(value)):
        _fail(where, f"expected an entry id or null, got {value!r}")


def entry_id(value: Any, where: str) -> None:
    if not isinstance(value, str) or not ENTRY_ID.match(value):
        _fail(where, f"expected an 8-hex entry id, got {value!r}")


def any_json(value: Any, where: str) -> None:
    """Free-form data: anything JSON can hold (keys are still checked for camelCase)."""


def one_of(choices: set[str]) -> Check:
    def check(value: Any, where: str) -> None:
        if value not in choices:
            _fail(where, f"expected one of {sorted(choices)}, got {value!r}")

    return check


def list_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            _fail(where, f"expected a list, got {value!r}")
        for index, element in enumerate(value):
            item(element, f"{where}[{index}]")

    return check


def obj(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    """An object with exactly these keys: all of `required`, any of `optional`, nothing else."""
    allowed = {**required, **(optional or {})}

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            _fail(where, f"expected an object, got {value!r}")
        missing = sorted(set(required) - set(value))
        if missing:
            _fail(where, f"missing {missing}")
        unknown = sorted(set(value) - set(allowed))
        if unknown:
            _fail(where, f"keys pi does not write: {unknown}")
        for key, item in value.items():
            allowed[key](item, f"{where}.{key}")

    return check


def tagged(tag: str, variants: dict[str, Check]) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict) or value.get(tag) not in variants:
            _fail(where, f"unknown {tag} {value.get(tag) if isinstance(value, dict) else value!r}")
        variants[value[tag]](value, where)

    return check


TEXT = obj({"type": string, "text": string}, {"textSignature": string})
THINKING = obj({"type": string, "thinking": string}, {"thinkingSignature": string, "redacted": boolean})
IMAGE = obj({"type": string, "data": string, "mimeType": non_empty})


def tool_arguments(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        _fail(where, f"tool call arguments must be an object, got {value!r}")


TOOL_CALL = obj(
    {"type": string, "id": non_empty, "name": non_empty, "arguments": tool_arguments},
    {"thoughtSignature": string, "namespace": string},
)
USER_BLOCK = tagged("type", {"text": TEXT, "image": IMAGE})
ASSISTANT_BLOCK = tagged("type", {"text": TEXT, "thinking": THINKING, "toolCall": TOOL_CALL})


def user_content(value: Any, where: str) -> None:
    if not isinstance(value, str):
        list_of(USER_BLOCK)(value, where)


COST = obj(
    {"input": number, "output": number, "cacheRead": number, "cacheWrite": number, "total": number},
    {"cacheWrite1h": number, "totalFromProvider": boolean},
)
USAGE = obj(
    {
        "input": integer,
        "output": integer,
        "cacheRead": integer,
        "cacheWrite": integer,
        "totalTokens": integer,
        "cost": COST,
    },
    {"reasoning": integer, "cacheWrite1h": integer},
)
DIAGNOSTIC = obj(
    {"type": non_empty, "timestamp": millis},
    {
        "error": obj({"message": string}, {"name": string, "stack": string, "code": any_json}),
        "details": any_json,
    },
)


def assistant(value: Any, where: str) -> None:
    obj(
        {
            "role": string,
            "content": list_of(ASSISTANT_BLOCK),
            "api": non_empty,
            "provider": non_empty,
            "model": non_empty,
            "usage": USAGE,
            "stopReason": one_of(STOP_REASONS),
            "timestamp": millis,
        },
        {
            "responseId": string,
            "responseModel": string,
            "diagnostics": list_of(DIAGNOSTIC),
            "errorMessage": string,
            "rawStopReason": string,
            "durationMs": integer,
            "thinkingLevel": one_of(THINKING_LEVELS),
        },
    )(value, where)
    if value["stopReason"] in ("error", "aborted") and "errorMessage" not in value:
        _fail(where, f"stopReason {value['stopReason']} without errorMessage")


def sections(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        _fail(where, f"expected an object of sections, got {value!r}")
    for name, text in value.items():
        if text is not None:
            string(text, f"{where}.{name}")


TOOL_DECLARATION = obj(
    {"name": non_empty, "description": string, "parameters": any_json}, {"constrainedSampling": any_json}
)


def tool_removal(value: Any, where: str) -> None:
    if not isinstance(value, str):
        obj({"name": non_empty})(value, where)


def system_content(value: Any, where: str) -> None:
    if not isinstance(value, str):
        list_of(TEXT)(value, where)


SYSTEM = obj(
    {"role": string, "content": system_content, "timestamp": integer},
    {"sections": sections, "toolsAdded": list_of(TOOL_DECLARATION), "toolsRemoved": list_of(tool_removal)},
)
MESSAGE = tagged(
    "role",
    {
        "system": SYSTEM,
        "user": obj({"role": string, "content": user_content, "timestamp": millis}),
        "assistant": assistant,
        "toolResult": obj(
            {
                "role": string,
                "toolCallId": non_empty,
                "toolName": non_empty,
                "content": list_of(USER_BLOCK),
                "isError": boolean,
                "timestamp": millis,
            },
            {"details": any_json, "durationMs": integer, "usage": USAGE, "nestedCalls": any_json},
        ),
        "bashExecution": obj(
            {
                "role": string,
                "command": string,
                "output": string,
                "cancelled": boolean,
                "truncated": boolean,
                "timestamp": millis,
            },
            {"exitCode": integer, "fullOutputPath": string, "excludeFromContext": boolean},
        ),
        "custom": obj(
            {
                "role": string,
                "customType": non_empty,
                "content": user_content,
                "display": boolean,
                "timestamp": millis,
            },
            {"details": any_json},
        ),
    },
)
FILE_DETAILS = obj({"readFiles": list_of(string), "modifiedFiles": list_of(string)})


def file_details(value: Any, where: str) -> None:
    """pi's `{readFiles, modifiedFiles}`; other keys are the writer's own (pi ignores them)."""
    if not isinstance(value, dict):
        _fail(where, f"expected an object, got {value!r}")
    FILE_DETAILS({key: value[key] for key in ("readFiles", "modifiedFiles") if key in value}, where)


def replacement(value: Any, where: str) -> None:
    """A context edit's `replacement`: null (left out) or `{content}` (text or content blocks)."""
    if value is not None:
        obj(
            {
                "content": lambda content, at: (
                    None if isinstance(content, str) else list_of(ANY_BLOCK)(content, at)
                )
            }
        )(value, where)


ANY_BLOCK = tagged("type", {"text": TEXT, "image": IMAGE, "thinking": THINKING, "toolCall": TOOL_CALL})
BASE = {"type": string, "id": entry_id, "parentId": nullable_id, "timestamp": iso}
ENTRY = tagged(
    "type",
    {
        "message": obj({**BASE, "message": MESSAGE}),
        "thinking_level_change": obj({**BASE, "thinkingLevel": one_of(THINKING_LEVELS)}),
        "model_change": obj({**BASE, "provider": non_empty, "modelId": non_empty}),
        "compaction": obj(
            {**BASE, "summary": non_empty, "firstKeptEntryId": entry_id, "tokensBefore": integer},
            {"details": file_details, "fromHook": boolean, "usage": USAGE, "systemMessage": SYSTEM},
        ),
        "branch_summary": obj(
            {**BASE, "fromId": non_empty, "summary": string},
            {"details": file_details, "fromHook": boolean, "usage": USAGE},
        ),
        "context_edit": obj({**BASE, "targetId": entry_id, "replacement": replacement}),
        "usage": obj({**BASE, "kind": non_empty, "provider": non_empty, "model": non_empty, "usage": USAGE}),
        "custom": obj({**BASE, "customType": non_empty}, {"data": any_json}),
        "custom_message": obj(
            {**BASE, "customType": non_empty, "content": user_content, "display": boolean},
            {"details": any_json},
        ),
        "label": obj({**BASE, "targetId": entry_id}, {"label": string}),
        "session_info": obj(BASE, {"name": string}),
    },
)


def version_3(value: Any, where: str) -> None:
    if value != 3 or isinstance(value, bool):
        _fail(where, f"expected format version 3, got {value!r}")


HEADER = obj(
    {"type": one_of({"session"}), "version": version_3, "id": non_empty, "timestamp": iso, "cwd": non_empty},
    {"parentSession": string},
)


def camel_keys(value: Any, where: str) -> None:
    """Every key camelCase, at any depth, except inside a tool call's model-chosen arguments."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not CAMEL_CASE.match(key):
                _fail(where, f"key {key!r} is not camelCase")
            if key == "arguments" and value.get("type") == "toolCall":
                continue
            if key in ("sections", "parameters"):  # pi 1.6: section names and JSON schemas are free
                continue
            camel_keys(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            camel_keys(item, f"{where}[{index}]")


def check_line_order(entry: dict[str, Any], where: str) -> None:
    """pi writes `type, id, parentId, timestamp` first; pi-tui's listing relies on `type` leading."""
    if entry.get("type") == "custom_message" and list(entry)[1] != "id":
        # pi's `appendCustomMessageEntry` writes these last (handmade files may lead with them)
        if next(iter(entry)) != "type" or list(entry)[-3:] != ["id", "parentId", "timestamp"]:
            _fail(
                where,
                f"custom_message keys are {list(entry)}, pi writes type first, id, parentId, timestamp last",
            )
        return
    if list(entry)[:4] != ["type", "id", "parentId", "timestamp"]:
        _fail(where, f"entry keys start {list(entry)[:4]}, pi writes type, id, parentId, timestamp")


def check_header(header: Any, where: str = "line 1") -> None:
    HEADER(header, where)
    camel_keys(header, where)


def check_entry(entry: Any, where: str) -> None:
    ENTRY(entry, where)
    camel_keys(entry, where)
    check_line_order(entry, where)


def check_session_lines(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Check a whole file's lines (header first) and the tree's references; returns the entries."""
    parsed = [json.loads(line) for line in lines]
    if not parsed:
        raise SchemaError("empty file")
    check_header(parsed[0])
    seen: dict[str, dict[str, Any]] = {}
    for number, entry in enumerate(parsed[1:], start=2):
        where = f"line {number}"
        check_entry(entry, where)
        if entry["id"] in seen:
            _fail(where, f"duplicate id {entry['id']}")
        if entry["parentId"] is not None and entry["parentId"] not in seen:
            _fail(where, f"parentId {entry['parentId']} names no earlier entry")
        _check_references(entry, seen, where)
        seen[entry["id"]] = entry
    return parsed[1:]


def _path_ids(entry_id_: str | None, seen: dict[str, dict[str, Any]]) -> list[str]:
    path: list[str] = []
    while entry_id_ is not None and entry_id_ in seen:
        path.append(entry_id_)
        entry_id_ = seen[entry_id_]["parentId"]
    return path


def _check_references(entry: dict[str, Any], seen: dict[str, dict[str, Any]], where: str) -> None:
    kind = entry["type"]
    if kind == "label" and entry["targetId"] not in seen:
        _fail(where, f"label targets unknown entry {entry['targetId']}")
    if kind == "branch_summary" and entry["fromId"] != "root" and entry["fromId"] not in seen:
        _fail(where, f"branch summary from unknown entry {entry['fromId']}")
    retains_none = kind == "compaction" and entry["firstKeptEntryId"] == entry["id"]  # pi 1.6
    if (
        kind == "compaction"
        and not retains_none
        and entry["firstKeptEntryId"] not in _path_ids(entry["parentId"], seen)
    ):
        _fail(where, f"firstKeptEntryId {entry['firstKeptEntryId']} is not on the compacted path")
    if kind == "message" and entry["message"]["role"] == "toolResult":
        calls = {
            block["id"]
            for ancestor in _path_ids(entry["parentId"], seen)
            if seen[ancestor]["type"] == "message" and seen[ancestor]["message"]["role"] == "assistant"
            for block in seen[ancestor]["message"]["content"]
            if block["type"] == "toolCall"
        }
        if entry["message"]["toolCallId"] not in calls:
            _fail(where, f"tool result for unknown call {entry['message']['toolCallId']}")
    if kind == "context_edit" and entry["targetId"] not in _path_ids(entry["parentId"], seen):
        _fail(where, f"context edit of {entry['targetId']}, not on its branch")


def check_appended(before: bytes, after: bytes, *, linear: bool = True) -> list[dict[str, Any]]:
    """pi-tui appended to a pi file: the old bytes are untouched, the whole file is valid pi format,
    every new line chains from the old leaf (with `linear`), and only `pi-tui.` custom entries carry
    pi-tui's own state. Returns the appended entries."""
    if not after.startswith(before):
        raise SchemaError("a pre-existing line changed")
    if not after.endswith(b"\n"):
        raise SchemaError("the file does not end with a newline")
    old_count = before.decode("utf-8").count("\n")
    entries = check_session_lines(after.decode("utf-8").splitlines())
    old, new = entries[: old_count - 1], entries[old_count - 1 :]
    if not new:
        raise SchemaError("nothing was appended")
    parent = old[-1]["id"] if old else None
    previous_stamp = max((entry["timestamp"] for entry in old), default="")
    for entry in new:
        where = f"appended entry {entry['id']}"
        if linear and entry["parentId"] != parent:
            _fail(where, f"parentId {entry['parentId']}, expected the previous leaf {parent}")
        if entry["timestamp"] < previous_stamp:
            _fail(where, f"timestamp {entry['timestamp']} earlier than {previous_stamp}")
        if entry["type"] == "custom" and not entry["customType"].startswith(PI_TUI_CUSTOM_PREFIX):
            _fail(where, f"custom entry {entry['customType']!r} is not pi-tui's")
        parent, previous_stamp = entry["id"], entry["timestamp"]
    return new
