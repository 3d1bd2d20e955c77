"""`compaction.confirm`: ask before an automatic compaction, and go ahead when the countdown ends."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

COUNTDOWN_SECONDS = 10


class ConfirmCompactionDialog(ModalScreen[bool]):
    """True: compact (Enter, or nobody answered in time); False: not now (Escape or n)."""

    DEFAULT_CSS = """
    ConfirmCompactionDialog { align: center middle; }
    ConfirmCompactionDialog > Vertical {
        width: 70; height: auto; border: round $warning; background: $surface; padding: 1 2;
    }
    ConfirmCompactionDialog .confirm-title { text-style: bold; color: $warning; }
    ConfirmCompactionDialog .confirm-hint { color: $text-muted; }
    """
    BINDINGS = [
        Binding("enter", "answer(True)", "Compact now"),
        Binding("y", "answer(True)", show=False),
        Binding("escape", "answer(False)", "Not now"),
        Binding("n", "answer(False)", show=False),
    ]

    def __init__(self, reason: str, tokens: int | None, *, seconds: float = COUNTDOWN_SECONDS) -> None:
        super().__init__()
        self.reason = reason
        self.tokens = tokens
        self.remaining = seconds

    def compose(self) -> ComposeResult:
        why = "The context overflowed" if self.reason == "overflow" else "The context passed the threshold"
        size = f" ({self.tokens:,} tokens)" if self.tokens is not None else ""
        with Vertical():
            yield Label(f"{why}{size}: compact now?", classes="confirm-title")
            yield Label("", id="confirm-countdown")
            yield Label(
                "Enter: compact now · Esc: not now (the context keeps growing)", classes="confirm-hint"
            )

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
