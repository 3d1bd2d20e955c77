from __future__ import annotations

import pytest

from pi_tui.tools.edit_diff import (
    Edit,
    EditError,
    apply_edits,
    detect_line_ending,
    generate_diff,
    normalize_for_fuzzy_match,
)


def test_line_ending_detection() -> None:
    assert detect_line_ending("a\r\nb\n") == "\r\n"
    assert detect_line_ending("a\nb\r\n") == "\n"
    assert detect_line_ending("abc") == "\n"


def test_fuzzy_normalisation() -> None:
    assert normalize_for_fuzzy_match("\u2018a\u2019 \u201cb\u201d \u2014 x\u00a0y  \n") == "'a' \"b\" - x y\n"


def test_fuzzy_applies_to_normalised_content() -> None:
    base, new = apply_edits("a \u2013 b  \nkeep\u00a0me\n", [Edit("a - b", "c")], "p")
    assert base == "a - b\nkeep me\n" and new == "c\nkeep me\n"


def test_duplicates_counted_in_fuzzy_space() -> None:
    with pytest.raises(EditError, match="Found 2 occurrences"):
        apply_edits("x = 'a'\nx = \u2018a\u2019\n", [Edit("x = 'a'", "y")], "p")


def test_diff_context_and_gaps() -> None:
    old = "".join(f"line{i}\n" for i in range(1, 31))
    new = old.replace("line3\n", "LINE3\n").replace("line25\n", "LINE25\n")
    diff = generate_diff(old, new)
    assert diff.first_changed_line == 3
    lines = diff.diff.split("\n")
    assert lines[:4] == ["  1 line1", "  2 line2", "- 3 line3", "+ 3 LINE3"]
    assert "    ..." in lines and lines[-1] == "    ..."
    assert "-25 line25" in lines and "+25 LINE25" in lines
