from __future__ import annotations

import pytest

from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_constants_match_pi() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH) == (2000, 51200, 500)


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0B"), (1023, "1023B"), (1024, "1.0KB"), (1280, "1.3KB"), (51200, "50.0KB"), (1048576, "1.0MB"),
     (1024 * 1024 * 3 // 2, "1.5MB"), (1048575, "1024.0KB")],
)  # fmt: skip
def test_format_size(size: int, text: str) -> None:
    assert format_size(size) == text


def test_json_keys_and_order_match_pi_details() -> None:
    result = truncate_tail("a\nb", max_lines=1)
    assert list(result.to_json_obj()) == [
        "content", "truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines", "outputBytes",
        "lastLinePartial", "firstLineExceedsLimit", "maxLines", "maxBytes",
    ]  # fmt: skip


def test_within_limits_untouched() -> None:
    result = truncate_head("a\nb\n")
    assert not result.truncated and result.truncated_by is None
    assert result.content == "a\nb\n"
    assert result.total_lines == 2  # pi 1.6: the trailing newline ends line 2, it starts no line 3
    assert truncate_head("").total_lines == 0 and truncate_tail("x").total_lines == 1


def test_head_by_lines() -> None:
    result = truncate_head("\n".join(str(i) for i in range(10)), max_lines=3)
    assert result.content == "0\n1\n2"
    assert (result.truncated_by, result.output_lines, result.total_lines) == ("lines", 3, 10)


def test_head_by_bytes_never_partial() -> None:
    result = truncate_head("aaaa\nbbbb\ncccc", max_bytes=10)
    assert result.content == "aaaa\nbbbb"
    assert (result.truncated_by, result.output_bytes) == ("bytes", 9)


def test_head_first_line_exceeds() -> None:
    result = truncate_head("x" * 20 + "\nshort", max_bytes=10)
    assert result.content == "" and result.first_line_exceeds_limit
    assert result.truncated_by == "bytes" and result.output_lines == 0


def test_head_counts_utf8_bytes() -> None:
    result = truncate_head("é" * 5 + "\nb", max_bytes=10)
    assert result.total_bytes == 12 and result.content == "é" * 5


def test_tail_by_lines_like_seq() -> None:
    text = "".join(f"{i}\n" for i in range(1, 100001))
    result = truncate_tail(text)
    assert result.truncated_by == "lines"
    assert result.content.startswith("98001\n") and result.content.endswith("99999\n100000")
    assert (result.total_lines, result.output_lines, result.output_bytes) == (100000, 2000, 12000)


def test_tail_by_bytes() -> None:
    result = truncate_tail("aaaa\nbbbb\ncccc", max_bytes=10)
    assert result.content == "bbbb\ncccc" and result.truncated_by == "bytes"
    assert not result.last_line_partial


def test_tail_last_line_partial_at_utf8_boundary() -> None:
    line = "€" * 10  # 30 bytes
    result = truncate_tail("head\n" + line, max_bytes=10)
    assert result.last_line_partial and result.truncated_by == "bytes"
    assert result.content == "€€€"  # 10 bytes back lands inside a character: advance to the next one
    assert result.output_bytes == 9 and result.output_lines == 1


def test_truncate_line() -> None:
    assert truncate_line("x" * 500) == ("x" * 500, False)
    text, cut = truncate_line("y" * 501)
    assert cut and text == "y" * 500 + "... [truncated]"
