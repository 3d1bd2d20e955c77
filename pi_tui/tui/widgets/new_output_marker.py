"""The line under the conversation that says output arrived below while the user was scrolled up; it goes
once they are back at the end. ctrl+end (from the editor), `end` (in the conversation) or a click jumps
there."""

from __future__ import annotations

from textual import events
from textual.widgets import Static

from pi_tui.tui.widgets.conversation import ConversationView

JUMP_KEY = "ctrl+end"
MARKER_TEXT = f"↓ new output below — {JUMP_KEY} to jump"


class NewOutputMarker(Static):
    """Shown while the conversation it follows has output the user has not scrolled down to."""

    DEFAULT_CSS = """
    NewOutputMarker { height: 1; padding: 0 1; color: $accent; text-style: bold; display: none; }
    NewOutputMarker.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(MARKER_TEXT, id=id, markup=False)
        self._conversation: ConversationView | None = None

    def follow(self, conversation: ConversationView) -> None:
        self._conversation = conversation
        self.watch(conversation, "unseen_output", self._unseen_output_changed)

    def _unseen_output_changed(self, unseen: bool) -> None:
        self.set_class(unseen, "-shown")

    def on_click(self, event: events.Click) -> None:
        if self._conversation is not None:
            self._conversation.jump_to_end()
