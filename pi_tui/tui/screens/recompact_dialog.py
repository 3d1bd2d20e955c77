"""Ask for the instructions of a re-compaction (R10.3): Enter confirms, Escape cancels.

Dismisses with the instructions (an empty string: re-compact without extra focus) or None when
cancelled; the caller decides what to do with them.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

RECOMPACT_HINT = "Enter re-compacts from just before this compaction, on a new branch. Escape cancels."


class RecompactDialog(ModalScreen[str | None]):
    """One line of instructions for re-compacting `compaction_id`."""

    DEFAULT_CSS = """
    RecompactDialog { align: center middle; }
    RecompactDialog > Vertical {
        width: 80%; max-width: 100; height: auto;
        border: round $accent; background: $surface; padding: 0 1;
    }
    RecompactDialog .dialog-title { text-style: bold; padding: 0 0 1 0; }
    RecompactDialog .dialog-hint { color: $text-muted; padding: 1 0 0 0; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, compaction_id: str) -> None:
        super().__init__()
        self.compaction_id = compaction_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Re-compact {self.compaction_id}", classes="dialog-title", markup=False)
            yield Input(placeholder="focus the summary on… (optional)", id="recompact-instructions")
            yield Label(RECOMPACT_HINT, classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#recompact-instructions")
    def _confirm(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
