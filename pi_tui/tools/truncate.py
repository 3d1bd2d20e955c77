"""Truncation primitives shared by every tool that returns text (pi's `truncate.ts`).

Two independent limits, lines and UTF-8 bytes; whichever is reached first wins. Lines are
`content.split("\\n")`, so a trailing newline yields a final empty line, exactly as pi counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 51200  # 50 KB
GREP_MAX_LINE_LENGTH = 500  # characters per grep output line

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True)
class TruncationResult:
    """pi's `TruncationResult`; `to_json_obj()` gives the `details.truncation` object with pi's key order."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def utf8_len(text: str) -> int:
    """Bytes `text` takes in UTF-8 (O(1) for ASCII strings)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def format_size(num_bytes: int) -> str:
    """pi's `formatSize`: `512B`, `50.0KB`, `1.5MB`."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_to_fixed_1(num_bytes / 1024)}KB"
    return f"{_to_fixed_1(num_bytes / (1024 * 1024))}MB"


def _to_fixed_1(value: float) -> str:
    # JavaScript's toFixed(1) picks the larger candidate on an exact tie (1.25 -> "1.3"), where
    # Python's format rounds half to even; Decimal on the exact double reproduces JavaScript.
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _untruncated(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(
        content, False, None, lines, size, lines, size, False, False, max_lines, max_bytes
    )


def split_lines_for_counting(content: str) -> list[str]:
    """pi 1.6's `splitLinesForCounting`: a final newline ends the last line (it starts no empty one), and
    an empty text has no lines."""
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the beginning (read, grep, find, ls). Never returns a partial line."""
    total_bytes = utf8_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    if utf8_len(lines[0]) > max_bytes:
        return TruncationResult(
            "", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes
        )
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines):
        if index >= max_lines:
            break
        cost = utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(kept)
    return TruncationResult(
        output, True, truncated_by, total_lines, total_bytes, len(kept), utf8_len(output), False, False,
        max_lines, max_bytes,
    )  # fmt: skip


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the end (bash). If the last line alone is over `max_bytes`, keep its last bytes (partial)."""
    total_bytes = utf8_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    last_line_partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                partial = tail_bytes_at_char_boundary(line, max_bytes)
                kept.append(partial)
                used = utf8_len(partial)
                last_line_partial = True
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    kept.reverse()
    output = "\n".join(kept)
    return TruncationResult(
        output, True, truncated_by, total_lines, total_bytes, len(kept), utf8_len(output),
        last_line_partial, False, max_lines, max_bytes,
    )  # fmt: skip


def tail_bytes_at_char_boundary(text: str, max_bytes: int) -> str:
    """The last `max_bytes` bytes of `text`, advanced to the next UTF-8 character start."""
    if text.isascii():
        return text[-max_bytes:] if max_bytes > 0 else ""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "replace")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """`(text, was_truncated)`: lines over `max_chars` become their start + `... [truncated]`."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
