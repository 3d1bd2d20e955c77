"""The context inspector pane: budget bar, headline, drift alerts, segment table and exact texts.

The pane only renders what `show` hands it: the screen builds `InspectorData` and `SegmentTexts` in a
worker (tokenising and converting are too slow for the UI thread) and calls `show` with both. The table
is filled only while the pane is on screen, a batch of rows per frame: a DataTable measures every cell
of the rows it is given, which on a 5,000-message session would hold the UI for seconds.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize, Show
from textual.message import Message
from textual.widgets import DataTable, Static, TextArea

from pi_tui.session.inspector import InspectorData
from pi_tui.tui.inspector_view import (
    EMPTY_TEXTS,
    SegmentTexts,
    TableRow,
    cap_text,
    drift_alerts,
    headline_lines,
    table_rows,
)
from pi_tui.tui.widgets.budget_bar import BudgetBar
from pi_tui.tui.widgets.fitted_table import FittedTable

MAX_DETAIL_CHARS = 40_000
"""Longer texts are cut for display (TextArea cost grows with size); the note gives the full size."""
NARROW_WIDTH = 44
"""Below this many columns the preview column is left out."""
SHORT_HEIGHT = 24
"""Below this many rows (an 80x24 terminal) the blank lines between the parts and the bar's legend go,
so the table keeps a few rows and the detail a few lines."""
SHRINKABLE = (("preview", 10), ("name", 8))
"""The previews give up width first (each row's full text is below the table), then the names."""
NO_SELECTION = "The exact text the model gets for the row under the cursor shows here."
FILL_BATCH = 200
"""Rows added to the table per frame (the first batch at once, so a short session fills in one go)."""


class ContextInspector(Vertical):
    """Where the context window goes, live: what is in it, what it costs and what broke the cache."""

    ALLOW_MAXIMIZE = True
    """F11 gives the pane the whole screen."""

    DEFAULT_CSS = """
    ContextInspector {
        height: 1fr;
        width: 1fr;
        padding: 0 1;
        & > #inspector-headline { height: auto; }
        & > #inspector-budget { margin: 1 0 0 0; }
        & > #inspector-drift { height: auto; color: $text-muted; margin: 1 0 0 0; }
        & > #inspector-drift.-drifted { color: $pi-drift; text-style: bold; }
        & > #inspector-table { height: 1fr; min-height: 4; margin: 1 0 0 0; }
        & > #inspector-detail-title { height: 1; color: $text-muted; text-wrap: nowrap;
                                      text-overflow: ellipsis; }
        & > #inspector-detail { height: 1fr; min-height: 3; border: none; padding: 0; }
        &.-narrow > #inspector-budget, &.-short > #inspector-budget { margin: 0; }
        &.-narrow > #inspector-drift, &.-short > #inspector-drift { margin: 0; }
        &.-short > #inspector-table { margin: 0; }
        &.-short > #inspector-detail { min-height: 2; }
    }
    """

    BINDINGS = [
        Binding("s", "toggle_sort", "Sort", tooltip="Largest first / request order"),
        Binding("r", "show_request", "Request", tooltip="The next request as it would go out"),
        Binding("h", "edit_context", "Hide/restore", tooltip="Hide the message from the model, or undo that"),
    ]

    class SegmentSelected(Message):
        """A row was chosen: `row_key` is `system:<name>`, `tool:<name>` or `message:<key>`."""

        def __init__(self, inspector: ContextInspector, row_key: str) -> None:
            super().__init__()
            self.inspector = inspector
            self.row_key = row_key

        @property
        def control(self) -> ContextInspector:
            return self.inspector

    headline = getters.query_one("#inspector-headline", Static)
    budget = getters.query_one("#inspector-budget", BudgetBar)
    drift = getters.query_one("#inspector-drift", Static)
    table = getters.query_one("#inspector-table", DataTable)
    detail_title = getters.query_one("#inspector-detail-title", Static)
    detail = getters.query_one("#inspector-detail", TextArea)

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.data: InspectorData | None = None
        """The data last shown (None before the first `show`)."""
        self.texts: SegmentTexts = EMPTY_TEXTS
        self.largest_first = False
        """Whether the table is sorted by tokens, biggest first (toggled with `s`)."""
        self.selected_key: str | None = None
        """Row key whose text the detail area shows."""
        self._rows: dict[str, TableRow] = {}
        self._narrow = False
        self._stale = False
        """The table does not show `data` yet (it changed while the pane was hidden)."""
        self._fill_generation = 0
        """Bumped by every fill, so the batches of a superseded fill stop."""
        self.clock_source: Callable[[], str | None] | None = None
        """The cache clock's line (the session's `cache_clock_line`), read every second while shown."""

    def on_mount(self) -> None:
        # The clock counts down ("expires in 3:12"): a second is its resolution.
        self.set_interval(1.0, self.tick_cache_clock)

    def tick_cache_clock(self) -> None:
        if self.clock_source is None or not self._displayed():
            return
        clock = self.query_one("#inspector-cache-clock", Static)
        line = self.clock_source()
        clock.display = line is not None
        if line is not None:
            clock.update(f"Cache: {line}")

    def compose(self) -> ComposeResult:
        yield Static("No session data yet.", id="inspector-headline")
        clock = Static("", id="inspector-cache-clock")
        clock.display = False  # until a session gives it a clock: no blank line meanwhile
        yield clock
        yield BudgetBar(id="inspector-budget")
        yield Static("", id="inspector-drift")
        yield FittedTable(shrinkable=SHRINKABLE, id="inspector-table")
        yield Static(NO_SELECTION, id="inspector-detail-title")
        yield TextArea("", id="inspector-detail", read_only=True, soft_wrap=True, show_cursor=False)

    def show(self, data: InspectorData, texts: SegmentTexts) -> None:
        """Render `data` with the row texts computed for the same leaf; keeps the selection if it survives."""
        self.data = data
        self.texts = texts
        self.headline.update("\n".join(headline_lines(data)))
        self.budget.geometry = data.geometry
        alerts = drift_alerts(data)
        self.drift.update("\n".join(alert.text for alert in alerts))
        self.drift.set_class(any(alert.drifted for alert in alerts), "-drifted")
        self._fill_table()
        self.tick_cache_clock()
        if self.selected_key is not None:
            self._show_detail(self.selected_key)

    class EditWanted(Message):
        """`h` on a message row: hide it from future requests (or note it), or undo its edit."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def action_edit_context(self) -> None:
        key = self._cursor_key()
        if key is None or not key.startswith("message:"):
            self.notify("Choose a message row: only messages and tool results can be hidden.")
            return
        self.post_message(self.EditWanted(key.removeprefix("message:")))

    class RequestWanted(Message):
        """`r`: the user wants to see the exact request the next turn would send."""

    def action_show_request(self) -> None:
        self.post_message(self.RequestWanted())

    def action_toggle_sort(self) -> None:
        """Switch between request order and largest-first."""
        self.largest_first = not self.largest_first
        self._fill_table()

    def select_row(self, row_key: str) -> None:
        """Show the exact text of `row_key` and announce it (as Enter or a click on its row does)."""
        if row_key in self.table.rows and self._cursor_key() != row_key:  # (rows still filling are skipped)
            self.table.move_cursor(row=self.table.get_row_index(row_key), animate=False)
        self._show_detail(row_key)
        self.post_message(self.SegmentSelected(self, row_key))

    def _fill_table(self) -> None:
        if not self._displayed():
            self._stale = True
            return
        self._stale = False
        self._fill_generation += 1
        table = self.table
        current = self._cursor_key()
        table.clear(columns=True)
        for column in ("zone", "name", "tokens") if self._narrow else ("zone", "name", "tokens", "preview"):
            table.add_column(column, key=column)
        if self.data is None:
            return
        rows = table_rows(self.data, self.texts, largest_first=self.largest_first)
        self._rows = {row.key: row for row in rows}
        self._add_rows(rows, 0, current, self._fill_generation)

    def _add_rows(self, rows: list[TableRow], start: int, cursor: str | None, generation: int) -> None:
        """Add one batch, then schedule the next for after the coming frame."""
        if generation != self._fill_generation:
            return
        table = self.table
        for row in rows[start : start + FILL_BATCH]:
            count = Text(f"{row.tokens:,}", justify="right")
            # Text, not str: DataTable reads a str as markup, and previews are the model's own text.
            cells = [Text(row.zone), Text(row.name), count]
            if not self._narrow:
                cells.append(Text(row.preview))
            table.add_row(*cells, key=row.key)
        if cursor is not None and cursor in table.rows:
            table.move_cursor(row=table.get_row_index(cursor), animate=False)
            cursor = None
        if start + FILL_BATCH < len(rows):
            self.call_after_refresh(self._add_rows, rows, start + FILL_BATCH, cursor, generation)

    def _cursor_key(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return key

    def _show_detail(self, row_key: str) -> None:
        self.selected_key = row_key
        row = self._rows.get(row_key)
        text = self.texts.text_for(row_key)
        if row is None or text is None:
            self.detail_title.update("That row is no longer in the context.")
            self.detail.load_text("")
            return
        shown, note = cap_text(text, MAX_DETAIL_CHARS)
        title = f"{row.name} · {row.zone} · {row.tokens:,} tokens · {len(text):,} chars"
        self.detail_title.update(f"{title} · {note}" if note else title)
        self.detail.load_text(shown if text else "(nothing is sent for this message)")

    @on(DataTable.RowHighlighted, "#inspector-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The detail follows the cursor, so arrowing through rows reads them one by one."""
        event.stop()
        if event.row_key.value is not None:
            self._show_detail(event.row_key.value)

    @on(DataTable.RowSelected, "#inspector-table")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.select_row(event.row_key.value)

    def _displayed(self) -> bool:
        """Whether the widget would be on screen (no ancestor is `display: none`, e.g. an inactive tab)."""
        return all(node.display for node in self.ancestors_with_self)

    def on_show(self, event: Show) -> None:
        self.catch_up()
        self.tick_cache_clock()

    def catch_up(self) -> None:
        """Fill the table with data handed over while hidden, if the pane is now displayed (the owner
        calls this after changes that may show it: Textual's Show event is not sent on every one)."""
        if self._stale and self._displayed():
            self._fill_table()

    def on_resize(self, event: Resize) -> None:
        short = event.size.height < SHORT_HEIGHT
        self.set_class(short, "-short")
        # Short of rows: the legend in one line, with terser names and figures (`budget_bar.py`).
        self.budget.legend_lines = 1 if short else None
        narrow = event.size.width < NARROW_WIDTH
        if narrow != self._narrow:
            self._narrow = narrow
            self.set_class(narrow, "-narrow")
            self._fill_table()
