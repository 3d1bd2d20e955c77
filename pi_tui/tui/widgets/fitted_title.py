"""A one-line title whose middle part (a command, a path) gives way first: shortened from its middle so
that what follows it (which view, the status) stays in sight in a narrow pane."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from pi_tui.tui.widgets.path_notice import MIN_PATH_CELLS, shorten_middle


class FittedTitle(Widget):
    DEFAULT_CSS = """
    FittedTitle { height: 1; }
    """

    def __init__(self, text: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._parts = ("", text, "")

    def show(self, head: str, middle: str = "", tail: str = "") -> None:
        """`head`, `middle` and `tail` on one line; `middle` is shortened when the line is too long."""
        if (head, middle, tail) != self._parts:
            self._parts = (head, middle, tail)
            self.refresh()

    def shown_text(self, width: int) -> str:
        head, middle, tail = self._parts
        whole = head + middle + tail
        room = width - cell_len(head) - cell_len(tail)
        if width <= 0 or cell_len(whole) <= width or room < MIN_PATH_CELLS:
            return whole
        return head + shorten_middle(middle, room) + tail

    def render(self) -> Text:
        return Text(self.shown_text(self.content_size.width), no_wrap=True, overflow="ellipsis", end="")
