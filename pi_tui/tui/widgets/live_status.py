"""What the chat says about work under way, between the conversation and the editor: the new-output
marker and the status line. Both take no room while there is nothing to say."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical

from pi_tui.session.session_events import AnyEvent
from pi_tui.tui.widgets.activity_line import ActivityLine
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.new_output_marker import NewOutputMarker


class LiveStatus(Vertical):
    DEFAULT_CSS = """
    LiveStatus { height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield NewOutputMarker(id="new-output")
        yield ActivityLine(id="activity")

    def follow(self, conversation: ConversationView) -> None:
        """Say when `conversation` has output below where the user scrolled to."""
        self.query_one(NewOutputMarker).follow(conversation)

    def apply(self, events: Sequence[AnyEvent]) -> None:
        """A frame's session events, in order (the screen's bridge delivers them)."""
        self.query_one(ActivityLine).apply(events)

    def reset(self) -> None:
        """Another session is shown: nothing of the last one is under way here."""
        self.query_one(ActivityLine).reset()
