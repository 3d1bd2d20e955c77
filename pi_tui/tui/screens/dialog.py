"""The frame every dialog shares: a box centred on the dimmed screen, a bold title, muted hints, Esc.

A dialog supplies its title and its body (`compose_body`); it adds CSS only for what differs (its size,
the spacing of its parts). Dialogs that warn (a tool call to approve, a compaction about to run) set
`DEFAULT_CLASSES = "-warning"`: the frame and the title take the theme's warning colour.

The frame is at most 85% of the screen's height and its parts stay inside it: the head (the title, and
the search box of a dialog that filters a list: `compose_head`) is docked at the top and the hint
(`.dialog-hint`, wrapped to the frame's width) at the bottom, so a list or scroll area between them is at
most the height the docks leave (`max-height: 100%`) and scrolls within the frame. In flow, a body taller
than the frame would push its last rows out of reach (a long list's highlighted row among them). A
dialog whose list is usually long (`-long-list`: the session tree) takes the frame's whole height.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

AnswerT = TypeVar("AnswerT")


class Dialog(ModalScreen[AnswerT]):
    """Escape cancels: the dialog is dismissed with None (a dialog whose Esc answers otherwise binds it)."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 85%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    Dialog.-warning > Vertical { border: round $warning; }
    Dialog .dialog-head { dock: top; height: auto; }
    Dialog .dialog-title { width: 100%; text-style: bold; padding: 0 0 1 0; }
    Dialog.-warning .dialog-title { color: $warning; }
    Dialog .dialog-hint { dock: bottom; width: 100%; color: $text-muted; }
    Dialog OptionList { height: auto; max-height: 100%; }
    Dialog.-long-list > Vertical { height: 85%; }
    Dialog.-long-list OptionList { height: 1fr; }
    Dialog Input { margin: 0 0 1 0; }
    Dialog VerticalScroll { height: auto; max-height: 100%; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str = "") -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            with Vertical(classes="dialog-head"):
                # Titles quote the user's data (a session's name, a message): shown as written, never markup.
                yield Label(self.title_text, id="dialog-title", classes="dialog-title", markup=False)
                yield from self.compose_head()
            yield from self.compose_body()

    def compose_head(self) -> ComposeResult:
        """What stays in sight below the title however long the body is (a list's search box)."""
        yield from ()

    def compose_body(self) -> ComposeResult:
        """What the dialog shows below its title."""
        yield from ()

    def show_title(self, text: str) -> None:
        self.title_text = text
        self.query_one("#dialog-title", Label).update(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
