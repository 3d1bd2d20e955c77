"""The line view's store: numbering of in-memory lines, and paged lines asked for once per page, kept
within a bound, the last one asked for again when the source grows."""

from __future__ import annotations

from pi_tui.tools.diff_lines import parse_diff
from pi_tui.tui.widgets.line_store import MAX_CACHED_LINES, PAGE_LINES, LineStore


def test_a_tail_is_numbered_from_where_it_starts_and_the_diff_below_is_not() -> None:
    store = LineStore()
    diff = parse_diff("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n")
    store.set_lines(["line 98", "line 99"], first_number=98, numbered=None, diff=diff)
    assert [store.number(index) for index in range(store.total)] == [98, 99] + [None] * len(diff)
    assert store.gutter_width() == len("99") + 1
    assert set(store.diff_rows) == set(range(2, store.total))


def test_each_page_is_asked_for_once_until_it_arrives() -> None:
    asked: list[tuple[int, int]] = []
    store = LineStore()
    store.set_paged(3 * PAGE_LINES, lambda start, count: asked.append((start, count)))
    first = store.page_request(PAGE_LINES + 5)
    assert first is not None and first[1:] == (PAGE_LINES, PAGE_LINES)
    assert store.page_request(PAGE_LINES + 6) is None  # same page, on its way
    store.provide(PAGE_LINES, [f"line {n}" for n in range(PAGE_LINES)])
    assert store.text(PAGE_LINES + 6) == "line 6"
    assert store.text(0) is None and store.page_request(0) is not None


def test_paged_lines_are_kept_within_the_bound_least_recently_read_dropped_first() -> None:
    store = LineStore()
    store.set_paged(MAX_CACHED_LINES + PAGE_LINES, lambda start, count: None)
    store.provide(0, ["first"] * PAGE_LINES)
    store.text(0)  # read again: now the most recent
    store.provide(PAGE_LINES, ["more"] * (MAX_CACHED_LINES - PAGE_LINES + 1))  # one line too many
    assert store.cached_count == MAX_CACHED_LINES
    assert store.text(0) == "first" and store.text(1) is None and store.text(2) == "first"


def test_a_grown_source_has_its_old_last_line_read_again() -> None:
    store = LineStore()
    store.set_paged(10, lambda start, count: None)
    store.provide(0, [f"line {n}" for n in range(10)])
    assert store.drop_last_line()
    assert store.text(9) is None and store.text(8) == "line 8"
    assert store.page_request(9) is not None
