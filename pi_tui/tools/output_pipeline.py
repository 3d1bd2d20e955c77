"""The streaming output budget: bytes in, a bounded tail preview and a spill file out.

Used by the bash tool and by user `!cmd`. Each chunk is processed as it arrives: the raw bytes go to
the spill file (buffered until the output outgrows the budget, then written as they come), and are
decoded incrementally with replacement, counted, sanitised (`stream_sanitizer`) and appended to a
rolling tail that never holds more than a few times the byte budget. A snapshot is the tail cut by
`truncate_tail`, but whether it is truncated is decided by the global counters, as pi does.

The counters describe the output itself, i.e. the spill file (whose line numbers the model can pass
to `read`), not the sanitised text: lines = 1 + newlines and bytes as received, which equal pi's
decoded counts for valid UTF-8. So a flood need not decode or clean what can never reach the tail:
when one chunk alone is longer than the tail limit, only its last part is decoded and cleaned. Fast
producers deliver big chunks, so the clean-up cost per megabyte falls as the flood grows.
"""

from __future__ import annotations

import codecs
import re
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pi_tui.tools.spill_file import SpillFile, spill_failure_text
from pi_tui.tools.stream_sanitizer import CONTROL_BYTES, StreamSanitizer
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_tail,
    utf8_len,
)

# pi's truncation notice ends with the spill path (results written before `details` held it).
_NOTICE_SPILL_PATH = re.compile(r"Full output: (.+?)\]\s*$", re.MULTILINE)

# The tail is trimmed to TAIL_KEEP x max_bytes once it grows past TAIL_LIMIT x max_bytes (pi: 2 and 4).
TAIL_KEEP = 2
TAIL_LIMIT = 4


@dataclass(frozen=True)
class OutputSnapshot:
    """What the model would see now: the preview text, its truncation and the spill path (if any)."""

    content: str
    truncation: TruncationResult
    full_output_path: str | None
    last_line_bytes: int
    spill_failure: str | None = None
    """Why no spill file could be made (the full output is not kept), when that happened."""

    def details(self) -> dict[str, Any] | None:
        """pi's bash `details`: `{truncation, fullOutputPath}` when truncated, else None."""
        if not self.truncation.truncated:
            return None
        details: dict[str, Any] = {"truncation": self.truncation.to_json_obj()}
        if self.full_output_path is not None:
            details["fullOutputPath"] = self.full_output_path
        return details

    def text(self, empty: str = "(no output)") -> str:
        """Preview + pi's truncation notice; `empty` when there is no output at all."""
        text = self.content or empty
        notice = truncation_notice(self.truncation, self.full_output_path, self.last_line_bytes)
        if notice and self.full_output_path is None and self.spill_failure is not None:
            notice = f"{notice.rsplit(' Full output: ', 1)[0]} {self.spill_failure}]"
        return f"{text}\n\n{notice}" if notice else text


def truncation_notice(
    truncation: TruncationResult, full_output_path: str | None, last_line_bytes: int
) -> str:
    """pi's tail notice naming the shown line range, the totals and the full-output path."""
    if not truncation.truncated:
        return ""
    end = truncation.total_lines
    start = end - truncation.output_lines + 1
    if truncation.last_line_partial:
        return (
            f"[Showing last {format_size(truncation.output_bytes)} of line {end} "
            f"(line is {format_size(last_line_bytes)}). Full output: {full_output_path}]"
        )
    if truncation.truncated_by == "lines":
        return f"[Showing lines {start}-{end} of {truncation.total_lines}. Full output: {full_output_path}]"
    return (
        f"[Showing lines {start}-{end} of {truncation.total_lines} "
        f"({format_size(truncation.max_bytes)} limit). Full output: {full_output_path}]"
    )


def result_spill_path(details: Any, model_text: str) -> str | None:
    """Where a tool result's full output was spilled: `details.fullOutputPath`, else the path named
    by the truncation notice in what the model got."""
    if isinstance(details, dict):
        path = details.get("fullOutputPath")
        if isinstance(path, str) and path:
            return path
    found = _NOTICE_SPILL_PATH.search(model_text)
    return found.group(1) if found else None


class OutputPipeline:
    """Accumulates one command's output with bounded memory. Not thread-safe; feed from one task."""

    def __init__(
        self,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        spill_dir: Path | None = None,
        spill_prefix: str = "pi-bash",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._spill_dir = spill_dir
        self._spill_prefix = spill_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._sanitizer = StreamSanitizer()
        self._pending_raw: list[bytes] = []
        # Raw chunks not decoded yet, newest last, at most about TAIL_KEEP x max_bytes of them kept.
        self._deferred: deque[bytes] = deque()
        self._deferred_size = 0
        self._dropped = False
        self._spill: SpillFile | None = None
        self._spill_failure: str | None = None
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self._line_bytes = 0
        self._finished = False
        self.started = time.monotonic()
        self.ended: float | None = None
        self.raw_bytes = 0
        """Bytes received from the process, what the spill file holds (pi's `totalBytes`)."""
        self._newlines = 0

    @property
    def lines(self) -> int:
        """Lines of the output as pi 1.6 counts them: a final newline ends the last line and starts no
        other (`seq 1 100000` is 100,000 lines, not 100,001); no output is 0 lines."""
        return self._newlines + (1 if self._line_bytes > 0 else 0)

    @property
    def elapsed(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    @property
    def spill_path(self) -> str | None:
        return str(self._spill.path) if self._spill is not None else None

    @property
    def last_line_bytes(self) -> int:
        return self._line_bytes

    def feed(self, data: bytes) -> None:
        if self._finished:
            raise RuntimeError("output pipeline already finished")
        if not data:
            return
        self.raw_bytes += len(data)
        if self._spill is not None:
            self._spill.write(data)
        elif self._spill_failure is None:
            self._pending_raw.append(data)
        newlines = data.count(b"\n")
        if newlines:
            self._newlines += newlines
            self._line_bytes = len(data) - data.rfind(b"\n") - 1
        else:
            self._line_bytes += len(data)
        # Decoding and sanitising wait until the tail is looked at (a snapshot, at most 10 a second, or
        # the end): output that scrolls past unseen is never cleaned, which keeps floods near disk speed.
        self._deferred.append(data)
        self._deferred_size += len(data)
        keep = TAIL_KEEP * self.max_bytes
        while len(self._deferred) > 1 and self._deferred_size - len(self._deferred[0]) >= keep:
            self._deferred_size -= len(self._deferred.popleft())
            self._dropped = True
        if self._spill is None and self._spill_failure is None and self._over_budget():
            self._open_spill()

    def finish(self) -> None:
        """End of output: flush the decoder and the sanitiser; the spill file stays open until close()."""
        if self._finished:
            return
        self._clean_deferred()
        text = self._decoder.decode(b"", final=True)
        chunk = self._sanitizer.feed(text)
        self._append(chunk.rewind, chunk.text)
        end = self._sanitizer.finish()
        self._append(end.rewind, end.text)
        self._finished = True
        self.ended = time.monotonic()
        if self._spill is None and self._spill_failure is None and self._over_budget():
            self._open_spill()

    def close(self) -> None:
        """Flush and close the spill file (idempotent)."""
        if self._spill is not None:
            self._spill.close()
        self._pending_raw = []

    def snapshot(self, *, persist_if_truncated: bool = True) -> OutputSnapshot:
        """The current preview; a truncated snapshot always names a spill file (created if needed)."""
        self._clean_deferred()
        text = self._tail
        if not self._tail_at_line_start:
            newline = text.find("\n")
            if newline >= 0:
                text = text[newline + 1 :]
        tail = truncate_tail(text, max_lines=self.max_lines, max_bytes=self.max_bytes)
        truncated = self.lines > self.max_lines or self.raw_bytes > self.max_bytes
        truncated_by = None
        if truncated:
            truncated_by = tail.truncated_by or ("bytes" if self.raw_bytes > self.max_bytes else "lines")
        truncation = replace(
            tail,
            truncated=truncated,
            truncated_by=truncated_by,
            total_lines=self.lines,
            total_bytes=self.raw_bytes,
        )
        if truncated and persist_if_truncated and self._spill is None and self._spill_failure is None:
            self._open_spill()
        return OutputSnapshot(
            truncation.content, truncation, self.spill_path, self._line_bytes, self._spill_failure
        )

    def progress(self) -> dict[str, Any]:
        """Counters for streaming updates."""
        return {
            "totalLines": self.lines,
            "totalBytes": self.raw_bytes,
            "elapsedMs": round(self.elapsed * 1000),
        }

    def _over_budget(self) -> bool:
        return self.raw_bytes > self.max_bytes or self.lines > self.max_lines

    def _open_spill(self) -> None:
        """A spill file that cannot be made (a full disk, a link in its folder) costs the full output, not
        the command: the preview goes on and the notice says why the rest was not kept."""
        try:
            self._spill = SpillFile(self._spill_dir, self._spill_prefix)
        except OSError as error:
            self._spill_failure = spill_failure_text(error)
            self._pending_raw = []
            return
        for chunk in self._pending_raw:
            self._spill.write(chunk)
        self._pending_raw = []

    def _clean(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        dirty = not data.isascii() or len(data.translate(None, CONTROL_BYTES)) != len(data)
        chunk = self._sanitizer.feed(text, may_have_controls=dirty)
        self._append(chunk.rewind, chunk.text)

    def _clean_deferred(self) -> None:
        if not self._deferred:
            return
        data = b"".join(self._deferred)
        self._deferred.clear()
        self._deferred_size = 0
        if self._dropped or len(data) > TAIL_LIMIT * self.max_bytes:
            self._dropped = False
            data = self._skip_to_tail(data)
        self._clean(data)

    def _skip_to_tail(self, data: bytes) -> bytes:
        """Keep only the part of an oversized chunk that can reach the tail: from a line start if there
        is one, else from a character start. Decoder, sanitiser and tail start afresh there."""
        cut = max(0, len(data) - TAIL_KEEP * self.max_bytes)
        newline = data.find(b"\n", cut, len(data) - 1)
        self._tail = ""
        self._tail_bytes = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._sanitizer = StreamSanitizer()
        self._tail_at_line_start = newline >= 0
        if newline >= 0:
            return data[newline + 1 :]
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut += 1
        return data[cut:]

    def _append(self, rewind: bool, text: str) -> None:
        if rewind:
            self._erase_open_line()
        if not text:
            return
        size = utf8_len(text)
        self._tail += text
        self._tail_bytes += size
        if self._tail_bytes > TAIL_LIMIT * self.max_bytes:
            self._trim_tail()

    def _erase_open_line(self) -> None:
        newline = self._tail.rfind("\n")
        removed = self._tail[newline + 1 :]
        self._tail = self._tail[: newline + 1]
        self._tail_bytes -= utf8_len(removed)
        if newline < 0:
            self._tail_at_line_start = True

    def _trim_tail(self) -> None:
        keep = max(TAIL_KEEP * self.max_bytes, 1)
        if self._tail.isascii():
            cut = len(self._tail) - keep
            self._tail_at_line_start = self._tail[cut - 1] == "\n"
            self._tail = self._tail[cut:]
            self._tail_bytes = len(self._tail)
            return
        data = self._tail.encode("utf-8", "surrogatepass")
        start = len(data) - keep
        while start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
        self._tail_at_line_start = data[start - 1] == 0x0A
        self._tail = data[start:].decode("utf-8", "surrogatepass")
        self._tail_bytes = len(data) - start
