"""Entries become neutral path items carrying exactly what compaction and accounting read."""

from __future__ import annotations

from pathlib import Path

from pi_tui.session.path_view import path_items
from pi_tui.session_file.store import SessionStore


def test_compaction_fixture_becomes_path_items(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", migrate=False)
    items = path_items(store.get_branch())

    assert [item.entry_id for item in items] == [entry.id for entry in store.get_branch()]
    assert [item.kind for item in items[:3]] == ["model_change", "thinking_level_change", "message"]
    compactions = [item for item in items if item.kind == "compaction"]
    assert len(compactions) == 3
    last = compactions[-1].compaction
    assert last is not None and last.first_kept_entry_id == "62859023" and last.tokens_before == 9512
    assert last.details == {
        "readFiles": ["docs/errors.md", "notes.txt"],
        "modifiedFiles": ["plan.md", "report.md"],
    }
    assert all(item.message is not None for item in items if item.kind == "message")


def test_branch_summary_and_labels(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "f-tree.jsonl", migrate=False)
    items = {item.entry_id: item for item in path_items(store.entries)}

    summary = items["a31ddc84"]
    assert summary.kind == "branch_summary"
    assert summary.message is not None and summary.message.role == "branchSummary"
    assert summary.branch_details == {"readFiles": [], "modifiedFiles": ["cache.py"]}
    assert items["e48d1f5e"].kind == "label" and items["e48d1f5e"].message is None
