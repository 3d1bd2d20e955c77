"""The editor: Enter sends, Ctrl+J breaks the line, Up/Down walk the history at the edges."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class PromptArea(TextArea):
    """Multi-line input. While the agent runs, Enter steers and Alt+Enter queues a follow-up."""

    DEFAULT_CSS = """
    PromptArea { height: auto; min-height: 3; max-height: 12; border: round $primary; }
    PromptArea:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("enter", "submit", "Send", priority=True),
        Binding("alt+enter", "submit_follow_up", "Follow-up", priority=True, show=False),
        Binding("ctrl+j", "newline", "Newline", show=False),
    ]

    @dataclass
    class Submitted(Message):
        text: str
        follow_up: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, compact=False)
        self.sent_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    def _send(self, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text, follow_up))

    def action_submit(self) -> None:
        self._send(follow_up=False)

    def action_submit_follow_up(self) -> None:
        self._send(follow_up=True)

    def action_newline(self) -> None:
        self.insert("\n")

    def put_back(self, texts: list[str]) -> None:
        """Queued messages return to the editor (before what is there), joined by blank lines."""
        parts = [*texts, self.text] if self.text.strip() else texts
        self.text = "\n\n".join(parts)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0 and self.sent_history:
            self._walk_history(-1)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self._history_index is not None:
            self._walk_history(1)
            return
        super().action_cursor_down(select)

    def _walk_history(self, step: int) -> None:
        if self._history_index is None:
            self._draft = self.text
            index = len(self.sent_history)
        else:
            index = self._history_index
        index = max(0, min(len(self.sent_history), index + step))
        self._history_index = None if index == len(self.sent_history) else index
        self.text = self._draft if self._history_index is None else self.sent_history[index]
        self.move_cursor(self.document.end)
