"""A DataTable that fits its columns to its width instead of scrolling the last ones out of sight.

Every column keeps the width of its content while there is room. When there is not, the columns named
as shrinkable give up width, least important first, and their text ends in an ellipsis (or, below their
minimum, they are left empty); the others (numbers, statuses) always keep their content. Only when that
is not enough does the table scroll sideways.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text, TextType
from textual.events import Resize
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey


class FittedTable(DataTable[Any]):
    """`shrinkable`: (column key, minimum width) pairs, in the order they give up width."""

    def __init__(
        self,
        *,
        shrinkable: Sequence[tuple[str, int]] = (),
        id: str | None = None,
        classes: str | None = None,
        cursor_type: Any = "row",
        zebra_stripes: bool = True,
    ) -> None:
        super().__init__(id=id, classes=classes, cursor_type=cursor_type, zebra_stripes=zebra_stripes)
        self.shrinkable = tuple(shrinkable)
        self._fitted_to = -1
        """The width the columns were last fitted to."""

    def add_column(
        self,
        label: TextType,
        *,
        width: int | None = None,
        key: str | None = None,
        default: Any | None = None,
    ) -> ColumnKey:
        # Text, not str: a label is never markup here, and it is cut like the cells below it.
        text = Text(label, overflow="ellipsis", no_wrap=True) if isinstance(label, str) else label
        text.overflow = "ellipsis"
        return super().add_column(text, width=width, key=key, default=default)

    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: TextType | None = None,
    ) -> RowKey:
        for cell in cells:
            _cut_with_ellipsis(cell)
        return super().add_row(*cells, height=height, key=key, label=label)

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: Any,
        *,
        update_width: bool = False,
    ) -> None:
        _cut_with_ellipsis(value)
        super().update_cell(row_key, column_key, value, update_width=update_width)

    def column_width(self, key: str) -> int:
        """The width the column's text gets now (padding excluded)."""
        column = self.columns[ColumnKey(key)]
        return column.width if not column.auto_width else column.content_width

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # The content widths are measured here (new rows); the fit follows from them.
        super()._update_dimensions(new_rows)
        self._fit(force=True)

    def on_resize(self, event: Resize) -> None:
        # (Textual calls DataTable's own resize handler too: handlers run for each class.)
        self._fit(force=False)

    def watch_show_vertical_scrollbar(self) -> None:
        # A row more that makes the table scroll takes the scrollbar's columns from the table's width.
        self.call_after_refresh(self._fit, force=False)

    def _fit(self, *, force: bool) -> None:
        available = self.scrollable_content_region.width
        if available <= 0 or (not force and available == self._fitted_to):
            return
        self._fitted_to = available
        padding = 2 * self.cell_padding
        natural = {key.value: column.content_width for key, column in self.columns.items()}
        widths = fitted_widths(natural, self.shrinkable, available - padding * len(natural))
        changed = False
        for key, column in self.columns.items():
            width = widths[key.value] if key.value is not None else column.content_width
            if column.auto_width or column.width != width:
                column.auto_width = False
                column.width = width
                changed = True
        if changed:
            self._clear_caches()
            total = sum(column.get_render_width(self) for column in self.columns.values())
            self.virtual_size = Size(total + self._row_label_column_width, self.virtual_size.height)
            self.refresh()


def fitted_widths(
    natural: dict[str | None, int], shrinkable: Sequence[tuple[str, int]], room: int
) -> dict[str | None, int]:
    """Column text widths for `room` cells in all: the natural ones, cut from the shrinkable columns in
    order until they fit. A column that would get less than its minimum is emptied instead (a few
    letters and an ellipsis say nothing), and the next one is cut."""
    widths = dict(natural)
    excess = sum(widths.values()) - room
    for key, minimum in shrinkable:
        if excess <= 0:
            break
        if key not in widths:
            continue
        target = widths[key] - excess
        if target >= minimum:
            widths[key] = target
            excess = 0
        else:
            excess -= widths[key]
            widths[key] = 0
    return widths


def _cut_with_ellipsis(cell: object) -> None:
    if isinstance(cell, Text):
        cell.overflow = "ellipsis"
        cell.no_wrap = True
