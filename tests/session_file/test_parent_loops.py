"""Damaged parent links: a loop is cut at its first entry in the file (with a diagnostic), the same way
for the tree, the branch and the context; a duplicated id that puts a tool result after the wrong entry
never reaches the provider as a tool message without its call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.next_request import next_request
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree import branch_path, index_by_id, parent_loops
from pi_tui.session_file.tree_listing import tree_lines
from tests.reliability.fault_fixtures import check_wire
from tests.support.session_files import assistant, header, user

MODEL = ModelConfig(id="fake-model", provider="fake", context_window=32_000)


def write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in objects))
    return path


def looped(tmp_path: Path) -> Path:
    """u1's parent is a1 and a1's parent is u1: neither has a root above it."""
    return write(tmp_path / "loop.jsonl", [header(), user("u1", "a1", "hello"), assistant("a1", "u1", "hi")])


def with_tool_call(entry: dict[str, Any], call_id: str) -> dict[str, Any]:
    call = {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": "a.txt"}}
    entry["message"]["content"].append(call)
    entry["message"]["stopReason"] = "toolUse"
    return entry


def tool_result(entry_id: str, parent: str, call_id: str) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": [{"type": "text", "text": "file text"}],
        "isError": False,
        "timestamp": 1795993476000,
    }
    timestamp = "2026-11-29T23:04:36.000Z"
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": timestamp, "message": message}


def test_a_parent_loop_is_listed_cut_at_its_first_entry_with_a_diagnostic(tmp_path: Path) -> None:
    store = SessionStore.open(looped(tmp_path))

    lines = tree_lines(store, "all")

    assert [(line.entry_id, line.depth, line.on_branch) for line in lines] == [
        ("u1", 0, True),
        ("a1", 0, True),
    ]
    assert [entry.id for entry in store.get_branch()] == ["u1", "a1"]
    assert [message.role for message in store.build_context().messages] == ["user", "assistant"]
    [diagnostic] = store.diagnostics
    assert diagnostic.line_number is None
    assert diagnostic.message == "parent links loop (u1 → a1 → u1); entry u1 taken as a root"


def test_loops_are_found_once_each_in_file_order_and_without_recursion() -> None:
    store = SessionStore.in_memory("/p")
    for _ in range(20_000):
        store.append_custom("x")
    entries = store.entries
    first, last = entries[0], entries[-1]
    entries[0] = first.model_copy(update={"parent_id": last.id})  # one loop through every entry
    entries.append(entries[5].model_copy(update={"id": "self", "parent_id": "self"}))

    loops = parent_loops(entries, index_by_id(entries))

    assert [(loop.root, len(loop.members)) for loop in loops] == [(first.id, 20_000), ("self", 1)]
    assert len(branch_path(index_by_id(entries), last.id, {first.id})) == 20_000


def test_a_duplicated_id_never_sends_a_tool_result_without_its_call(tmp_path: Path) -> None:
    # d1 is first a reply calling a tool, then (the later entry, which owns the id) a user message on
    # another branch; the tool result's parent link now leads to that user message.
    objects = [
        header(cwd=str(tmp_path)),
        user("u1", None, "read a.txt"),
        with_tool_call(assistant("d1", "u1", "reading"), "call_1"),
        tool_result("t1", "d1", "call_1"),
        assistant("a2", "t1", "the file says hi"),
        user("d1", "u1", "another branch"),
        assistant("a3", "a2", "and more"),
    ]
    store = SessionStore.open(write(tmp_path / "dup.jsonl", objects))
    assert [message.role for message in store.build_context().messages] == [
        "user",
        "user",
        "toolResult",
        "assistant",
        "assistant",
    ]
    session = AgentSession(
        SessionConfig(
            store=store,
            resources=load_resources(tmp_path, settings=Settings(), home=tmp_path, include_builtin=False),
            model=MODEL,
            api_key="unused",
        )
    )

    preview = next_request(session, "go on")

    assert preview is not None
    body = preview.body
    assert [message["role"] for message in body["messages"]] == [
        "system",
        "user",
        "user",
        "assistant",
        "assistant",
        "user",
    ]
    check_wire(body, [])
