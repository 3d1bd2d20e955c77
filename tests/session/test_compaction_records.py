"""The compaction timeline across branches, the per-compaction diff and loss audit."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.session.compaction_ops import compact_store, restore_before
from pi_tui.session.compaction_records import (
    audit_compaction,
    diff_compaction,
    list_compactions,
    summarized_span,
)
from pi_tui.session.compaction_sizes import ShownSize
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.session_support import MODEL, SMALL, long_session


def _fixture_copy(tmp_path: Path, pi_fixtures: Path) -> SessionStore:
    path = tmp_path / "c.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", path)
    path.chmod(0o600)
    return SessionStore.open(path)


def test_pi_compactions_have_unknown_reason_and_no_tokens_after(tmp_path: Path, pi_fixtures: Path) -> None:
    store = _fixture_copy(tmp_path, pi_fixtures)
    records = list_compactions(store)
    assert [record.entry_id for record in records] == ["4db33679", "f66ec6cb", "25ab72d3"]
    first = records[0]
    assert (first.reason, first.size.after, first.model) == ("unknown", None, None)
    assert (first.size.before, first.entry_tokens_before, first.first_kept_entry_id) == (
        9400,
        9400,
        "603daa5d",
    )
    assert all(record.on_current_branch for record in records)
    assert first.summary_length == len(store.get_entry("4db33679").summary)  # type: ignore[union-attr]
    assert first.audit["path"]["found"] >= 1


def test_span_of_the_second_pi_compaction(tmp_path: Path, pi_fixtures: Path) -> None:
    store = _fixture_copy(tmp_path, pi_fixtures)
    entry = store.get_entry("f66ec6cb")
    assert isinstance(entry, CompactionEntry)
    ids = [part.entry_id for part in summarized_span(store, entry)]
    assert ids[0] == "603daa5d" and ids[-1] == "778fce44" and "4db33679" not in ids


def test_diff_against_the_previous_summary_on_the_branch(tmp_path: Path, pi_fixtures: Path) -> None:
    store = _fixture_copy(tmp_path, pi_fixtures)
    diffs = {item.heading: item for item in diff_compaction(store, "f66ec6cb") or []}
    assert diffs["## Goal"].status == "unchanged"
    assert diffs["## Progress"].status == "changed"
    assert (
        "+- [x] Looked up E2002 in docs/errors.md (disk quota on /var/lib/widget)"
        in diffs["## Progress"].diff
    )
    first = diff_compaction(store, "4db33679") or []
    assert {item.status for item in first} == {"added"}
    assert diff_compaction(store, "0db2ed98") is None


def test_audit_marks_what_the_pi_summary_kept(tmp_path: Path, pi_fixtures: Path) -> None:
    store = _fixture_copy(tmp_path, pi_fixtures)
    audit = audit_compaction(store, "f66ec6cb")
    assert audit is not None
    found = {(item.kind, item.text): item.survives for item in audit.items}
    assert found[("path", "docs/errors.md")] is True
    assert found[("path", "/var/lib/widget")] is True
    assert audit_compaction(store, "nope") is None


async def test_timeline_covers_other_branches_and_records_our_details(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    provider = ScriptedProvider([ScriptedReply(text="one"), ScriptedReply(text="two")])
    first = await compact_store(store, model=MODEL, api_key=None, stream_fn=provider, settings=SMALL)
    assert first.entry_id is not None
    restore_before(store, first.entry_id)
    second = await compact_store(
        store, model=MODEL, api_key=None, stream_fn=provider, settings=SMALL, reason="overflow"
    )
    records = list_compactions(store)
    assert [(r.entry_id, r.on_current_branch, r.reason) for r in records] == [
        (first.entry_id, False, "manual"),
        (second.entry_id, True, "overflow"),
    ]
    assert records[0].size == ShownSize(first.size.before, first.size.after, "estimate")
    assert records[0].model == "test/sum-model"
    assert records[1].audit["command"] == {"found": 1, "listed": 1, "missing": 1}  # `pytest -x`
    assert records[1].to_json_obj()["firstKeptEntryId"] == second.first_kept_entry_id
