"""A notice that names a file: the path is shortened from the middle to fit one line, so its start and
its file name stay in view however narrow the pane, and the words around it wrap."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

ELLIPSIS = "…"
MIN_PATH_CELLS = 12
"""Narrower than this a shortened path says nothing; it is left to wrap instead."""


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, its middle replaced by `…` (the end, a file name, gets the larger
    half)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    head = room // 2
    tail = room - head
    start = set_cell_size(text, head).rstrip() if head else ""
    end = text
    while cell_len(end) > tail:
        end = end[1:]
    return start + ELLIPSIS + end


class PathNotice(Widget):
    """Wrapped notice text with one path in it that is never cut."""

    DEFAULT_CSS = """
    PathNotice { height: auto; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = ""
        self._path: str | None = None

    @property
    def text(self) -> str:
        return self._text

    def show(self, text: str, path: str | None = None) -> None:
        if (text, path) == (self._text, self._path):
            return
        self._text = text
        self._path = path if path and path in text else None
        self.refresh(layout=True)

    def on_resize(self) -> None:
        if self._path is not None:
            self.refresh(layout=True)

    def render(self) -> Text:
        return Text(self.shown_text(self.content_size.width), end="")

    def shown_text(self, width: int) -> str:
        """The notice as drawn `width` cells wide: the path kept to one line (less the one character that
        may follow it, such as `]`)."""
        path = self._path
        if path is None or width <= 0 or cell_len(self._text) <= width:
            return self._text
        before, _, after = self._text.partition(path)
        room = width - 1 if after[:1] not in ("", " ", "\n") else width
        if room < MIN_PATH_CELLS:
            return self._text
        return before + shorten_middle(path, room) + after
