"""The context a branch rebuilds to, computed from path items as `buildSessionContext` does."""

from __future__ import annotations

from pi_tui.ai.messages import CompactionSummaryMessage
from pi_tui.context.compaction.rebuilt_context import (
    iso_ms,
    rebuild_context,
    rebuild_messages,
)
from tests.context.compaction.items import assistant, compaction, user


def test_rebuilt_context_follows_the_latest_compaction() -> None:
    items = [
        user("u1", "a"),
        assistant("a1", "b"),
        compaction("k1", "first", "u1"),
        user("u2", "c"),
        compaction("k2", "second", "a1"),
        user("u3", "d"),
    ]
    rebuilt = rebuild_context(items)
    assert [part.entry_id for part in rebuilt] == [None, "a1", "u2", "u3"]


def test_rebuilt_context_with_an_unknown_first_kept_id_keeps_nothing_before() -> None:
    items = [user("u1", "a"), compaction("k1", "first", "missing"), user("u2", "c")]
    assert [part.entry_id for part in rebuild_context(items)] == [None, "u2"]


def test_summary_message_carries_the_entry_time_in_ms() -> None:
    first = rebuild_messages([user("u1", "a"), compaction("k1", "S", "u1")])[0]
    assert isinstance(first, CompactionSummaryMessage)
    assert (first.summary, first.tokens_before) == ("S", 100)
    assert first.timestamp == iso_ms("2026-11-29T23:15:06.902Z") == 1795994106902
    assert iso_ms("not a date") == 0
