"""pi's `prepareCompaction` on hand-built branches and on the real pi fixture.

The fixture `c-auto-compaction.jsonl` was compacted three times by pi with small settings. Replaying
our preparation on the branch as it was before each compaction, every `keepRecentTokens` from 2170 to
3190 reproduces all three `firstKeptEntryId`s pi chose, so pi most likely ran with 3000; the
threshold lies between 8396 (the last reply that did not trigger) and 9400 (the first that did).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.preparation import (
    ALREADY_COMPACTED,
    NOTHING_TO_COMPACT,
    prepare_compaction,
    unprepared_reason,
)
from pi_tui.context.compaction.token_estimate import should_compact
from pi_tui.session_file.entries import CompactionEntry, SessionEntry
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.items import (
    assistant,
    compaction,
    custom,
    tool_result,
    user,
    words,
)

FIXTURE_SETTINGS = CompactionSettings(keep_recent_tokens=3000, reserve_tokens=3000)
FIXTURE_WINDOW = 12000


def _fixture(pi_fixtures: Path) -> SessionStore:
    return SessionStore.open(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", migrate=False)


def _before(store: SessionStore, entry: CompactionEntry) -> list[SessionEntry]:
    assert entry.parent_id is not None
    return store.get_branch(entry.parent_id)


def test_fixture_compactions_are_reproduced(pi_fixtures: Path) -> None:
    store = _fixture(pi_fixtures)
    compactions = [entry for entry in store.entries if isinstance(entry, CompactionEntry)]
    assert len(compactions) == 3
    previous: CompactionEntry | None = None
    for entry in compactions:
        prepared = prepare_compaction(_before(store, entry), FIXTURE_SETTINGS)
        assert prepared is not None
        assert prepared.first_kept_entry_id == entry.first_kept_entry_id
        assert prepared.tokens_before == entry.tokens_before
        assert should_compact(prepared.tokens_before, FIXTURE_WINDOW, FIXTURE_SETTINGS)
        assert prepared.previous_summary == (previous.summary if previous else None)
        read_files, modified_files = prepared.file_ops.lists()
        assert {"readFiles": read_files, "modifiedFiles": modified_files} == entry.details
        assert not prepared.is_split_turn
        previous = entry


def test_fixture_second_compaction_resummarises_the_previous_kept_region(pi_fixtures: Path) -> None:
    store = _fixture(pi_fixtures)
    second = store.get_entry("f66ec6cb")
    assert isinstance(second, CompactionEntry)
    prepared = prepare_compaction(_before(store, second), FIXTURE_SETTINGS)
    assert prepared is not None
    ids = [part.entry_id for part in prepared.history]
    # Starts at the first compaction's firstKeptEntryId, skips the compaction entry itself.
    assert ids[0] == "603daa5d"
    assert "4db33679" not in ids
    assert ids[-1] == "778fce44"
    assert prepared.turn_prefix == []


def test_fixture_threshold_bounds(pi_fixtures: Path) -> None:
    assert not should_compact(8396, FIXTURE_WINDOW, FIXTURE_SETTINGS)
    assert should_compact(9400, FIXTURE_WINDOW, FIXTURE_SETTINGS)


def test_last_item_compaction_is_already_compacted() -> None:
    items = [user("u", "x"), assistant("a", "y"), compaction("k", "s", "u")]
    assert prepare_compaction(items, CompactionSettings()) is None
    assert unprepared_reason(items) == ALREADY_COMPACTED
    assert prepare_compaction([], CompactionSettings()) is None
    assert unprepared_reason([]) == NOTHING_TO_COMPACT


def test_tiny_session_still_prepares_keeping_everything() -> None:
    items = [user("u", "hello"), assistant("a", "hi", total_tokens=50)]
    prepared = prepare_compaction(items, CompactionSettings())
    assert prepared is not None
    assert prepared.first_kept_entry_id == "u"
    assert prepared.history == [] and prepared.tokens_before == 50


def test_split_turn_prepares_history_and_prefix() -> None:
    items = [
        user("u1", words(100)),
        assistant("a1", words(100)),
        user("u2", words(10)),
        assistant("a2", "", [("read", {"path": "src/a.py"})]),
        tool_result("t2", words(300), name="read"),
        assistant("a3", "", [("edit", {"path": "src/a.py"})]),
        tool_result("t3", words(50), name="edit"),
        assistant("a4", words(10)),
    ]
    prepared = prepare_compaction(items, CompactionSettings(keep_recent_tokens=100))
    assert prepared is not None
    assert prepared.is_split_turn and prepared.first_kept_entry_id == "a3"
    assert [part.entry_id for part in prepared.history] == ["u1", "a1"]
    assert [part.entry_id for part in prepared.turn_prefix] == ["u2", "a2", "t2"]
    # The prefix's read counts; the edit is in the kept region, so the file is only "read" here.
    assert prepared.file_ops.lists() == (["src/a.py"], [])


def test_previous_compaction_details_seed_file_ops_unless_from_hook() -> None:
    details = {"readFiles": ["r.txt"], "modifiedFiles": ["m.txt"]}
    base = [user("u1", words(10)), assistant("a1", words(10))]
    for from_hook, expected in ((False, (["r.txt"], ["m.txt"])), (True, ([], []))):
        items = [
            *base,
            compaction("k", "old summary", "u1", details=details, from_hook=from_hook),
            custom("c"),
            user("u2", words(10)),
        ]
        prepared = prepare_compaction(items, CompactionSettings(keep_recent_tokens=5))
        assert prepared is not None
        assert prepared.previous_summary == "old summary"
        assert prepared.boundary_start == 0
        assert prepared.file_ops.lists() == expected


def test_unknown_first_kept_id_starts_after_the_previous_compaction() -> None:
    items = [user("u1", "a"), compaction("k", "s", "gone"), user("u2", words(10)), assistant("a2", "b")]
    prepared = prepare_compaction(items, CompactionSettings(keep_recent_tokens=1))
    assert prepared is not None
    assert prepared.boundary_start == 2


@pytest.mark.parametrize("keep", [2170, 3190])
def test_fixture_derived_keep_range_edges(pi_fixtures: Path, keep: int) -> None:
    store = _fixture(pi_fixtures)
    settings = CompactionSettings(keep_recent_tokens=keep)
    for entry in store.entries:
        if isinstance(entry, CompactionEntry):
            prepared = prepare_compaction(_before(store, entry), settings)
            assert prepared is not None and prepared.first_kept_entry_id == entry.first_kept_entry_id
