"""`compaction.confirm`: ask before an automatic compaction, and go ahead when the countdown ends."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Label

from pi_tui.tui.screens.dialog import Dialog

COUNTDOWN_SECONDS = 10


class ConfirmCompactionDialog(Dialog[bool]):
    """True: compact (Enter, or nobody answered in time); False: not now (Escape or n)."""

    DEFAULT_CSS = """
    ConfirmCompactionDialog > Vertical { width: 70; padding: 1 2; }
    ConfirmCompactionDialog .dialog-title { padding: 0; }
    """
    DEFAULT_CLASSES = "-warning"
    BINDINGS = [
        Binding("enter", "answer(True)", "Compact now"),
        Binding("y", "answer(True)", show=False),
        Binding("escape", "answer(False)", "Not now"),
        Binding("n", "answer(False)", show=False),
    ]

    def __init__(self, reason: str, tokens: int | None, *, seconds: float = COUNTDOWN_SECONDS) -> None:
        why = "The context overflowed" if reason == "overflow" else "The context passed the threshold"
        size = f" ({tokens:,} tokens)" if tokens is not None else ""
        super().__init__(f"{why}{size}: compact now?")
        self.reason = reason
        self.tokens = tokens
        self.remaining = seconds

    def compose_body(self) -> ComposeResult:
        yield Label("", id="confirm-countdown")
        yield Label("Enter: compact now · Esc: not now (the context keeps growing)", classes="dialog-hint")

    def on_mount(self) -> None:
        self._show()
        self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        self.remaining -= 0.1
        if self.remaining <= 0:
            self.dismiss(True)
        else:
            self._show()

    def _show(self) -> None:
        self.query_one("#confirm-countdown", Label).update(f"Compacting in {max(0, round(self.remaining))}s…")

    def action_answer(self, compact: bool) -> None:
        self.dismiss(compact)
