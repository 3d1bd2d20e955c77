"""Tree lines: where the session is when bookkeeping follows the last reply, the filter cycle, the
drawn line, labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import (
    TreeLine,
    describe,
    next_filter,
    set_label,
    tree_line_text,
    tree_lines,
)


def conversation(tmp_path: Path) -> SessionStore:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    store.append_message(UserMessage(content="hello", timestamp=0))
    store.append_message(AssistantMessage(content=[TextContent(text="hi there")]))
    return store


def test_here_is_the_last_reply_though_bookkeeping_follows_it(tmp_path: Path) -> None:
    store = conversation(tmp_path)
    reply = store.leaf_id
    store.append_custom("pi-tui.request", {"n": 1})  # as pi-tui records every request
    store.append_session_info("named")
    [user, assistant] = tree_lines(store)
    assert assistant.entry_id == reply and assistant.is_leaf and not user.is_leaf
    assert [line.is_leaf for line in tree_lines(store, "user-only")] == [False]  # here is not shown
    everything = tree_lines(store, "all")
    assert len(everything) == 4 and [line.entry_id for line in everything if line.is_leaf] == [reply]


def test_filters_cycle_both_ways() -> None:
    assert next_filter("default") == "no-tools"
    assert next_filter("all") == "default"
    assert next_filter("default", -1) == "all"


def test_a_line_is_drawn_with_its_depth_fork_marker_and_label() -> None:
    line = TreeLine("a1b2c3d4", 2, "user: hello", "start", False, True, True)
    assert tree_line_text(line) == "    ├ • user: hello  [start]"
    assert tree_line_text(TreeLine("e", 0, "assistant: hi", None, True, True, False)) == "● assistant: hi"


def compaction(tokens_before: int, details: object = None) -> CompactionEntry:
    return CompactionEntry(
        id="c1",
        parent_id=None,
        timestamp="2026-01-01T00:00:00.000Z",
        summary="s",
        first_kept_entry_id="k",
        tokens_before=tokens_before,
        details=details,
    )


def test_a_compaction_is_labelled_with_the_context_it_started_from_not_a_summarised_count() -> None:
    """A compaction that summarised nothing was labelled "9,522 tokens summarised" (issue #27 item 4);
    the tree names the figure the restore dialog and the Compactions pane show: the request before."""
    measured = compaction(9_522, {"requestTokensBefore": 10_227, "requestTokensAfter": 1_609})
    assert describe(measured) == "compaction (context 10,227 tokens before)"
    assert describe(compaction(9_522)) == "compaction (context 9,522 tokens before)"  # pi's own file
    assert (
        describe(compaction(9_522, {"requestTokensBefore": True}))
        == "compaction (context 9,522 tokens before)"
    )


def test_set_label_refuses_unknown_entries_and_blank_removes(tmp_path: Path) -> None:
    store = conversation(tmp_path)
    first = store.entries[0].id
    assert set_label(store, "nope", "x") == "no entry nope in this session"
    assert set_label(store, first, "  start ") is None and store.get_label(first) == "start"
    assert set_label(store, first, " ") is None and store.get_label(first) is None


@pytest.mark.slow
def test_a_hundred_thousand_entries_list_without_recursion() -> None:
    """One recursion per entry overflowed the stack at about 1,000 entries (`pi-tui tree`, the HTML
    export and /tree all list the tree this way). Linear, and with a fork every 1,000 entries."""
    store = SessionStore.in_memory("/p")
    for number in range(100_000):
        store.append_message(UserMessage(content=f"message {number}", timestamp=number))
    lines = tree_lines(store, "all")
    assert len(lines) == 100_000 and {line.depth for line in lines} == {0}
    assert lines[-1].is_leaf and lines[0].text.endswith("message 0")

    branched = SessionStore.in_memory("/p")
    forks: list[str] = []
    for number in range(100_000):
        if number % 1000 == 999:
            forks.append(branched.leaf_id or "")
            branched.append_message(UserMessage(content=f"side {number}", timestamp=number))
            branched.branch(forks[-1])
        branched.append_message(UserMessage(content=f"message {number}", timestamp=number))
    lines = tree_lines(branched, "all")
    assert len(lines) == 100_000 + len(forks)
    assert max(line.depth for line in lines) == len(forks)
    assert sum(line.starts_branch for line in lines) == 2 * len(forks)
