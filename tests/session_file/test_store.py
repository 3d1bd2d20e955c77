from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.entries import LabelEntry, SessionInfoEntry
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionError, SessionReadOnlyError, SessionStore
from tests.support.session_files import assistant, header, read_objects, user, write_jsonl


def _ask(text: str = "hi") -> UserMessage:
    return UserMessage(content=text, timestamp=1795993475799)


def _reply(text: str = "hello") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], provider="fake", model="m", timestamp=1795993475900
    )


def test_nothing_is_written_before_the_first_message_then_everything_is(tmp_path: Path) -> None:
    store = SessionStore.create("/home/u/proj", root=tmp_path)
    assert store.path is not None
    assert store.path.parent == tmp_path / "--home-u-proj--"
    assert (
        store.path.name
        == f"{store.header.timestamp.replace(':', '-').replace('.', '-')}_{store.session_id}.jsonl"
    )
    store.append_model_change("fake", "m")
    store.append_thinking_level_change("off")
    assert not store.path.exists() and not store.is_persisted
    # The prompt is on disk before any reply, so a crash while waiting cannot lose it.
    store.append_message(_ask())
    assert [obj["type"] for obj in read_objects(store.path)] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
    ]
    store.append_message(_reply())
    assert len(store.path.read_text().splitlines()) == 5
    store.append_message(_ask("again"))
    assert len(store.path.read_text().splitlines()) == 6


def test_folder_is_0700_and_file_0600_from_creation(tmp_path: Path) -> None:
    old_umask = os.umask(0)  # a permissive umask must not widen the modes
    try:
        store = SessionStore.create("/p", root=tmp_path)
        store.append_message(_reply())
    finally:
        os.umask(old_umask)
    assert store.path is not None
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_each_append_is_one_write_of_one_complete_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore.create("/p", root=tmp_path)
    store.append_message(_ask())
    store.append_message(_reply())
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    entry = store.append_label(store.entries[0].id, "start")
    assert len(writes) == 1
    assert writes[0].endswith(b"\n") and writes[0].count(b"\n") == 1
    assert store.path is not None
    assert read_objects(store.path)[-1]["id"] == entry.id


def test_append_after_a_torn_tail_starts_a_new_line(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [header(), user("u1", None, "hi"), assistant("a1", "u1", "yo")],
        tail='{"type":"mes',
    )
    store = SessionStore.open(path)
    assert len(store.diagnostics) == 1 and store.writable
    entry = store.append_message(_ask("next"))
    text = path.read_text()
    assert text.endswith("\n")
    assert text.splitlines()[3] == '{"type":"mes'
    reloaded = read_session_file(path)
    assert [e.id for e in reloaded.entries] == ["u1", "a1", entry.id]
    assert [d.message for d in reloaded.diagnostics] == ["line is not valid JSON, skipped"]
    assert reloaded.entries[-1].parent_id == "a1"


def test_read_only_files_refuse_appends_but_allow_navigation(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [user("u1", None, "hi"), assistant("a1", "u1", "yo")])
    before = path.read_bytes()
    store = SessionStore.open(path)
    assert not store.writable
    store.branch("u1")
    with pytest.raises(SessionReadOnlyError):
        store.append_message(_ask())
    assert path.read_bytes() == before
    assert [m.role for m in store.build_context().messages] == ["user"]


def test_in_memory_sessions_never_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = SessionStore.in_memory(str(tmp_path))
    store.append_message(_ask())
    store.append_message(_reply())
    assert store.path is None and not store.is_persisted
    assert list(tmp_path.iterdir()) == []


def test_leaf_branch_reset_and_branch_with_summary() -> None:
    store = SessionStore.in_memory("/p")
    first = store.append_message(_ask("one"))
    second = store.append_message(_reply("r1"))
    assert store.leaf_id == second.id and second.parent_id == first.id
    store.branch(first.id)
    alt = store.append_message(_reply("r1-alt"))
    assert alt.parent_id == first.id
    assert [e.id for e in store.get_branch()] == [first.id, alt.id]
    assert [e.id for e in store.get_branch(second.id)] == [first.id, second.id]
    with pytest.raises(SessionError):
        store.branch("missing")
    store.reset_leaf()
    root = store.append_message(_ask("new root"))
    assert root.parent_id is None
    summary = store.branch_with_summary(None, "went elsewhere")
    assert (summary.parent_id, summary.from_id) == (None, root.id)  # pi 1.6: the leaf that was left
    attached = store.branch_with_summary(second.id, "came back")
    assert (attached.parent_id, attached.from_id) == (second.id, summary.id)
    assert store.leaf_id == attached.id
    store.reset_leaf()
    assert store.branch_with_summary(first.id, "from nowhere").from_id == "root"


def test_tree_children_sorted_and_labels_resolved() -> None:
    store = SessionStore.in_memory("/p")
    first = store.append_message(_ask("one"))
    late = store.append_message(_reply("late"))
    store.branch(first.id)
    early = store.append_message(_reply("early"))
    # force timestamps so that the second child sorts first
    object.__setattr__(early, "timestamp", "2000-01-01T00:00:00.000Z")
    store.append_label(late.id, "keep")
    store.append_label(first.id, "root")
    store.append_label(first.id, None)
    with pytest.raises(SessionError):
        store.append_label("missing", "x")
    assert store.labels == {late.id: "keep"}
    roots = store.get_tree()
    assert [node.entry.id for node in roots] == [first.id]
    assert roots[0].label is None
    children = roots[0].children
    assert [child.entry.id for child in children] == [early.id, late.id]
    assert children[1].label == "keep" and children[1].label_timestamp is not None


def test_session_name_is_latest_info_trimmed_and_empty_clears() -> None:
    store = SessionStore.in_memory("/p")
    assert store.get_session_name() is None
    store.append_session_info("  first  ")
    assert store.get_session_name() == "first"
    entry = store.append_session_info("   ")
    assert isinstance(entry, SessionInfoEntry) and entry.name == ""
    assert store.get_session_name() is None


def test_create_branched_session_copies_path_and_recreates_labels(tmp_path: Path) -> None:
    store = SessionStore.create("/p", root=tmp_path)
    first = store.append_message(_ask("one"))
    reply = store.append_message(_reply("r1"))
    label = store.append_label(first.id, "start")
    after_label = store.append_message(_ask("two"))
    store.branch(reply.id)
    store.append_message(_ask("other branch"))
    clone = store.create_branched_session(after_label.id)
    assert clone.path is not None and clone.path.exists() and store.path is not None
    assert clone.path.parent == store.path.parent
    assert clone.session_id != store.session_id
    assert clone.header.parent_session == str(store.path)
    ids = [entry.id for entry in clone.entries]
    assert ids[:3] == [first.id, reply.id, after_label.id]
    assert label.id not in ids
    # the entry that followed the dropped label is re-linked, so the branch stays connected
    assert clone.get_entry(after_label.id) is not None
    assert clone.get_entry(after_label.id).parent_id == reply.id  # type: ignore[union-attr]
    new_label = clone.entries[-1]
    assert isinstance(new_label, LabelEntry)
    assert (new_label.target_id, new_label.label, new_label.timestamp) == (first.id, "start", label.timestamp)
    assert new_label.parent_id == after_label.id
    assert clone.labels == {first.id: "start"}
    assert [e.id for e in clone.get_branch()][:3] == [first.id, reply.id, after_label.id]
    assert read_objects(clone.path)[0]["parentSession"] == str(store.path)


def test_create_branched_session_without_a_message_is_deferred(tmp_path: Path) -> None:
    store = SessionStore.create("/p", root=tmp_path)
    change = store.append_model_change("fake", "m")
    first = store.append_message(_ask("one"))
    clone = store.create_branched_session(change.id)
    assert clone.path is not None and not clone.path.exists()
    clone.append_message(_reply())
    assert len(read_objects(clone.path)) == 3
    with_prompt = store.create_branched_session(first.id)
    assert with_prompt.path is not None and len(read_objects(with_prompt.path)) == 3
    with pytest.raises(SessionError):
        store.create_branched_session("missing")


def test_fork_from_copies_every_entry_verbatim(tmp_path: Path, pi_fixtures: Path) -> None:
    source = pi_fixtures / "pi-sessions" / "f-tree.jsonl"
    fork = SessionStore.fork_from(source, "/elsewhere", root=tmp_path)
    assert fork.path is not None and fork.path.parent == tmp_path / cwd_folder_name("/elsewhere")
    lines = fork.path.read_text().splitlines()
    assert lines[1:] == source.read_text().splitlines()[1:]
    new_header = read_objects(fork.path)[0]
    assert new_header["cwd"] == "/elsewhere" and new_header["parentSession"] == str(source)
    assert list(new_header) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    bad = write_jsonl(tmp_path / "bad.jsonl", [user("u", None, "x")])
    with pytest.raises(SessionError):
        SessionStore.fork_from(bad, "/x", root=tmp_path)


def test_export_branch_is_linear(tmp_path: Path, pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "f-tree.jsonl")
    store.branch("5db7cdd6")
    out = store.export_branch(tmp_path / "out.jsonl")
    objects = read_objects(out)
    assert objects[0]["type"] == "session" and objects[0]["id"] == store.session_id
    branch_ids = [entry.id for entry in store.get_branch()]
    assert [obj["id"] for obj in objects[1:]] == branch_ids
    assert [obj["parentId"] for obj in objects[1:]] == [None, *branch_ids[:-1]]
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert not read_session_file(out).diagnostics


def test_continue_recent_picks_newest_valid_file_by_mtime(tmp_path: Path) -> None:
    folder = tmp_path / cwd_folder_name("/p")
    old = write_jsonl(folder / "old.jsonl", [header(session_id="old"), assistant("a", None, "x")])
    new = write_jsonl(folder / "new.jsonl", [header(session_id="new"), assistant("a", None, "x")])
    broken = write_jsonl(folder / "broken.jsonl", [user("u", None, "no header")])
    os.utime(old, (1000, 1000))
    os.utime(new, (2000, 2000))
    os.utime(broken, (3000, 3000))
    assert SessionStore.continue_recent("/p", root=tmp_path).session_id == "new"
    fresh = SessionStore.continue_recent("/q", root=tmp_path)
    assert fresh.entries == [] and fresh.path is not None and not fresh.path.exists()


def test_open_missing_path_creates_there_lazily(tmp_path: Path) -> None:
    path = tmp_path / "new" / "named.jsonl"
    store = SessionStore.open(path, cwd="/p")
    assert store.cwd == "/p" and not path.exists()
    store.append_message(_reply())
    assert read_objects(path)[0]["cwd"] == "/p"
