from __future__ import annotations

from pathlib import Path

from pi_tui.session_file.entries import BranchSummaryEntry, SessionEntry, parse_entry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree import Labels, branch_path, build_tree, index_by_id


def test_pi_tree_fixture(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "f-tree.jsonl")
    roots = store.get_tree()
    assert [root.entry.id for root in roots] == ["eae01acb"]
    node = roots[0]
    while node.entry.id != "c05cfead":
        (node,) = node.children
    children = node.children
    assert [child.entry.id for child in children] == ["a6ffc384", "a31ddc84", "b24e6f0a"]
    assert isinstance(children[1].entry, BranchSummaryEntry)
    assert store.labels == {"67a3280f": "lru-attempt", "5db7cdd6": "redis-attempt"}
    assert [e.id for e in store.get_branch("2ba11f57")][-3:] == ["c05cfead", "a31ddc84", "2ba11f57"]


def _custom(entry_id: str, parent: str | None, stamp: str = "2026-01-01T00:00:00.000Z") -> SessionEntry:
    return parse_entry(
        {"type": "custom", "id": entry_id, "parentId": parent, "timestamp": stamp, "customType": "x"}
    )


def test_roots_include_orphans_and_self_parents() -> None:
    entries = [_custom("a", None), _custom("b", "missing"), _custom("c", "c"), _custom("d", "a")]
    roots = build_tree(entries, Labels())
    assert [root.entry.id for root in roots] == ["a", "b", "c"]
    assert [child.entry.id for child in roots[0].children] == ["d"]


def test_branch_path_stops_at_cycles_and_unknown_ids() -> None:
    entries = [_custom("a", "b"), _custom("b", "a")]
    by_id = index_by_id(entries)
    assert [e.id for e in branch_path(by_id, "a")] == ["b", "a"]
    assert branch_path(by_id, "zzz") == [] and branch_path(by_id, None) == []


def test_deep_chains_do_not_recurse() -> None:
    store = SessionStore.in_memory("/p")
    for _ in range(5000):
        store.append_custom("x")
    roots = store.get_tree()
    depth = 0
    node = roots[0]
    while node.children:
        node = node.children[0]
        depth += 1
    assert depth == 4999
    assert len(store.get_branch()) == 5000
