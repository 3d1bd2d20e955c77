from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import (
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    TextContent,
    UserMessage,
)
from pi_tui.session_file.context_rebuild import ModelRef, build_session_context
from pi_tui.session_file.entries import UnknownEntry, parse_entry
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.store import SessionStore


def _reply(text: str, provider: str = "fake", model: str = "m1") -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], provider=provider, model=model, timestamp=2)


def _ask(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=1)


def test_explicit_none_leaf_is_empty_and_unknown_leaf_is_last_entry() -> None:
    store = SessionStore.in_memory("/p")
    store.append_thinking_level_change("high")
    store.append_message(_ask("hi"))
    last = store.append_message(_reply("hello"))
    empty = build_session_context(store.entries, None)
    assert empty.messages == [] and empty.thinking_level == "off" and empty.model is None
    fallback = build_session_context(store.entries, "nope")
    assert fallback.entry_ids[-1] == last.id
    assert fallback.thinking_level == "high"
    assert build_session_context([]).messages == []


def test_model_follows_model_changes_and_assistant_messages() -> None:
    store = SessionStore.in_memory("/p")
    store.append_model_change("a", "x")
    assert store.build_context().model == ModelRef("a", "x")
    store.append_message(_reply("r", provider="b", model="y"))
    assert store.build_context().model == ModelRef("b", "y")
    store.append_model_change("c", "z")
    assert store.build_context().model == ModelRef("c", "z")


def test_latest_compaction_summary_first_then_kept_then_after() -> None:
    store = SessionStore.in_memory("/p")
    store.append_message(_ask("one"))
    store.append_message(_reply("r1"))
    store.append_compaction("first summary", store.entries[0].id, 100)
    kept = store.append_message(_ask("two"))
    reply = store.append_message(_reply("r2"))
    compaction = store.append_compaction("second summary", kept.id, 200)
    after = store.append_message(_ask("three"))
    context = store.build_context()
    first = context.messages[0]
    assert isinstance(first, CompactionSummaryMessage)
    assert (first.summary, first.tokens_before) == ("second summary", 200)
    assert first.timestamp == iso_to_ms(compaction.timestamp)
    assert context.entry_ids == [None, kept.id, reply.id, after.id]


def test_compaction_with_unknown_first_kept_id_keeps_nothing_before_it() -> None:
    store = SessionStore.in_memory("/p")
    store.append_message(_ask("one"))
    store.append_compaction("s", "missing", 5)
    after = store.append_message(_ask("two"))
    assert store.build_context().entry_ids == [None, after.id]


def test_custom_message_and_branch_summary_become_messages() -> None:
    store = SessionStore.in_memory("/p")
    root = store.append_message(_ask("hi"))
    left = store.append_message(_reply("r"))
    summary = store.branch_with_summary(root.id, "what happened", {"readFiles": [], "modifiedFiles": []})
    empty_summary = store.branch_with_summary(summary.id, "")
    custom = store.append_custom_message("ext.note", "remember this", display=False, details={"k": 1})
    store.append_custom("pi-tui.state", {"x": 1})
    store.append_label(root.id, "start")
    store.append_session_info("named")
    context = store.build_context()
    assert context.entry_ids == [root.id, summary.id, custom.id]
    assert empty_summary.id not in context.entry_ids
    branch_message = context.messages[1]
    assert isinstance(branch_message, BranchSummaryMessage)
    assert branch_message.from_id == left.id  # pi 1.6: the leaf that was left
    assert branch_message.timestamp == iso_to_ms(summary.timestamp)
    custom_message = context.messages[2]
    assert isinstance(custom_message, CustomMessage)
    assert custom_message.to_json_obj() == {
        "role": "custom",
        "customType": "ext.note",
        "content": "remember this",
        "display": False,
        "details": {"k": 1},
        "timestamp": iso_to_ms(custom.timestamp),
    }


def test_unknown_entries_are_skipped_but_keep_the_path_connected() -> None:
    store = SessionStore.in_memory("/p")
    first = store.append_message(_ask("hi"))
    unknown = parse_entry({"type": "future_thing", "id": "u1", "parentId": first.id, "timestamp": "t"})
    assert isinstance(unknown, UnknownEntry)
    child = parse_entry(
        {
            "type": "message",
            "id": "c1",
            "parentId": "u1",
            "timestamp": "2026-11-29T23:04:35.814Z",
            "message": {"role": "user", "content": "after", "timestamp": 3},
        }
    )
    context = build_session_context([*store.entries, unknown, child])
    assert context.entry_ids == [first.id, "c1"]


def test_cycle_in_parent_links_does_not_hang(tmp_path: Path) -> None:
    a = parse_entry({"type": "custom", "id": "a", "parentId": "b", "timestamp": "t", "customType": "x"})
    b = parse_entry({"type": "custom", "id": "b", "parentId": "a", "timestamp": "t", "customType": "x"})
    assert build_session_context([a, b]).messages == []
