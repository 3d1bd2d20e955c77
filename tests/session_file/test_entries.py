from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from pi_tui.ai.js_json import js_dumps
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    UsageEntry,
    entry_line,
    parse_entry,
    reparented,
)

BASE = {"id": "0a1b2c3d", "parentId": "ffffeeee", "timestamp": "2026-11-29T23:04:35.750Z"}
PI16_USAGE = {
    "input": 10,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "reasoning": 1,
    "totalTokens": 12,
    "cost": {
        "input": 0.1,
        "output": 0.2,
        "cacheRead": 0,
        "cacheWrite": 0,
        "total": 0.3,
        "totalFromProvider": False,
    },
}

EXAMPLES: list[tuple[type[Any], dict[str, Any]]] = [
    (
        MessageEntry,
        {
            "type": "message",
            **BASE,
            "message": {
                "role": "bashExecution",
                "command": "ls",
                "output": "a\n",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1795993475799,
            },
        },
    ),
    (ThinkingLevelChangeEntry, {"type": "thinking_level_change", **BASE, "thinkingLevel": "medium"}),
    (ModelChangeEntry, {"type": "model_change", **BASE, "provider": "fake", "modelId": "fake-model"}),
    (
        CompactionEntry,
        {
            "type": "compaction",
            **BASE,
            "summary": "s",
            "firstKeptEntryId": "12345678",
            "tokensBefore": 9400,
            "details": {"readFiles": ["a"], "modifiedFiles": []},
            "fromHook": False,
        },
    ),
    (
        BranchSummaryEntry,
        {
            "type": "branch_summary",
            **BASE,
            "fromId": "ffffeeee",
            "summary": "b",
            "details": {"readFiles": [], "modifiedFiles": ["x.py"]},
            "fromHook": False,
        },
    ),
    (CustomEntry, {"type": "custom", **BASE, "customType": "pi-tui.request", "data": {"n": 0.5}}),
    (
        CustomMessageEntry,
        {  # pi's `appendCustomMessageEntry` writes the entry's own fields before id, parentId, timestamp
            "type": "custom_message",
            "customType": "ext",
            "content": [{"type": "text", "text": "t"}],
            "display": True,
            "details": {"k": [1, 2]},
            **BASE,
        },
    ),
    (ContextEditEntry, {"type": "context_edit", **BASE, "targetId": "12345678", "replacement": None}),
    (
        ContextEditEntry,
        {
            "type": "context_edit",
            **BASE,
            "targetId": "12345678",
            "replacement": {"content": [{"type": "text", "text": "[redacted]"}]},
        },
    ),
    (
        ContextEditEntry,
        {"type": "context_edit", **BASE, "targetId": "12345678", "replacement": {"content": "x"}},
    ),
    (
        UsageEntry,
        {
            "type": "usage",
            **BASE,
            "kind": "some_future_kind",
            "provider": "fake",
            "model": "fake-model",
            "usage": PI16_USAGE,
        },
    ),
    (
        CompactionEntry,
        {
            "type": "compaction",
            **BASE,
            "summary": "s",
            "firstKeptEntryId": "0a1b2c3d",
            "tokensBefore": 9400,
            "details": {"readFiles": [], "modifiedFiles": []},
            "usage": PI16_USAGE,
            "fromHook": False,
            "systemMessage": {
                "role": "system",
                "content": "",
                "sections": {"preamble": "p"},
                "toolsAdded": [{"name": "read", "description": "d", "parameters": {"type": "object"}}],
                "timestamp": 1795993475799,
            },
        },
    ),
    (
        BranchSummaryEntry,
        {
            "type": "branch_summary",
            **BASE,
            "fromId": "12345678",
            "summary": "b",
            "details": {"readFiles": [], "modifiedFiles": []},
            "usage": PI16_USAGE,
            "fromHook": False,
        },
    ),
    (
        MessageEntry,
        {
            "type": "message",
            **BASE,
            "message": {
                "role": "system",
                "content": "",
                "sections": {"rules": None, "tools": "t"},
                "timestamp": 1795993475799,
                "toolsRemoved": [{"name": "edit"}],
            },
        },
    ),
    (LabelEntry, {"type": "label", **BASE, "targetId": "12345678", "label": "checkpoint"}),
    (LabelEntry, {"type": "label", **BASE, "targetId": "12345678"}),
    (SessionInfoEntry, {"type": "session_info", **BASE, "name": "API cache design"}),
]


@pytest.mark.parametrize(
    ("kind", "obj"), EXAMPLES, ids=[f"{o['type']}-{i}" for i, (_, o) in enumerate(EXAMPLES)]
)
def test_every_entry_type_round_trips(kind: type[Any], obj: dict[str, Any]) -> None:
    entry = parse_entry(obj)
    assert type(entry) is kind
    line = entry_line(entry)
    assert line == js_dumps(obj)  # same keys, same order, same number text
    assert parse_entry(json.loads(line)) == entry


def test_root_entries_write_parent_id_null() -> None:
    entry = ModelChangeEntry(id="abcdabcd", timestamp="2026-11-29T23:04:35.750Z", provider="p", model_id="m")
    assert entry_line(entry) == (
        '{"type":"model_change","id":"abcdabcd","parentId":null,"timestamp":"2026-11-29T23:04:35.750Z",'
        '"provider":"p","modelId":"m"}'
    )


def test_header_field_order_and_optional_parent_session() -> None:
    header = SessionHeader(version=3, id="u", timestamp="2026-11-29T23:04:35.731Z", cwd="/p")
    assert (
        entry_line(header)
        == '{"type":"session","version":3,"id":"u","timestamp":"2026-11-29T23:04:35.731Z","cwd":"/p"}'
    )
    forked = header.model_copy(update={"parent_session": "/a.jsonl"})
    assert entry_line(forked).endswith(',"cwd":"/p","parentSession":"/a.jsonl"}')
    assert SessionHeader.model_validate({"type": "session", "id": "x"}).version == 1


def test_unknown_type_keeps_every_key_in_order() -> None:
    obj = {"type": "future", "zeta": 1.0, "id": "i", "parentId": None, "timestamp": "t", "alpha": [1e21]}
    entry = parse_entry(obj)
    assert isinstance(entry, UnknownEntry)
    assert (
        entry_line(entry)
        == '{"type":"future","zeta":1,"id":"i","parentId":null,"timestamp":"t","alpha":[1e+21]}'
    )


def test_reparented_unknown_entry_changes_only_parent() -> None:
    entry = parse_entry({"type": "future", "id": "i", "parentId": "old", "timestamp": "t", "x": 1})
    moved = reparented(entry, "new")
    assert moved.parent_id == "new"
    assert moved.to_json_obj() == {"type": "future", "id": "i", "parentId": "new", "timestamp": "t", "x": 1}
    assert entry.to_json_obj()["parentId"] == "old"


def test_known_type_with_bad_fields_is_a_validation_error_with_location() -> None:
    with pytest.raises(ValidationError) as caught:
        parse_entry({"type": "compaction", **BASE, "summary": "s", "tokensBefore": "many"})
    text = str(caught.value)
    assert "firstKeptEntryId" in text or "first_kept_entry_id" in text


def test_entry_timestamps_look_like_javascript_iso() -> None:
    from pi_tui.session_file.store import SessionStore

    entry = SessionStore.in_memory("/p").append_custom("x")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry.timestamp)
    assert re.fullmatch(r"[0-9a-f]{8}", entry.id)
