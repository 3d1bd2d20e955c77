"""The editor's completion list: slash commands or `@` paths, drawn over the conversation above the editor."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.geometry import Offset
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pi_tui.tui.completion_tokens import CompletionItem

MAX_VISIBLE = 10
VALUE_COLUMN = 28
"""Descriptions line up after the longest value up to this width; longer values push theirs along."""


class CompletionPopup(OptionList):
    """Never focused: the editor keeps the keyboard and drives the list (Up/Down, Tab/Enter, Esc)."""

    DEFAULT_CSS = """
    CompletionPopup {
        overlay: screen;
        constrain: inside inside;
        position: absolute;
        display: none;
        width: auto;
        max-width: 100;
        height: auto;
        max-height: 12;
        border: round $accent;
        background: $surface;
        padding: 0;
    }
    CompletionPopup.-open { display: block; }
    """

    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[CompletionItem] = []

    @property
    def is_open(self) -> bool:
        return bool(self.items)

    def open(self, items: Sequence[CompletionItem], anchor: Offset) -> None:
        """Show `items` with the first highlighted, the list's bottom-left corner just above `anchor`."""
        self.items = list(items)
        width = min(VALUE_COLUMN, max(len(item.value) for item in self.items))
        self.clear_options()
        self.add_options([self._option(item, width) for item in self.items])
        self.highlighted = 0
        height = min(len(self.items), MAX_VISIBLE) + 2
        self.styles.offset = (anchor.x, max(0, anchor.y - height))
        self.add_class("-open")
        self.refresh_bindings()  # the editor's Tab and Esc now complete and close

    def close(self) -> None:
        if not self.is_open:
            return
        self.items = []
        self.clear_options()
        self.remove_class("-open")
        self.refresh_bindings()

    def move(self, step: int) -> None:
        if step > 0:
            self.action_cursor_down()
        else:
            self.action_cursor_up()

    @property
    def selected(self) -> CompletionItem | None:
        index = self.highlighted
        return self.items[index] if self.is_open and index is not None else None

    @staticmethod
    def _option(item: CompletionItem, width: int) -> Option:
        label = Text(" ")
        label.append(item.value.ljust(width), style="bold")
        if item.description:
            label.append("  ")
            label.append(" ".join(item.description.split()), style="dim")
        label.append(" ")
        return Option(label)
