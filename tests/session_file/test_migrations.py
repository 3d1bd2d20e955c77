from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pi_tui.ai.messages import CustomMessage
from pi_tui.session_file import migrations
from pi_tui.session_file.entries import CompactionEntry, MessageEntry
from pi_tui.session_file.migrations import migrate_objects, replace_file_atomically
from pi_tui.session_file.store import SessionStore
from tests.support.session_files import assistant, header, read_objects, write_jsonl


def _v1_file(path: Path) -> Path:
    def strip(obj: dict[str, object]) -> dict[str, object]:
        return {key: value for key, value in obj.items() if key not in ("id", "parentId")}

    compaction = {
        "type": "compaction",
        "timestamp": "2026-11-29T23:05:00.000Z",
        "summary": "s",
        "firstKeptEntryIndex": 3,
        "tokensBefore": 50,
    }
    return write_jsonl(
        path,
        [
            header(version=None),
            strip(assistant("x", None, "first")),
            {
                "type": "message",
                "timestamp": "2026-11-29T23:04:36.000Z",
                "message": {"role": "user", "content": "q", "timestamp": 5},
            },
            strip(assistant("x", None, "kept")),
            compaction,
        ],
    )


def test_v1_gets_a_linear_chain_and_first_kept_entry_id(tmp_path: Path) -> None:
    path = _v1_file(tmp_path / "old.jsonl")
    original = path.read_bytes()
    store = SessionStore.open(path)
    entries = store.entries
    assert [entry.parent_id for entry in entries] == [None, entries[0].id, entries[1].id, entries[2].id]
    assert all(len(entry.id) == 8 for entry in entries)
    compaction = entries[3]
    assert isinstance(compaction, CompactionEntry)
    assert compaction.first_kept_entry_id == entries[2].id  # index 3 counted the header as line 0
    assert "firstKeptEntryIndex" not in compaction.to_json_obj()
    on_disk = read_objects(path)
    assert on_disk[0]["version"] == 3
    assert [obj["id"] for obj in on_disk[1:]] == [entry.id for entry in entries]
    assert list(on_disk[1])[:4] == ["type", "id", "parentId", "timestamp"]
    backup = path.with_name("old.jsonl.v1.bak")
    assert backup.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [diagnostic.message.split(";")[0] for diagnostic in store.diagnostics] == [
        "migrated from format v1"
    ]
    assert sorted(item.name for item in tmp_path.iterdir()) == ["old.jsonl", "old.jsonl.v1.bak"]


def test_v2_hook_message_becomes_custom(tmp_path: Path) -> None:
    hook = {
        "type": "message",
        "id": "h1",
        "parentId": "a1",
        "timestamp": "2026-11-29T23:04:37.000Z",
        "message": {
            "role": "hookMessage",
            "customType": "ext",
            "content": "note",
            "display": True,
            "timestamp": 7,
        },
    }
    path = write_jsonl(tmp_path / "v2.jsonl", [header(version=2), assistant("a1", None, "hi"), hook])
    store = SessionStore.open(path)
    entry = store.get_entry("h1")
    assert isinstance(entry, MessageEntry) and isinstance(entry.message, CustomMessage)
    reloaded = read_objects(path)
    assert reloaded[0]["version"] == 3 and reloaded[2]["message"]["role"] == "custom"
    assert reloaded[1] == assistant("a1", None, "hi")
    assert store.writable
    # appends continue the migrated file
    store.append_session_info("after migration")
    assert read_objects(path)[-1]["name"] == "after migration"


def test_open_without_migrate_keeps_the_file_and_is_read_only(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "v2.jsonl", [header(version=2), assistant("a1", None, "hi")])
    before = path.read_bytes()
    store = SessionStore.open(path, migrate=False)
    assert path.read_bytes() == before and not store.writable
    assert store.header.version == 3  # upgraded in memory


def test_migrate_objects_is_a_no_op_for_v3() -> None:
    objects = [header(), assistant("a1", None, "hi")]
    assert not migrate_objects(objects, 3)
    assert objects == [header(), assistant("a1", None, "hi")]


def test_replace_file_atomically_swaps_the_inode_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text("old\n")
    old_inode = path.stat().st_ino
    replace_file_atomically(path, "new\n")
    assert path.read_text() == "new\n"
    assert path.stat().st_ino != old_inode
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["f.jsonl"]


def test_failed_migration_leaves_the_file_and_opens_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_jsonl(tmp_path / "v2.jsonl", [header(version=2), assistant("a1", None, "hi")])
    before = path.read_bytes()

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(migrations, "replace_file_atomically", refuse)
    store = SessionStore.open(path)
    assert path.read_bytes() == before
    assert not store.writable and [e.id for e in store.entries] == ["a1"]
    assert "could not migrate" in store.diagnostics[-1].message
