"""SpillReader: line access to raw spill files by offset, with a sparse index and bounded memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.tui import spill_reader
from pi_tui.tui.spill_reader import INDEX_STRIDE, SpillReader, next_match, safe_text


def write(tmp_path: Path, data: bytes, name: str = "pi-bash-0000.log") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


async def test_lines_are_counted_as_the_pipeline_counts_them(tmp_path: Path) -> None:
    reader = SpillReader(write(tmp_path, b"one\ntwo\nthree\n"))
    assert await reader.build_index() == 4  # a trailing newline ends in an empty last line
    assert reader.index_complete
    assert await reader.read_lines(0, 10) == ["one", "two", "three", ""]
    assert await reader.read_lines(1, 1) == ["two"]
    assert await reader.read_lines(4, 2) == []


async def test_empty_file_has_one_empty_line(tmp_path: Path) -> None:
    reader = SpillReader(write(tmp_path, b""))
    assert await reader.build_index() == 1
    assert await reader.read_lines(0, 5) == [""]


async def test_reads_any_line_of_a_large_file_through_the_sparse_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill_reader, "CHUNK_BYTES", 4096)  # checkpoints straddle chunk edges
    count = INDEX_STRIDE * 40 + 17
    data = b"".join(f"line {n}\n".encode() for n in range(1, count + 1))
    reader = SpillReader(write(tmp_path, data))
    assert await reader.build_index(chunks_per_step=1) == count + 1
    for start in (0, INDEX_STRIDE - 1, INDEX_STRIDE, INDEX_STRIDE * 7 + 3, count - 2):
        assert await reader.read_lines(start, 2) == [f"line {start + 1}", f"line {start + 2}"]


async def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    reader = SpillReader(write(tmp_path, b"ok\n\xff\xfe bad \xc3\n\xe2\x82\xac euro\n"))
    await reader.build_index()
    assert await reader.read_lines(0, 3) == ["ok", "\ufffd\ufffd bad \ufffd", "€ euro"]


async def test_crlf_line_ends_are_dropped(tmp_path: Path) -> None:
    reader = SpillReader(write(tmp_path, b"first\r\nsecond\r\nlast"))
    assert await reader.build_index() == 3
    assert await reader.read_lines(0, 3) == ["first", "second", "last"]


def test_escape_sequences_and_controls_cannot_reach_the_terminal() -> None:
    assert safe_text("\x1b[31mred\x1b[0m and \x1b]0;title\x07 done") == "red and  done"
    assert safe_text("a\tb\x08c") == "a   b\ufffdc"


async def test_a_10mb_single_line_is_cut_and_the_rest_counted(tmp_path: Path) -> None:
    size = 10 * 1024 * 1024
    reader = SpillReader(write(tmp_path, b"x" * size + b"\nafter\n"))
    assert await reader.build_index() == 3
    first, second = await reader.read_lines(0, 2)
    kept = spill_reader.MAX_LINE_BYTES
    assert first == "x" * kept + f" … {size - kept:,} more bytes"
    assert second == "after"


async def test_a_cut_never_splits_a_utf8_character(tmp_path: Path) -> None:
    reader = SpillReader(write(tmp_path, "é".encode() * 5000), max_line_bytes=11)
    await reader.build_index()
    (line,) = await reader.read_lines(0, 1)
    assert line.startswith("ééééé … ")  # 10 bytes kept, the split 11th byte dropped
    assert "\ufffd" not in line
    assert line.endswith(f"{10000 - 10:,} more bytes")


async def test_indexing_resumes_when_the_file_grows(tmp_path: Path) -> None:
    path = write(tmp_path, b"a\nb")
    reader = SpillReader(path)
    assert await reader.build_index() == 2
    assert await reader.read_lines(1, 1) == ["b"]  # a line still being written
    with path.open("ab") as file:
        file.write(b"c\nd\n")
    assert await reader.build_index() == 4
    assert await reader.read_lines(0, 4) == ["a", "bc", "d", ""]


async def test_progress_is_reported_before_the_index_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill_reader, "CHUNK_BYTES", 1000)
    reader = SpillReader(write(tmp_path, b"0123456789\n" * 1000))
    seen: list[int] = []
    await reader.build_index(chunks_per_step=1, on_progress=seen.append)
    assert len(seen) > 10
    assert seen == sorted(seen)
    assert seen[0] < 1001 and seen[-1] == 1001


async def test_search_finds_lines_case_insensitively_across_chunk_edges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill_reader, "CHUNK_BYTES", 64)
    lines = [f"row {n:04d} " + ("NeedLE here" if n % 37 == 0 else "plain") for n in range(300)]
    reader = SpillReader(write(tmp_path, "\n".join(lines).encode()))
    await reader.build_index()
    result = await reader.search("needle")
    assert result.complete
    assert result.lines == [n for n in range(300) if n % 37 == 0]
    assert (await reader.search("absent")).lines == []


async def test_search_stops_at_the_match_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spill_reader, "MAX_MATCHES", 5)
    reader = SpillReader(write(tmp_path, b"hit\n" * 50))
    await reader.build_index()
    result = await reader.search("HIT")
    assert result.lines == [0, 1, 2, 3, 4]
    assert not result.complete


async def test_a_missing_file_raises_oserror_for_the_caller_to_report(tmp_path: Path) -> None:
    reader = SpillReader(tmp_path / "gone.log")
    with pytest.raises(OSError):
        await reader.build_index()


def test_next_match_wraps_both_ways() -> None:
    lines = [3, 10, 42]
    assert next_match(lines, 0) == 3
    assert next_match(lines, 3) == 10
    assert next_match(lines, 42) == 3
    assert next_match(lines, 10, forward=False) == 3
    assert next_match(lines, 3, forward=False) == 42
    assert next_match([], 5) is None
