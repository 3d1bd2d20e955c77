"""Lazy, bounded-memory access to a spill file: the raw, possibly huge, full output of a tool call.

A spill file holds the bytes a command wrote, so it may be hundreds of megabytes, contain
invalid UTF-8, CRLF line ends or one enormous line. The reader never holds the file in memory: a sparse
index (the byte offset of every `INDEX_STRIDE`-th line) is built in chunks, and lines are read by seeking
to the nearest indexed line. Lines are numbered as the output pipeline counts them (1 + newlines, so a
trailing newline makes a last empty line), which is what the line range in pi's truncation notice
refers to; here they are 0-based.

Every method that touches the disk is a coroutine that does the work in `asyncio.to_thread`, so the
caller (a worker) never blocks the event loop. Indexing may be resumed when the file grows while its
command is still running.
"""

from __future__ import annotations

import asyncio
import re
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

INDEX_STRIDE = 256
"""Every this-many lines the index records a byte offset; a read seeks there and skips at most this many."""
CHUNK_BYTES = 1 << 20
"""Indexing and searching read the file in pieces of this size."""
MAX_LINE_BYTES = 1950
"""A line is cut after this many bytes; the rest is skipped, not read into memory, and counted."""
MAX_MATCHES = 100_000
"""Search reports at most this many matching lines (enough to step through, bounded in memory)."""
_SKIP_BYTES = 1 << 16

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def display_text(raw: bytes) -> str:
    """A raw line as text safe to paint: decoded with replacement, see `safe_text`."""
    return safe_text(raw.decode("utf-8", "replace"))


def safe_text(text: str) -> str:
    """One line made safe to paint: a trailing carriage return dropped, escape sequences removed, tabs
    expanded, other control characters shown as `\ufffd` (they would move a real terminal's cursor)."""
    if text.endswith("\r"):
        text = text[:-1]
    if text.isascii() and text.isprintable():
        return text
    text = _ESCAPES.sub("", text).expandtabs(4)
    return _CONTROLS.sub("\ufffd", text)


def clip_marker(omitted_bytes: int) -> str:
    return f" … {omitted_bytes:,} more bytes"


@dataclass(frozen=True)
class SearchResult:
    """The 0-based lines that contain the query; `complete` is False when MAX_MATCHES cut the list."""

    query: str
    lines: list[int]
    complete: bool


class SpillReader:
    """Reads one spill file by line number. Safe to share between workers of one event loop."""

    def __init__(self, path: Path | str, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        self._checkpoints = array("q", [0])
        """Byte offset of line k * INDEX_STRIDE, for every k indexed so far."""
        self._indexed_bytes = 0
        self._newlines = 0
        self._complete = False
        self._lock = asyncio.Lock()
        self._step_lock = threading.Lock()
        """A cancelled caller leaves its thread step running; the next step waits for it."""

    @property
    def line_count(self) -> int:
        """Lines known so far (pi's counting: newlines + 1); final once `index_complete`."""
        return self._newlines + 1

    @property
    def indexed_bytes(self) -> int:
        return self._indexed_bytes

    @property
    def index_complete(self) -> bool:
        """True once the index reached the end of the file as it was when indexing last ran."""
        return self._complete

    async def build_index(
        self, *, chunks_per_step: int = 4, on_progress: Callable[[int], None] | None = None
    ) -> int:
        """Index up to the current end of the file, a few chunks per thread hop, and return the line
        count. `on_progress(line_count)` runs on the caller's loop after each step, so a view can grow
        (and show its first screen) long before a huge file is indexed. Cancelling the calling worker
        stops it between steps; calling it again resumes, which also picks up output appended since
        (a running command)."""
        async with self._lock:
            self._complete = False
            while not self._complete:
                self._complete = await asyncio.to_thread(self._index_step, chunks_per_step)
                if on_progress is not None:
                    on_progress(self.line_count)
        return self.line_count

    async def read_lines(self, start: int, count: int) -> list[str]:
        """Lines `start` .. `start + count - 1` (0-based, clipped to what is indexed) as display text;
        a line longer than `max_line_bytes` ends with a `… N more bytes` marker."""
        end = min(start + count, self.line_count)
        if start < 0 or start >= end:
            return []
        return await asyncio.to_thread(self._read_lines, start, end)

    async def search(self, query: str) -> SearchResult:
        """Every indexed line containing `query` (ASCII case-insensitive, on the raw bytes)."""
        if not query:
            return SearchResult(query, [], True)
        return await asyncio.to_thread(self._search, query)

    # --- thread side ---------------------------------------------------------------------------------

    def _index_step(self, chunks: int) -> bool:
        with self._step_lock, self.path.open("rb") as file:
            file.seek(self._indexed_bytes)
            for _ in range(chunks):
                data = file.read(CHUNK_BYTES)
                if not data:
                    return True
                self._index_chunk(data)
        return False

    def _index_chunk(self, data: bytes) -> None:
        base = self._indexed_bytes
        found = data.count(b"\n")
        line = self._newlines  # the line the next newline ends
        next_mark = len(self._checkpoints) * INDEX_STRIDE  # the line whose start to record next
        if line + found + 1 > next_mark:
            position = -1
            for _ in range(found):
                position = data.find(b"\n", position + 1)
                line += 1
                if line == next_mark:
                    self._checkpoints.append(base + position + 1)
                    next_mark += INDEX_STRIDE
        self._newlines += found
        self._indexed_bytes = base + len(data)

    def _seek_line(self, file: BinaryIO, line: int) -> None:
        mark = min(line // INDEX_STRIDE, len(self._checkpoints) - 1)
        file.seek(self._checkpoints[mark])
        for _ in range(line - mark * INDEX_STRIDE):
            self._skip_rest_of_line(file)

    def _skip_rest_of_line(self, file: BinaryIO) -> int:
        skipped = 0
        while True:
            piece = file.readline(_SKIP_BYTES)
            skipped += len(piece)
            if not piece or piece.endswith(b"\n"):
                return skipped - (1 if piece.endswith(b"\n") else 0)

    def _read_lines(self, start: int, end: int) -> list[str]:
        lines: list[str] = []
        with self.path.open("rb") as file:
            self._seek_line(file, start)
            for _ in range(start, end):
                raw = file.readline(self.max_line_bytes + 1)
                if raw.endswith(b"\n"):
                    lines.append(display_text(raw[:-1]))
                    continue
                if len(raw) <= self.max_line_bytes:  # the last line, or a line still being written
                    lines.append(display_text(raw))
                    continue
                kept = _cut_at_char(raw[: self.max_line_bytes])
                omitted = len(raw) - len(kept) + self._skip_rest_of_line(file)
                lines.append(display_text(kept) + clip_marker(omitted))
        return lines

    def _search(self, query: str) -> SearchResult:
        pattern = re.compile(re.escape(query.encode("utf-8")), re.IGNORECASE)
        overlap = max(len(query.encode("utf-8")) - 1, 0)
        limit = self._indexed_bytes
        matches: list[int] = []
        line = 0
        offset = 0
        carry = b""
        with self.path.open("rb") as file:
            while offset < limit:
                data = file.read(min(CHUNK_BYTES, limit - offset))
                if not data:
                    break
                window = carry + data
                window_start = offset - len(carry)
                counted = 0  # bytes of `window` whose newlines are in `line`
                line_at = line - carry.count(b"\n")
                for match in pattern.finditer(window):
                    line_at += window.count(b"\n", counted, match.start())
                    counted = match.start()
                    if (not matches or matches[-1] != line_at) and window_start + match.start() >= 0:
                        matches.append(line_at)
                        if len(matches) >= MAX_MATCHES:
                            return SearchResult(query, matches, False)
                line += data.count(b"\n")
                offset += len(data)
                carry = window[len(window) - overlap :] if overlap else b""
        return SearchResult(query, matches, True)


def _cut_at_char(data: bytes) -> bytes:
    """Drop a UTF-8 sequence split by the cut, so the kept part decodes cleanly."""
    back = 0
    while back < min(4, len(data)) and (data[-1 - back] & 0xC0) == 0x80:
        back += 1
    if back < len(data) and data[-1 - back] >= 0xC0:
        return data[: len(data) - back - 1]
    return data


def next_match(lines: list[int], current: int, *, forward: bool = True) -> int | None:
    """The match after (or before) line `current`, wrapping around; None when there are none."""
    if not lines:
        return None
    if forward:
        index = bisect_left(lines, current + 1)
        return lines[index % len(lines)]
    index = bisect_left(lines, current) - 1
    return lines[index]
