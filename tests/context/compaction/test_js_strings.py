"""JavaScript string units: lengths, slices and sort order as pi computes them."""

from __future__ import annotations

from pi_tui.context.compaction.js_strings import js_len, js_slice, js_sort_key


def test_length_counts_utf16_units() -> None:
    assert js_len("abc") == 3
    assert js_len("é") == 1
    assert js_len("a😀") == 3


def test_slice_cuts_in_utf16_units() -> None:
    assert js_slice("abcdef", 3) == "abc"
    assert js_slice("😀😀", 2) == "😀"
    assert js_slice("x", -1) == ""


def test_sort_key_orders_by_code_units() -> None:
    # U+FF5E (BMP) sorts after U+1F600 in JavaScript (surrogate 0xD83D < 0xFF5E); code points disagree.
    assert sorted(["～", "😀"], key=js_sort_key) == ["😀", "～"]
    assert sorted(["～", "😀"]) == ["～", "😀"]
