from __future__ import annotations

from pathlib import Path

from pi_tui.session_file.entries import MessageEntry, UnknownEntry
from pi_tui.session_file.loader import has_session_header, read_session_file
from tests.support.session_files import assistant, header, user, write_jsonl


def _messages(path: Path) -> list[str]:
    return [diagnostic.message for diagnostic in read_session_file(path).diagnostics]


def test_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [header(), user("u1", None, "hi"), assistant("a1", "u1", "yo")],
        tail='{"type":"mess',
    )
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["u1", "a1"]
    assert len(loaded.diagnostics) == 1
    diagnostic = loaded.diagnostics[0]
    assert diagnostic.path == path and diagnostic.line_number == 4
    assert "incomplete last line" in diagnostic.message
    assert str(path) + ":4" in str(diagnostic)
    assert loaded.writable and not loaded.ends_with_newline


def test_complete_last_line_without_newline_still_loads(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [header()],
        tail='{"type":"custom","id":"c","parentId":null,"timestamp":"t","customType":"x"}',
    )
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["c"]
    assert loaded.diagnostics == [] and not loaded.ends_with_newline


def test_corrupt_middle_line_is_skipped_and_the_rest_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [header(), user("u1", None, "hi")])
    with path.open("a") as handle:
        handle.write("{this is not json\n")
        handle.write("[1, 2]\n")
    write_jsonl(path.with_suffix(".tail"), [assistant("a1", "u1", "yo")])
    path.write_text(path.read_text() + path.with_suffix(".tail").read_text())
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["u1", "a1"]
    assert [(d.line_number, d.message) for d in loaded.diagnostics] == [
        (3, "line is not valid JSON, skipped"),
        (4, "line is JSON but not an object, skipped"),
    ]


def test_unknown_entry_type_is_kept_verbatim_with_a_note(tmp_path: Path) -> None:
    odd = {"type": "hologram", "id": "h1", "parentId": None, "timestamp": "t", "payload": [1.5, {"z": 1}]}
    path = write_jsonl(tmp_path / "s.jsonl", [header(), odd])
    loaded = read_session_file(path)
    entry = loaded.entries[0]
    assert isinstance(entry, UnknownEntry) and entry.to_json_obj() == odd
    assert loaded.diagnostics[0].line_number == 2 and "hologram" in loaded.diagnostics[0].message


def test_valid_json_failing_validation_is_kept_opaque_when_it_has_an_id(tmp_path: Path) -> None:
    bad_label = {"type": "label", "id": "l1", "parentId": None, "timestamp": "t"}  # no targetId
    no_id = {"type": "message", "parentId": None, "timestamp": "t", "message": {"role": "user"}}
    child = user("u2", "l1", "after")
    path = write_jsonl(tmp_path / "s.jsonl", [header(), bad_label, no_id, child])
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["l1", "u2"]
    assert isinstance(loaded.entries[0], UnknownEntry)
    assert loaded.entries[0].to_json_obj() == bad_label
    assert isinstance(loaded.entries[1], MessageEntry)
    lines = [(d.line_number, d.message.split(":")[0]) for d in loaded.diagnostics]
    assert lines == [(2, "invalid 'label' entry kept as-is"), (3, "invalid entry, skipped")]
    assert "targetId" in loaded.diagnostics[0].message


def test_missing_header_loads_entries_read_only(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [user("u1", None, "hi"), assistant("a1", "u1", "yo")])
    loaded = read_session_file(path)
    assert loaded.header is None
    assert [entry.id for entry in loaded.entries] == ["u1", "a1"]
    assert not loaded.writable
    assert loaded.diagnostics[0].line_number == 1 and "not a session header" in loaded.diagnostics[0].message


def test_newer_version_loads_best_effort_read_only(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header(version=4), user("u1", None, "hi")])
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["u1"]
    assert not loaded.writable and not loaded.migrated
    assert "newer" in loaded.diagnostics[0].message


def test_empty_file_is_read_only_with_a_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("")
    loaded = read_session_file(path)
    assert loaded.entries == [] and loaded.header is None and not loaded.writable
    assert _messages(path) == ["empty session file; opened read-only"]


def test_file_that_is_not_json_at_all(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary\xff\xfe garbage\n")
    loaded = read_session_file(path)
    assert loaded.entries == [] and not loaded.writable
    messages = _messages(path)
    assert "invalid UTF-8" in messages[0]
    assert "line is not valid JSON, skipped" in messages
    assert messages[-1].startswith("first entry is not a session header")


def test_unreadable_path_is_a_diagnostic_not_an_exception(tmp_path: Path) -> None:
    loaded = read_session_file(tmp_path)  # a directory
    assert not loaded.writable and "cannot read" in loaded.diagnostics[0].message


def test_has_session_header(tmp_path: Path) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", [header()])
    bad = write_jsonl(tmp_path / "bad.jsonl", [user("u", None, "x")])
    assert has_session_header(good) and not has_session_header(bad)
    assert not has_session_header(tmp_path / "missing.jsonl")


def test_pathologically_nested_line_is_a_diagnostic(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header()], tail="[" * 100_000 + "\n")
    write_jsonl(tmp_path / "tail.jsonl", [user("u1", None, "after")])
    path.write_text(path.read_text() + (tmp_path / "tail.jsonl").read_text())
    loaded = read_session_file(path)
    assert [entry.id for entry in loaded.entries] == ["u1"]
    assert [(d.line_number, d.message) for d in loaded.diagnostics] == [
        (2, "line is not valid JSON, skipped")
    ]
