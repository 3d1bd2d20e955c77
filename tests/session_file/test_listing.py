from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.listing import (
    NO_MESSAGES,
    list_all_sessions,
    list_sessions,
    list_sources,
    list_sources_async,
    summarize_session_file,
)
from tests.support.session_files import assistant, header, user, write_jsonl


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def test_summary_fields_of_a_pi_fixture(pi_fixtures: Path) -> None:
    path = pi_fixtures / "pi-sessions" / "f-tree.jsonl"
    row = summarize_session_file(path)
    assert row is not None
    assert row.id == "01a22996-0b3d-736a-9f5c-2c77129e3197"
    assert row.cwd == "/home/user/project"
    assert row.name == "API cache design"
    assert row.parent_session_path is None
    assert row.created == datetime(2026, 11, 29, 23, 13, 48, 862000, tzinfo=UTC)
    assert _ms(row.modified) == 1795994046141  # the last assistant message's own timestamp
    assert row.message_count == 16  # grep -c "\"type\":\"message\"" f-tree.jsonl
    assert row.first_message == "I need a cache for the API client. What are the options?"
    assert row.source == "pi-tui"


def test_modified_falls_back_to_header_then_mtime(tmp_path: Path) -> None:
    no_messages = write_jsonl(tmp_path / "a.jsonl", [header(parentSession="/x.jsonl")])
    row = summarize_session_file(no_messages)
    assert row is not None
    assert row.first_message == NO_MESSAGES and row.message_count == 0
    assert row.modified == row.created and row.parent_session_path == "/x.jsonl"
    bad_stamp = write_jsonl(tmp_path / "b.jsonl", [header(timestamp="not a date")])
    os.utime(bad_stamp, (1_700_000_000, 1_700_000_000))
    row = summarize_session_file(bad_stamp)
    assert row is not None and _ms(row.modified) == 1_700_000_000_000
    assert summarize_session_file(write_jsonl(tmp_path / "c.jsonl", [user("u", None, "x")])) is None


def test_list_sessions_sorted_by_modified_desc(tmp_path: Path) -> None:
    folder = tmp_path / cwd_folder_name("/p")
    write_jsonl(folder / "1.jsonl", [header(session_id="old"), user("u", None, "old", ms=1000)])
    write_jsonl(folder / "2.jsonl", [header(session_id="new"), assistant("a", None, "new", ms=3000)])
    write_jsonl(folder / "3.jsonl", [header(session_id="mid"), user("u", None, "mid", ms=2000)])
    (folder / "junk.jsonl").write_text("garbage\n")
    (folder / "notes.txt").write_text("ignored")
    rows = list_sessions("/p", tmp_path)
    assert [row.id for row in rows] == ["new", "mid", "old"]
    assert rows[1].first_message == "mid" and rows[0].first_message == NO_MESSAGES
    assert list_sessions("/none", tmp_path) == []


def test_list_all_and_both_sources(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    write_jsonl(
        ours / cwd_folder_name("/a") / "x.jsonl", [header(session_id="a1"), user("u", None, "x", ms=10)]
    )
    write_jsonl(
        ours / cwd_folder_name("/b") / "x.jsonl", [header(session_id="b1"), user("u", None, "x", ms=30)]
    )
    write_jsonl(
        theirs / cwd_folder_name("/a") / "y.jsonl", [header(session_id="pi1"), user("u", None, "x", ms=20)]
    )
    assert [row.id for row in list_all_sessions(ours)] == ["b1", "a1"]
    everything = list_sources(root=ours, pi_root=theirs)
    assert [(row.id, row.source) for row in everything] == [("b1", "pi-tui"), ("pi1", "pi"), ("a1", "pi-tui")]
    assert [row.id for row in list_sources("/a", root=ours, pi_root=theirs)] == ["pi1", "a1"]


async def test_async_listing_matches(tmp_path: Path) -> None:
    write_jsonl(tmp_path / cwd_folder_name("/a") / "x.jsonl", [header(session_id="a1")])
    rows = await list_sources_async(root=tmp_path, pi_root=tmp_path / "none")
    assert [row.id for row in rows] == ["a1"]


def test_listing_hundreds_of_files_summarizes_each_one(tmp_path: Path, pi_fixtures: Path) -> None:
    """How long this takes is measured by `bench/session_load.py` (target: under 3 s)."""
    folder = tmp_path / cwd_folder_name("/home/user/project")
    folder.mkdir(parents=True)
    source = pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl"  # the largest fixture, 90 KB
    names = [f"{index:04d}.jsonl" for index in range(300)]
    for name in names:
        shutil.copyfile(source, folder / name)
    rows = list_sessions("/home/user/project", tmp_path)
    assert sorted(row.path.name for row in rows) == names
    assert {row.message_count for row in rows} == {46}
