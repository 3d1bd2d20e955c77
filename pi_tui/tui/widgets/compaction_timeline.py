"""The compaction timeline pane: every compaction of the session on all branches, and the
selected one in detail.

The pane renders what the screen hands it (`show`, `show_detail`, `show_preview`) and asks for
everything else with messages: `CompactionSelected` (load its detail), `RestoreRequested` (`r`),
`RecompactRequested` (`c`, after the instructions dialog), `PinToggled` (`p` / space on an audit
item) and `PreviewRequested` (`v`). It never touches the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from pi_tui.tui.screens.recompact_dialog import RecompactDialog
from pi_tui.tui.timeline_view import TIMELINE_COLUMNS, CompactionDetailData, NextCompaction, TimelineRow
from pi_tui.tui.widgets.compaction_detail import TAB_AUDIT, TAB_DIFF, TAB_NEXT, TAB_SUMMARY, CompactionDetail
from pi_tui.tui.widgets.fitted_table import FittedTable

SHRINKABLE = (("model", 8), ("reason", 6))
"""The selected compaction's detail, right below the table, names its model and reason in full."""


TAB_KEYS = Binding.Group("Tabs")
"""The tab keys `s` `d` `a` `n` share one footer label."""


class CompactionTimeline(Vertical):
    """A table of compactions (row key = compaction id) above the selected one's detail."""

    ALLOW_MAXIMIZE = True
    """F11 gives the pane the whole screen."""

    DEFAULT_CSS = """
    CompactionTimeline { height: 1fr; }
    CompactionTimeline #timeline-table { height: auto; max-height: 12; border-bottom: solid $panel; }
    CompactionTimeline #compaction-detail { height: 1fr; }
    """

    BINDINGS = [
        Binding("r", "restore", "Restore", tooltip="Continue from just before this compaction"),
        Binding("c", "recompact", "Re-compact", tooltip="Compact the same span again, with instructions"),
        Binding("v", "preview", "Preview", tooltip="Preview the next compaction"),
        # One key a tab, from wherever the keyboard is in the pane (the table or the detail), so the
        # tabs need no mouse and no tabbing through the tab strip. One footer label for the four (the
        # tab strip names them in key order), so they fit beside the pane's other keys at 80 columns.
        Binding("s", f"tab('{TAB_SUMMARY}')", "Summary", tooltip="Show the Summary tab", group=TAB_KEYS),
        Binding("d", f"tab('{TAB_DIFF}')", "Diff", tooltip="Show the Diff tab", group=TAB_KEYS),
        Binding("a", f"tab('{TAB_AUDIT}')", "Audit", tooltip="Show the Audit tab", group=TAB_KEYS),
        Binding(
            "n", f"tab('{TAB_NEXT}')", "Next", tooltip="Show the Next tab (a fresh preview)", group=TAB_KEYS
        ),
    ]

    @dataclass
    class CompactionSelected(Message):
        """The cursor moved to a compaction: its detail is wanted."""

        compaction_id: str

    @dataclass
    class RestoreRequested(Message):
        """Continue from the entry just before this compaction, on a new branch."""

        compaction_id: str

    @dataclass
    class RecompactRequested(Message):
        """Restore before this compaction, then compact again with `instructions` (None: no extra focus)."""

        compaction_id: str
        instructions: str | None

    @dataclass
    class PreviewRequested(Message):
        """A fresh preview of the next compaction on the current branch is wanted."""

    PinToggled = CompactionDetail.PinToggled
    """Posted by the detail's audit list; bubbles through this pane."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: dict[str, TimelineRow] = {}
        self.selected_id: str | None = None
        """The compaction under the table cursor."""

    def compose(self) -> ComposeResult:
        table = FittedTable(shrinkable=SHRINKABLE, id="timeline-table")
        for key, label in TIMELINE_COLUMNS:
            table.add_column(label, key=key)
        yield table
        yield CompactionDetail(id="compaction-detail")

    @property
    def table(self) -> DataTable[str | Text]:
        return self.query_one("#timeline-table", DataTable)

    @property
    def detail(self) -> CompactionDetail:
        return self.query_one("#compaction-detail", CompactionDetail)

    @property
    def row_ids(self) -> list[str]:
        """Compaction ids in table order."""
        return list(self._rows)

    def show(self, rows: Sequence[TimelineRow], detail: CompactionDetailData | None = None) -> None:
        """Bring the table to `rows`: new rows are added, changed cells updated in place, gone rows
        removed (no rebuild, the cursor stays). `detail`, when given, replaces the detail."""
        table = self.table
        wanted = {row.compaction_id: row for row in rows}
        for compaction_id in [key for key in self._rows if key not in wanted]:
            table.remove_row(compaction_id)
            del self._rows[compaction_id]
        for row in rows:
            old = self._rows.get(row.compaction_id)
            if old is None:
                # Text, not str: DataTable would read a model name with brackets as markup.
                table.add_row(*map(Text, row.cells()), key=row.compaction_id)
            elif old != row:
                for (column, _), new, before in zip(TIMELINE_COLUMNS, row.cells(), old.cells(), strict=True):
                    if new != before:
                        table.update_cell(row.compaction_id, column, Text(new), update_width=True)
            self._rows[row.compaction_id] = row
        if not rows:
            self.selected_id = None
        if detail is not None or not rows:
            self.show_detail(detail)

    def show_detail(self, detail: CompactionDetailData | None) -> None:
        self.detail.show(detail)

    def show_preview(self, preview: NextCompaction) -> None:
        self.detail.show_preview(preview)

    def select(self, compaction_id: str) -> bool:
        """Move the cursor to a compaction (False: not in the table); its selection is posted."""
        try:
            index = self.table.get_row_index(compaction_id)
        except RowDoesNotExist:
            return False
        self.table.move_cursor(row=index)
        return True

    @on(DataTable.RowHighlighted, "#timeline-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        compaction_id = event.row_key.value
        if compaction_id is None or compaction_id == self.selected_id:
            return
        self.selected_id = compaction_id
        self.post_message(self.CompactionSelected(compaction_id))

    def _cursor_id(self) -> str | None:
        table = self.table
        if not table.row_count:
            return None
        value = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return value if isinstance(value, str) else None

    def action_tab(self, tab_id: str) -> None:
        if tab_id == TAB_NEXT:
            self.action_preview()  # the Next tab is the preview: fresh, as v shows it
        else:
            self.detail.show_tab(tab_id)

    def action_restore(self) -> None:
        compaction_id = self._cursor_id()
        if compaction_id is not None:
            self.post_message(self.RestoreRequested(compaction_id))

    def action_recompact(self) -> None:
        compaction_id = self._cursor_id()
        if compaction_id is None:
            return

        def answered(instructions: str | None) -> None:
            if instructions is not None:
                self.post_message(self.RecompactRequested(compaction_id, instructions or None))

        self.app.push_screen(RecompactDialog(compaction_id), answered)

    def action_preview(self) -> None:
        self.detail.show_tab(TAB_NEXT)
        self.post_message(self.PreviewRequested())
