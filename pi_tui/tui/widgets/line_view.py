"""A fast, read-only view of many lines: the tool-output viewer's text area.

Built on Textual's line API (`render_line` returning a `Strip`), so only the visible rows are ever
styled, whatever the number of lines. Lines come either from memory (`show_lines`) or, for huge files,
from a line source (`show_paged`) that is asked for the pages being painted (`line_store`). Displayed
lines are capped in length with a `… N more chars` marker, and made safe to paint.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from pi_tui.tui.widgets.line_store import LineSource, LineStore, clip_display

PENDING_TEXT = "…"


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
        self._lines = LineStore()
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
        return self._lines.total

    @property
    def is_paged(self) -> bool:
        return self._lines.paged

    @property
    def cached_line_count(self) -> int:
        return self._lines.cached_count

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
        self._lines.set_lines(lines, first_number=first_number, numbered=numbered, diff=diff)
        self._show_total(reset=not keep_position)

    def append_lines(self, lines: Sequence[str]) -> None:
        """Add in-memory lines at the end (a running command's new output)."""
        if self._lines.append(lines):
            self._show_total(reset=False)

    def show_paged(self, total: int, source: LineSource) -> None:
        """Show `total` lines fetched on demand from `source`; nothing is read until it is painted."""
        self._lines.set_paged(total, source)
        self._show_total(reset=True)

    def set_total(self, total: int) -> None:
        """A paged source grew (indexing progressed or the file grew)."""
        if not self._lines.paged:
            return
        if self._lines.drop_last_line():
            self.refresh()
        if total != self._lines.total:
            self._lines.total = total
            self._show_total(reset=False)

    def provide(self, start: int, lines: Sequence[str]) -> None:
        """Lines a source was asked for, starting at line `start` (0-based)."""
        self._lines.provide(start, lines)
        self._update_virtual_size()
        self.refresh()

    def line_text(self, index: int) -> str | None:
        """Line `index` as it would be painted (before capping); None while a page is on its way."""
        return self._lines.text(index)

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

    def _show_total(self, *, reset: bool) -> None:
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
        return self._lines.number(index)

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._lines.gutter_width() + self._lines.widest, self._lines.total)

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
        if self._lines.paged:
            self._query = query
            self.post_message(self.SearchRequested(self, query))
            return
        needle = query.casefold()
        found = [i for i, line in enumerate(self._lines.memory) if needle and needle in line.casefold()]
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
        if index >= self._lines.total or index < 0:
            return Strip.blank(width, base)
        text = self.line_text(index)
        if text is None:
            self._request(index)
        style = base
        if self._is_seen(index):
            style += self.get_component_rich_style("line-view--seen")
        if index in self._match_set:
            style += self.get_component_rich_style("line-view--match")
        gutter_width = self._lines.gutter_width()
        number = self.line_number(index)
        gutter = Segment(
            f"{'' if number is None else number:>{gutter_width - 1}} ",
            style + self.get_component_rich_style("line-view--gutter"),
        )
        if text is None:
            body = [Segment(PENDING_TEXT, style + self.get_component_rich_style("line-view--pending"))]
        elif index in self._lines.diff_rows:
            body = self._diff_segments(self._lines.diff_rows[index], style)
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
        request = self._lines.page_request(index)
        if request is not None:
            source, start, count = request
            self.call_later(source, start, count)
