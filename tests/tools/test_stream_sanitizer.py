from __future__ import annotations

from pi_tui.tools.stream_sanitizer import StreamSanitizer, sanitize_text


def feed_all(chunks: list[str]) -> str:
    """Apply chunks the way the pipeline does: a rewind erases the open last line."""
    sanitizer = StreamSanitizer()
    out = ""
    for chunk in [*chunks, None]:
        result = sanitizer.feed(chunk) if chunk is not None else sanitizer.finish()
        if result.rewind:
            out = out[: out.rfind("\n") + 1]
        out += result.text
    return out


def test_removes_ansi_csi_osc_and_controls() -> None:
    text = (
        "\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b(Bok\x07\x00\x08\n"
    )
    assert sanitize_text(text) == "red link ok\n"


def test_keeps_tabs_and_unicode() -> None:
    assert sanitize_text("a\tb é 漢字\n") == "a\tb é 漢字\n"


def test_escape_split_across_chunks() -> None:
    assert feed_all(["ab\x1b", "[3", "1mcd\x1b]0;ti", "tle\x07ef\n"]) == "abcdef\n"


def test_unfinished_escape_at_end_is_dropped() -> None:
    assert feed_all(["done\n\x1b[3"]) == "done\n"


def test_carriage_return_progress_collapses() -> None:
    assert feed_all(["10%\r20%\r", "30%\rdone\n", "next\n"]) == "done\nnext\n"


def test_crlf_split_across_chunks_is_a_newline() -> None:
    assert feed_all(["line one\r", "\nline two\r\n"]) == "line one\nline two\n"


def test_blank_line_runs_are_squeezed_across_chunks() -> None:
    assert feed_all(["a\n\n", "\n\n\nb\n\n\n\n", "c"]) == "a\n\nb\n\nc"
    assert feed_all(["\n\n\nstart"]) == "\nstart"


def test_progress_line_ended_by_split_crlf_keeps_squeezing() -> None:
    # the progress line after a blank line is erased; the next blank lines must still squeeze
    assert feed_all(["a\n\nprogress\r", "\n\n\nb"]) == "a\n\nprogress\n\nb"


def test_c1_controls_and_8bit_csi_removed() -> None:
    assert sanitize_text("a\x9b31mb\x85c\ufffad\n") == "abcd\n"


def test_replacement_characters_are_kept() -> None:
    assert sanitize_text("bad \ufffd byte\n") == "bad \ufffd byte\n"
