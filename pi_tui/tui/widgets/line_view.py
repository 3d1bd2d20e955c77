"""A fast, read-only view of many lines: the tool-output viewer's text area (textual-notes §C.1).

Built on the line API (`render_line` returning a `Strip`), so only the visible rows are ever styled,
whatever the number of lines. Lines come either from memory (`show_lines`) or, for huge files, from a
line source (`show_paged`): the view asks the source for the pages it needs to paint (`source(start,
count)`) and the owner answers later with `provide`. Only a bounded number of paged lines is kept.
Displayed lines are capped in length with a `… N more chars` marker, and made safe to paint.

In-memory lines may be numbered from any number (a truncated output's tail is numbered as its notice
counts the full output), only the first of them numbered (a notice below is not a line of the output),
and some painted as diff lines (an edit's diff below what the model got).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pi_tui.tools.diff_lines import DiffLine
from pi_tui.tui.spill_reader import next_match, safe_text
from pi_tui.tui.widgets.diff_view import DIFF_COMPONENT_CLASSES, DIFF_CSS, diff_spans, kind_class

MAX_LINE_CHARS = 2000
"""Displayed lines are cut after this many characters (one huge line would stall every repaint)."""
MARKER_ROOM = 32
"""A line up to this much longer than the cap is shown whole, so a marker added upstream survives."""
PAGE_LINES = 256
"""Paged lines are requested in aligned pages of this many."""
MAX_CACHED_LINES = 4096
"""Paged lines kept in memory (least recently painted are dropped first)."""
PENDING_TEXT = "…"

LineSource = Callable[[int, int], None]
"""Called with (start, count) to ask for lines; the owner answers with `LineView.provide`."""


def clip_display(text: str, limit: int = MAX_LINE_CHARS) -> str:
    if len(text) <= limit + MARKER_ROOM:
        return text
    return f"{text[:limit]}… {len(text) - limit:,} more chars"


class LineView(ScrollView, can_focus=True):
    """Numbered lines with highlighted ranges, search matches and a follow-tail mode."""

    DEFAULT_CSS = (
        """
    LineView {
        background: $surface;
        color: $text;
        & > .line-view--gutter { color: $text-muted; }
        & > .line-view--seen { background: $primary 25%; }
        & > .line-view--match { background: $warning 25%; }
        & > .line-view--current { background: $warning 70%; color: $text; text-style: bold; }
        & > .line-view--pending { color: $text-muted; }
    """
        + DIFF_CSS
        + "}"
    )

    COMPONENT_CLASSES = {
        "line-view--gutter",
        "line-view--seen",
        "line-view--match",
        "line-view--current",
        "line-view--pending",
        *DIFF_COMPONENT_CLASSES,
    }

    BINDINGS = [
        Binding("f", "toggle_follow", "Follow", tooltip="Follow the tail of the output"),
        Binding("n", "next_match", "Next match", show=False),
        Binding("N,shift+n", "previous_match", "Previous match", show=False),
    ]

    follow: var[bool] = var(False)
    """Stick to the last line as lines arrive; any scroll up releases it."""

    @dataclass
    class StatusChanged(Message):
        """Search or follow state changed; `text` is a short status such as `3 of 12`."""

        line_view: LineView
        text: str

        @property
        def control(self) -> LineView:
            return self.line_view

    @dataclass
    class SearchRequested(Message):
        """A paged view cannot search itself: the owner searches the source and calls `set_matches`."""

        line_view: LineView
        query: str

        @property
        def control(self) -> LineView:
            return self.line_view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._memory: list[str] = []
        self._first_number = 1
        self._numbered: int | None = None
        """How many in-memory lines are numbered (None: all of them)."""
        self._diff_rows: dict[int, DiffLine] = {}
        self._paged = False
        self._total = 0
        self._cache: OrderedDict[int, str] = OrderedDict()
        self._requested: set[int] = set()
        self._source: LineSource | None = None
        self._widest = 0
        self._highlights: list[tuple[int, int]] = []
        self._query = ""
        self._matches: list[int] = []
        self._match_set: frozenset[int] = frozenset()
        self._matches_complete = True
        self._current: int | None = None
        self._auto_scrolling = False

    # --- content -------------------------------------------------------------------------------------

    @property
    def line_count(self) -> int:
        return self._total

    @property
    def is_paged(self) -> bool:
        return self._paged

    @property
    def cached_line_count(self) -> int:
        return len(self._cache)

    def show_lines(
        self,
        lines: Sequence[str],
        *,
        keep_position: bool = False,
        first_number: int = 1,
        numbered: int | None = None,
        diff: Sequence[DiffLine] = (),
    ) -> None:
        """Show in-memory lines, numbered from `first_number` (only the first `numbered` of them, when
        given), then the lines of `diff`, coloured and unnumbered; the scroll position is kept (or the
        end, when following)."""
        self._paged = False
        self._source = None
        self._cache.clear()
        self._requested.clear()
        self._first_number = max(first_number, 1)
        self._numbered = numbered if numbered is not None or not diff else len(lines)
        self._diff_rows = {len(lines) + offset: line for offset, line in enumerate(diff)}
        self._memory = [*lines, *(line.display for line in diff)]
        self._widest = max((len(clip_display(line)) for line in self._memory), default=0)
        self._set_total(len(self._memory), reset=not keep_position)

    def append_lines(self, lines: Sequence[str]) -> None:
        """Add in-memory lines at the end (a running command's new output)."""
        if self._paged or not lines:
            return
        self._memory.extend(lines)
        self._widest = max(self._widest, *(len(clip_display(line)) for line in lines))
        self._set_total(len(self._memory), reset=False)

    def show_paged(self, total: int, source: LineSource) -> None:
        """Show `total` lines fetched on demand from `source`; nothing is read until it is painted."""
        self._memory = []
        self._first_number = 1
        self._numbered = None
        self._diff_rows = {}
        self._paged = True
        self._source = source
        self._cache.clear()
        self._requested.clear()
        self._widest = 0
        self._set_total(total, reset=True)

    def set_total(self, total: int) -> None:
        """A paged source grew (indexing progressed or the file grew); its old last line may have grown,
        so it is fetched again."""
        if not self._paged:
            return
        stale = self._total - 1
        if self._cache.pop(stale, None) is not None:
            self._requested.discard(stale // PAGE_LINES)
            self.refresh()
        if total != self._total:
            self._set_total(total, reset=False)

    def provide(self, start: int, lines: Sequence[str]) -> None:
        """Lines a source was asked for, starting at line `start` (0-based)."""
        self._requested.discard(start // PAGE_LINES)
        for offset, line in enumerate(lines):
            self._cache[start + offset] = line
            self._cache.move_to_end(start + offset)
            self._widest = max(self._widest, len(clip_display(line)))
        while len(self._cache) > MAX_CACHED_LINES:
            self._cache.popitem(last=False)
        self._update_virtual_size()
        self.refresh()

    def line_text(self, index: int) -> str | None:
        """Line `index` as it would be painted (before capping); None while a page is on its way."""
        if not self._paged:
            return self._memory[index] if 0 <= index < len(self._memory) else None
        line = self._cache.get(index)
        if line is not None:
            self._cache.move_to_end(index)
        return line

    def highlight(self, ranges: Sequence[tuple[int, int]]) -> None:
        """Mark lines `[start, end)` (0-based) as seen by the model."""
        self._highlights = sorted(ranges)
        self.refresh()

    def scroll_to_line(self, index: int) -> None:
        """Bring line `index` into view, a few lines below the top."""
        self._auto_scrolling = True
        try:
            self.scroll_to(y=max(index - 3, 0), animate=False, immediate=True, force=True)
        finally:
            self._auto_scrolling = False

    def _set_total(self, total: int, *, reset: bool) -> None:
        self._total = total
        self._auto_scrolling = True
        try:
            self._update_virtual_size()
            if self.follow:
                self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            elif reset:
                self.scroll_to(x=0, y=0, animate=False, immediate=True, force=True)
        finally:
            self._auto_scrolling = False
        self.refresh()

    def line_number(self, index: int) -> int | None:
        """The number painted beside line `index` (0-based), None when it has none."""
        if self._numbered is not None and index >= self._numbered:
            return None
        return self._first_number + index

    def _gutter_width(self) -> int:
        numbered = self._total if self._numbered is None else self._numbered
        return len(str(max(self._first_number + numbered - 1, 1))) + 1

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._gutter_width() + self._widest, self._total)

    # --- follow ----------------------------------------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.follow and not self._auto_scrolling and new_value < old_value:
            self.follow = False

    def watch_follow(self, follow: bool) -> None:
        if follow:
            self._auto_scrolling = True
            try:
                self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            finally:
                self._auto_scrolling = False
        self._post_status()

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow

    # --- search ----------------------------------------------------------------------------------------

    @property
    def matches(self) -> list[int]:
        return self._matches

    @property
    def current_match(self) -> int | None:
        return self._current

    def search(self, query: str) -> None:
        """Find `query` (case-insensitive) and go to the first match after the top line."""
        if self._paged:
            self._query = query
            self.post_message(self.SearchRequested(self, query))
            return
        needle = query.casefold()
        found = [i for i, line in enumerate(self._memory) if needle and needle in line.casefold()]
        self.set_matches(query, found)

    def clear_search(self) -> None:
        """Forget the search (another text is shown): no matches, no "n of m" in the status."""
        self._query = ""
        self._matches = []
        self._match_set = frozenset()
        self._matches_complete = True
        self._current = None
        self.refresh()
        self._post_status()

    def set_matches(self, query: str, lines: Sequence[int], complete: bool = True) -> None:
        """The lines holding `query` (sorted); jumps to the first one at or after the top line."""
        self._query = query
        self._matches = list(lines)
        self._match_set = frozenset(self._matches)
        self._matches_complete = complete
        self._current = None
        top = round(self.scroll_offset.y)
        self._go_to_match(next_match(self._matches, top - 1))

    def action_next_match(self) -> None:
        self._go_to_match(next_match(self._matches, self._current_or_top(), forward=True))

    def action_previous_match(self) -> None:
        self._go_to_match(next_match(self._matches, self._current_or_top(), forward=False))

    def _current_or_top(self) -> int:
        return self._current if self._current is not None else round(self.scroll_offset.y)

    def _go_to_match(self, line: int | None) -> None:
        self._current = line
        if line is not None:
            self.follow = False
            self.scroll_to_line(line)
        self.refresh()
        self._post_status()

    def status_text(self) -> str:
        parts = []
        if self._query:
            if not self._matches:
                parts.append(f"no match for {self._query!r}")
            else:
                position = self._matches.index(self._current) + 1 if self._current in self._match_set else 0
                more = "" if self._matches_complete else "+"
                parts.append(f"{position} of {len(self._matches)}{more}")
        if self.follow:
            parts.append("following")
        return " · ".join(parts)

    def _post_status(self) -> None:
        self.post_message(self.StatusChanged(self, self.status_text()))

    # --- painting ------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= self._total or index < 0:
            return Strip.blank(width, base)
        text = self.line_text(index)
        if text is None:
            self._request(index)
        style = base
        if self._is_seen(index):
            style += self.get_component_rich_style("line-view--seen")
        if index in self._match_set:
            style += self.get_component_rich_style("line-view--match")
        gutter_width = self._gutter_width()
        number = self.line_number(index)
        gutter = Segment(
            f"{'' if number is None else number:>{gutter_width - 1}} ",
            style + self.get_component_rich_style("line-view--gutter"),
        )
        if text is None:
            body = [Segment(PENDING_TEXT, style + self.get_component_rich_style("line-view--pending"))]
        elif index in self._diff_rows:
            body = self._diff_segments(self._diff_rows[index], style)
        else:
            body = self._body_segments(clip_display(safe_text(text)), style, index == self._current)
        text_width = max(width - gutter_width, 0)
        scroll_x = round(self.scroll_offset.x)
        body_strip = Strip(body).crop(scroll_x, scroll_x + text_width).extend_cell_length(text_width, style)
        return Strip.join([Strip([gutter]), body_strip]).crop(0, width)

    def _body_segments(self, text: str, style: Style, current: bool) -> list[Segment]:
        needle = self._query.casefold()
        folded = text.casefold()
        if not needle or len(folded) != len(text) or needle not in folded:
            return [Segment(text, style)]
        mark = style + self.get_component_rich_style("line-view--current" if current else "line-view--match")
        segments: list[Segment] = []
        position = 0
        while (found := folded.find(needle, position)) >= 0:
            segments.append(Segment(text[position:found], style))
            segments.append(Segment(text[found : found + len(needle)], mark))
            position = found + len(needle)
        segments.append(Segment(text[position:], style))
        return segments

    def _diff_segments(self, line: DiffLine, style: Style) -> list[Segment]:
        colour = style + self.get_component_rich_style(kind_class(line.kind))
        changed = colour + self.get_component_rich_style("diff--changed", partial=True)
        return [
            Segment(safe_text(piece), changed if role == "changed" else colour)
            for piece, role in diff_spans(line)
        ]

    def _is_seen(self, index: int) -> bool:
        return any(start <= index < end for start, end in self._highlights)

    def _request(self, index: int) -> None:
        page = index // PAGE_LINES
        if self._source is None or page in self._requested:
            return
        self._requested.add(page)
        self.call_later(self._source, page * PAGE_LINES, PAGE_LINES)
