"""pi 1.6's entries read as pi 1.6 reads them, and its bad input as pi 1.6 treats it: a context edit
of a missing entry or of another branch changes nothing, a malformed part of a system message is
skipped; each with one diagnostic naming the line, and the file is never rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.messages import AssistantMessage, ToolResultMessage
from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.entries import ContextEditEntry, UsageEntry
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.usage_totals import usage_totals
from tests.support.pi_corpora import PI_1_6

STAMP = "2026-12-02T05:34:50.000Z"


def append(path: Path, target: Path, *extra: dict[str, Any]) -> Path:
    lines = path.read_text(encoding="utf-8")
    target.write_text(lines + "".join(json.dumps(entry) + "\n" for entry in extra), encoding="utf-8")
    return target


def last_id(path: Path) -> str:
    entry_id: str = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"]
    return entry_id


def edit(entry_id: str, parent: str, target: str, replacement: Any = None) -> dict[str, Any]:
    return {
        "type": "context_edit",
        "id": entry_id,
        "parentId": parent,
        "timestamp": STAMP,
        "targetId": target,
        "replacement": replacement,
    }


def test_a_context_edit_of_a_missing_entry_is_ignored_with_one_diagnostic(tmp_path: Path) -> None:
    source = PI_1_6.session("a-plain")
    path = append(source, tmp_path / "s.jsonl", edit("e0000001", last_id(source), "deadbeef"))
    before = path.read_bytes()

    loaded = read_session_file(path)

    assert [(d.line_number, d.message) for d in loaded.diagnostics] == [
        (11, "context edit of unknown entry 'deadbeef', ignored")
    ]
    plain = build_session_context(read_session_file(source).entries)
    assert build_session_context(loaded.entries).messages == plain.messages
    assert path.read_bytes() == before


def test_a_context_edit_on_another_branch_is_ignored_with_one_diagnostic(tmp_path: Path) -> None:
    source = PI_1_6.session("a-plain")
    entries = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[1:]]
    replies = [e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"]
    # The edit hangs under the first reply, its target is the last reply (a later entry of the file).
    path = append(source, tmp_path / "s.jsonl", edit("e0000001", replies[0], replies[-1]))

    loaded = read_session_file(path)

    assert [d.message for d in loaded.diagnostics] == [
        f"context edit of {replies[-1]!r} on another branch, ignored"
    ]
    context = build_session_context(loaded.entries, replies[-1])
    assert replies[-1] in context.entry_ids


def test_the_latest_edit_of_a_target_wins_and_text_becomes_a_block(tmp_path: Path) -> None:
    source = PI_1_6.session("b-tools")
    entries = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[1:]]
    result = next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult")
    leaf = last_id(source)
    path = append(
        source,
        tmp_path / "s.jsonl",
        edit("e0000001", leaf, result["id"]),
        edit("e0000002", "e0000001", result["id"], {"content": "shortened"}),
    )

    loaded = read_session_file(path)
    context = build_session_context(loaded.entries)

    assert loaded.diagnostics == []
    sent = context.messages[context.entry_ids.index(result["id"])]
    assert isinstance(sent, ToolResultMessage) and [block.to_json_obj() for block in sent.content] == [
        {"type": "text", "text": "shortened"}
    ]
    projected = next(p for p in context.projection if p.entry.id == result["id"])
    assert isinstance(projected.edit, ContextEditEntry) and projected.edit.id == "e0000002"


def test_a_malformed_system_message_loads_the_rest_and_says_where(tmp_path: Path) -> None:
    source = PI_1_6.session("a-plain")
    system = {
        "type": "message",
        "id": "5e5e5e5e",
        "parentId": last_id(source),
        "timestamp": STAMP,
        "message": {
            "role": "system",
            "content": "",
            "sections": {"rules": 42, "tools": "<tools>\n- read\n</tools>"},
            "timestamp": 1796189690000,
            "toolsRemoved": [{"name": "edit"}, {"nom": "write"}],
            "toolsAdded": [{"name": "grep", "description": "Search", "parameters": {"type": "object"}}, 7],
        },
    }
    path = append(source, tmp_path / "s.jsonl", system)
    before = path.read_bytes()

    loaded = read_session_file(path)

    assert [(d.line_number, d.message) for d in loaded.diagnostics] == [
        (11, "system message: section 'rules' is not text, ignored"),
        (11, "system message: toolsRemoved[1] is not a tool declaration, ignored"),
        (11, "system message: toolsAdded[1] is not a tool declaration, ignored"),
    ]
    prompt = build_session_context(loaded.entries).prompt
    assert prompt.tool_names == ["read", "bash", "write", "grep"]
    assert prompt.sections["tools"] == "<tools>\n- read\n</tools>"
    assert "rules" in prompt.sections  # the malformed value left the earlier rules in force
    assert path.read_bytes() == before


def test_usage_entries_count_in_the_cost_whatever_their_kind(tmp_path: Path) -> None:
    source = PI_1_6.session("u-cache-warm-usage")
    loaded = read_session_file(source)
    warming = [entry for entry in loaded.entries if isinstance(entry, UsageEntry)]
    assert [entry.kind for entry in warming] == ["cache_warm", "cache_warm"]
    replies = [
        entry.message.usage.cost.total
        for entry in loaded.entries
        if hasattr(entry, "message") and isinstance(entry.message, AssistantMessage)
    ]
    totals = usage_totals(loaded.entries)
    assert totals.cost == pytest.approx(sum(replies) + sum(entry.usage.cost.total for entry in warming))
    assert totals.cache_read >= 3000

    unknown_kind = {
        "type": "usage",
        "id": "0f0f0f0f",
        "parentId": last_id(source),
        "timestamp": STAMP,
        "kind": "prefetch",
        "provider": "fake",
        "model": "fake-model",
        "usage": warming[0].usage.to_json_obj(),
    }
    path = append(source, tmp_path / "s.jsonl", unknown_kind)
    later = read_session_file(path)
    assert later.diagnostics == []
    assert usage_totals(later.entries).cost == pytest.approx(totals.cost + warming[0].usage.cost.total)
    # Never sent: the context is the same with or without the usage entries.
    assert build_session_context(later.entries).messages == build_session_context(loaded.entries).messages


def test_a_fork_keeps_every_pi16_entry_and_field(tmp_path: Path) -> None:
    source = PI_1_6.session("y-context-edit-tools")
    copy = tmp_path / "y.jsonl"
    copy.write_bytes(source.read_bytes())
    store = SessionStore.open(copy)

    forked = store.create_branched_session(store.leaf_id or "")

    assert forked.path is not None
    original = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[1:]]
    written = [json.loads(line) for line in forked.path.read_text(encoding="utf-8").splitlines()[1:]]
    assert written == original  # a linear file: the same lines, system messages and context edits too
    assert build_session_context(forked.entries).messages == build_session_context(store.entries).messages
