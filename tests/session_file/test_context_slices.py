"""The context rebuild over a slice of a path, as compaction and accounting read it (no store needed),
and what each entry of pi's own files contributes to it."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, CompactionSummaryMessage, TextContent, UserMessage
from pi_tui.context.compaction.branch_summary import prepare_branch_entries
from pi_tui.session_file.context_rebuild import (
    build_session_context,
    compaction_summary_message,
    entry_message,
    last_compaction_index,
    path_context,
    split_at_latest_compaction,
)
from pi_tui.session_file.entries import CompactionEntry, MessageEntry
from pi_tui.session_file.store import SessionStore


def _store_with_two_compactions() -> SessionStore:
    store = SessionStore.in_memory("/p")
    store.append_message(UserMessage(content="a", timestamp=1))
    store.append_message(AssistantMessage(content=[TextContent(text="b")], provider="p", model="m"))
    store.append_compaction("first", store.entries[0].id, 10)
    store.append_message(UserMessage(content="c", timestamp=3))
    store.append_compaction("second", store.entries[1].id, 20)
    store.append_message(UserMessage(content="d", timestamp=4))
    return store


def test_a_path_rebuilds_as_the_store_does_and_each_slice_follows_its_own_latest_compaction() -> None:
    store = _store_with_two_compactions()
    path = store.get_branch()
    u1, a1, _, u2, _, u3 = (entry.id for entry in path)
    assert path_context(path) == store.build_context() == build_session_context(store.entries)
    assert path_context(path).entry_ids == [None, a1, u2, u3]
    assert path_context(path[:4]).entry_ids == [None, u1, a1, u2]
    assert path_context(path[:2]).entry_ids == [u1, a1]
    assert path_context(path).model is not None and path_context(path).model.model_id == "m"  # type: ignore[union-attr]


def test_the_split_names_the_compaction_its_kept_entries_and_what_came_after() -> None:
    path = _store_with_two_compactions().get_branch()
    split = split_at_latest_compaction(path)
    assert split.compaction is path[4]
    assert [entry.id for entry in split.kept] == [path[1].id, path[2].id, path[3].id]
    assert [entry.id for entry in split.after] == [path[5].id]
    assert [last_compaction_index(path[:end]) for end in (6, 4, 2)] == [4, 2, -1]
    plain = split_at_latest_compaction(path[:2])
    assert plain.compaction is None and list(plain.kept) == [] and list(plain.after) == path[:2]


def test_an_unknown_first_kept_id_keeps_nothing_before_the_compaction() -> None:
    store = SessionStore.in_memory("/p")
    store.append_message(UserMessage(content="a", timestamp=1))
    store.append_compaction("s", "missing", 5)
    after = store.append_message(UserMessage(content="c", timestamp=2))
    split = split_at_latest_compaction(store.get_branch())
    assert list(split.kept) == [] and [entry.id for entry in split.after] == [after.id]
    assert path_context(store.get_branch()).entry_ids == [None, after.id]


def test_the_summary_message_carries_the_entry_time_in_ms_and_zero_for_an_unreadable_one() -> None:
    entry = CompactionEntry(
        id="k", timestamp="2026-11-29T23:15:06.902Z", summary="S", first_kept_entry_id="u", tokens_before=100
    )
    message = compaction_summary_message(entry)
    assert isinstance(message, CompactionSummaryMessage)
    assert (message.summary, message.tokens_before, message.timestamp) == ("S", 100, 1795994106902)
    assert compaction_summary_message(entry.model_copy(update={"timestamp": "not a date"})).timestamp == 0


def test_pi_compaction_fixture_splits_at_its_third_compaction(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", migrate=False)
    path = store.get_branch()
    assert [entry.type for entry in path[:3]] == ["model_change", "thinking_level_change", "message"]
    assert len([entry for entry in path if isinstance(entry, CompactionEntry)]) == 3
    last = split_at_latest_compaction(path).compaction
    assert last is not None and last.first_kept_entry_id == "62859023" and last.tokens_before == 9512
    assert last.details == {
        "readFiles": ["docs/errors.md", "notes.txt"],
        "modifiedFiles": ["plan.md", "report.md"],
    }
    assert all(entry_message(entry) is not None for entry in path if isinstance(entry, MessageEntry))


def test_pi_tree_fixture_branch_summary_is_a_message_and_a_label_is_not(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "f-tree.jsonl", migrate=False)
    summary = store.get_entry("a31ddc84")
    assert summary is not None and summary.type == "branch_summary"
    message = entry_message(summary)
    assert message is not None and message.role == "branchSummary"
    label = store.get_entry("e48d1f5e")
    assert label is not None and label.type == "label" and entry_message(label) is None
    assert prepare_branch_entries([summary]).file_ops.lists() == ([], ["cache.py"])
