"""The session's tool calls, one row each: what ran, how it went, how big its output was."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from pi_tui.tools.truncate import format_size
from pi_tui.tui.tool_calls import ToolCallInfo
from pi_tui.tui.widgets.fitted_table import FittedTable

COLUMNS = ("tool", "status", "lines", "bytes", "cut", "args")
"""Arguments last, and the only column cut short: they are as wide as the longest command, and would
push the status and sizes out of sight."""
MIN_ARGS_WIDTH = 12
_STATUS_CLASS = {"running": "tool-list--running", "done": "tool-list--done", "error": "tool-list--error"}


class ToolList(FittedTable):
    """A row per tool call, keyed by the call's key (ids may repeat); rows are updated in place, never
    rebuilt."""

    DEFAULT_CSS = """
    ToolList {
        height: auto;
        max-height: 12;
        & > .tool-list--running { color: $warning; }
        & > .tool-list--done { color: $success; }
        & > .tool-list--error { color: $error; text-style: bold; }
    }
    """

    COMPONENT_CLASSES = DataTable.COMPONENT_CLASSES | set(_STATUS_CLASS.values())

    @dataclass
    class ToolSelected(Message):
        """The user chose a tool call (cursor moved onto it or Enter)."""

        tool_list: ToolList
        call_key: str

        @property
        def control(self) -> ToolList:
            return self.tool_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(shrinkable=[("args", MIN_ARGS_WIDTH)], id=id, classes=classes)
        self._shown: dict[str, ToolCallInfo] = {}
        self._pending: Sequence[ToolCallInfo] | None = None
        self._announced: str | None = None
        """The call last reported (or selected by the owner), so a cursor move it caused is not echoed."""

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.add_column(column, key=column)
        if self._pending is not None:
            calls, self._pending = self._pending, None
            self.update_calls(calls)

    def update_calls(self, calls: Sequence[ToolCallInfo]) -> None:
        """Add new calls, update changed ones (status, counters) and drop those gone (another session or
        branch), without moving the cursor off a row that stays."""
        if not self.columns:  # not mounted yet: shown once the columns exist
            self._pending = calls
            return
        current = {call.key for call in calls}
        for gone in [key for key in self._shown if key not in current]:
            self.remove_row(gone)
            del self._shown[gone]
        for call in calls:
            known = self._shown.get(call.key)
            if known == call:
                continue
            cells = self._cells(call)
            if known is None:
                self.add_row(*cells, key=call.key)
            else:
                for column, value in zip(COLUMNS, cells, strict=True):
                    # A running command's counters outgrow the width its first row gave the column.
                    self.update_cell(call.key, column, value, update_width=True)
            self._shown[call.key] = call

    def select_call(self, key: str) -> None:
        """Move the cursor to a call without reporting it back as the user's choice."""
        if key in self._shown:
            self._announced = key
            self.move_cursor(row=self.get_row_index(key))

    def _cells(self, call: ToolCallInfo) -> tuple[str | Text, ...]:
        status = Text(call.status, style=self.get_component_rich_style(_STATUS_CLASS[call.status]))
        # Cells are Text, never str: DataTable parses a str as markup, and a command such as
        # `echo "[/]"` would fail the whole render.
        return (
            Text(call.name),
            status,
            Text(f"{call.lines:,}" if call.lines else ""),
            Text(format_size(call.bytes) if call.bytes else ""),
            Text("yes" if call.truncated else ""),
            Text(call.args_summary),
        )

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value
        # Highlights are queued; one for a row the cursor has already left is stale.
        if key is None or key == self._announced or event.cursor_row != self.cursor_row:
            return
        self._announced = key
        self.post_message(self.ToolSelected(self, key))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ToolSelected(self, event.row_key.value))
