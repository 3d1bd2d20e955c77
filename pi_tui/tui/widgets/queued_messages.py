"""The messages waiting for delivery, listed above the editor: one line each, its kind and its text.

Up from the editor's first line selects them (the newest first). Enter takes the highlighted one back into
the editor to be edited, Delete drops it, Down past the last returns to the editor. Taking a message back
is the session's work: this list renders what the session says is queued and asks for the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pi_tui.session.queued_texts import QueueKind

KIND_LABELS: dict[QueueKind, str] = {"steering": "steer", "follow_up": "follow-up"}
"""How each kind is named on screen and in toasts."""
LABEL_WIDTH = max(len(label) for label in KIND_LABELS.values())


@dataclass(frozen=True)
class QueuedMessage:
    kind: QueueKind
    text: str


class QueuedMessages(OptionList):
    DEFAULT_CSS = """
    QueuedMessages {
        height: auto; max-height: 10; margin: 0 1; padding: 0 1; display: none;
        border: round $panel; border-title-color: $text-muted; background: $surface;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    QueuedMessages.-shown { display: block; }
    QueuedMessages:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("enter", "edit", "Edit"),
        Binding("delete,backspace", "remove", "Remove"),
        Binding("down", "cursor_down", "Down", show=False),
    ]

    @dataclass
    class Edit(Message):
        """Take `queued` back into the editor."""

        queued: QueuedMessage

    @dataclass
    class Remove(Message):
        """Drop `queued` from its queue."""

        queued: QueuedMessage

    class Leave(Message):
        """Down past the last message: back to the editor."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queued: list[QueuedMessage] = []
        self.border_title = "Queued · ↑ select · enter edit · del remove · esc all back"

    def show(self, steering: Sequence[str], follow_up: Sequence[str]) -> None:
        """List what waits now: steering first (it is delivered first), each queue oldest first."""
        queued = [QueuedMessage("steering", text) for text in steering]
        queued += [QueuedMessage("follow_up", text) for text in follow_up]
        if queued == self.queued:
            return
        highlighted = self.highlighted
        self.queued = queued
        self.set_options(Option(_line(item)) for item in queued)
        if queued and highlighted is not None:
            self.highlighted = min(highlighted, len(queued) - 1)
        self.set_class(bool(queued), "-shown")

    def enter_from_below(self) -> bool:
        """Focus the list on its newest message; False (nothing done) when nothing is queued."""
        if not self.queued:
            return False
        self.highlighted = len(self.queued) - 1
        self.focus()
        return True

    def _highlighted_message(self) -> QueuedMessage | None:
        index = self.highlighted
        return self.queued[index] if index is not None and index < len(self.queued) else None

    def action_edit(self) -> None:
        queued = self._highlighted_message()
        if queued is not None:
            self.post_message(self.Edit(queued))

    def action_remove(self) -> None:
        queued = self._highlighted_message()
        if queued is not None:
            self.post_message(self.Remove(queued))

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted >= len(self.queued) - 1:
            self.post_message(self.Leave())
            return
        super().action_cursor_down()


def one_line(text: str) -> str:
    """`text` with every run of whitespace, line breaks included, as one space."""
    return " ".join(text.split())


def _line(queued: QueuedMessage) -> Content:
    label = KIND_LABELS[queued.kind].ljust(LABEL_WIDTH)
    return Content.from_markup("[b $accent]$label[/]  $text", label=label, text=one_line(queued.text))
