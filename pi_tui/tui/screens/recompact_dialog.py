"""Ask for the instructions of a re-compaction: Enter confirms, Escape cancels.

Dismisses with the instructions (an empty string: re-compact without extra focus) or None when
cancelled; the caller decides what to do with them.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, Label

from pi_tui.tui.screens.dialog import Dialog

RECOMPACT_HINT = "Enter re-compacts from just before this compaction, on a new branch. Escape cancels."


class RecompactDialog(Dialog[str | None]):
    """One line of instructions for re-compacting `compaction_id`."""

    DEFAULT_CSS = """
    RecompactDialog > Vertical { width: 80%; max-width: 100; }
    RecompactDialog Input { margin: 0; }
    RecompactDialog .dialog-hint { padding: 1 0 0 0; }
    """

    def __init__(self, compaction_id: str) -> None:
        super().__init__(f"Re-compact {compaction_id}")
        self.compaction_id = compaction_id

    def compose_body(self) -> ComposeResult:
        yield Input(placeholder="focus the summary on… (optional)", id="recompact-instructions")
        yield Label(RECOMPACT_HINT, classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#recompact-instructions")
    def _confirm(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())
