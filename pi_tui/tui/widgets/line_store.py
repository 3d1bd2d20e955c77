"""The lines a `LineView` shows, and where they come from: memory, or a line source read page by page.

In-memory lines may be numbered from any number (a truncated output's tail is numbered as its notice
counts the full output), only the first of them numbered (a notice below is not a line of the output),
and some be diff lines (an edit's diff below what the model got). Paged lines are asked for in aligned
pages (`source(start, count)`); the owner answers later with `provide`. Only a bounded number of paged
lines is kept, the least recently painted dropped first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

from pi_tui.tools.diff_lines import DiffLine

MAX_LINE_CHARS = 2000
"""Displayed lines are cut after this many characters (one huge line would stall every repaint)."""
MARKER_ROOM = 32
"""A line up to this much longer than the cap is shown whole, so a marker added upstream survives."""
PAGE_LINES = 256
"""Paged lines are requested in aligned pages of this many."""
MAX_CACHED_LINES = 4096
"""Paged lines kept in memory (least recently painted are dropped first)."""

LineSource = Callable[[int, int], None]
"""Called with (start, count) to ask for lines; the owner answers with `LineView.provide`."""


def clip_display(text: str, limit: int = MAX_LINE_CHARS) -> str:
    if len(text) <= limit + MARKER_ROOM:
        return text
    return f"{text[:limit]}… {len(text) - limit:,} more chars"


class LineStore:
    def __init__(self) -> None:
        self.memory: list[str] = []
        """The in-memory lines (empty while paged)."""
        self.total = 0
        self.paged = False
        self.widest = 0
        """The widest line seen so far, as displayed (after capping)."""
        self.diff_rows: dict[int, DiffLine] = {}
        """The diff lines among the in-memory ones, by index."""
        self._first_number = 1
        self._numbered: int | None = None
        """How many in-memory lines are numbered (None: all of them)."""
        self._cache: OrderedDict[int, str] = OrderedDict()
        self._requested: set[int] = set()
        self._source: LineSource | None = None

    @property
    def cached_count(self) -> int:
        return len(self._cache)

    def set_lines(
        self, lines: Sequence[str], *, first_number: int, numbered: int | None, diff: Sequence[DiffLine]
    ) -> None:
        """In-memory lines numbered from `first_number` (only the first `numbered`, when given), then the
        lines of `diff`, unnumbered."""
        self._forget_pages(source=None)
        self._first_number = max(first_number, 1)
        self._numbered = numbered if numbered is not None or not diff else len(lines)
        self.diff_rows = {len(lines) + offset: line for offset, line in enumerate(diff)}
        self.memory = [*lines, *(line.display for line in diff)]
        self.widest = max((len(clip_display(line)) for line in self.memory), default=0)
        self.total = len(self.memory)

    def append(self, lines: Sequence[str]) -> bool:
        """Add in-memory lines at the end; False when there is nothing to add to (paged, or no lines)."""
        if self.paged or not lines:
            return False
        self.memory.extend(lines)
        self.widest = max(self.widest, *(len(clip_display(line)) for line in lines))
        self.total = len(self.memory)
        return True

    def set_paged(self, total: int, source: LineSource) -> None:
        self._forget_pages(source=source)
        self.memory = []
        self._first_number = 1
        self._numbered = None
        self.diff_rows = {}
        self.widest = 0
        self.total = total

    def _forget_pages(self, source: LineSource | None) -> None:
        self.paged = source is not None
        self._source = source
        self._cache.clear()
        self._requested.clear()

    def drop_last_line(self) -> bool:
        """A paged source grew: its old last line may have grown too, so it is asked for again. True
        when it had been read."""
        stale = self.total - 1
        if self._cache.pop(stale, None) is None:
            return False
        self._requested.discard(stale // PAGE_LINES)
        return True

    def provide(self, start: int, lines: Sequence[str]) -> None:
        """Lines a source was asked for, starting at line `start` (0-based)."""
        self._requested.discard(start // PAGE_LINES)
        for offset, line in enumerate(lines):
            self._cache[start + offset] = line
            self._cache.move_to_end(start + offset)
            self.widest = max(self.widest, len(clip_display(line)))
        while len(self._cache) > MAX_CACHED_LINES:
            self._cache.popitem(last=False)

    def text(self, index: int) -> str | None:
        """Line `index` (before capping); None while its page is on its way."""
        if not self.paged:
            return self.memory[index] if 0 <= index < len(self.memory) else None
        line = self._cache.get(index)
        if line is not None:
            self._cache.move_to_end(index)
        return line

    def number(self, index: int) -> int | None:
        """The number painted beside line `index` (0-based), None when it has none."""
        if self._numbered is not None and index >= self._numbered:
            return None
        return self._first_number + index

    def gutter_width(self) -> int:
        numbered = self.total if self._numbered is None else self._numbered
        return len(str(max(self._first_number + numbered - 1, 1))) + 1

    def page_request(self, index: int) -> tuple[LineSource, int, int] | None:
        """(source, start, count) to ask for line `index`'s page, unless it was asked for already."""
        page = index // PAGE_LINES
        if self._source is None or page in self._requested:
            return None
        self._requested.add(page)
        return self._source, page * PAGE_LINES, PAGE_LINES
