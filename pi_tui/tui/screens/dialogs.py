"""Small modal screens every command reuses: pick one of a list, read a text, answer a question."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text as RichText
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from pi_tui.tui.key_help import HelpSection, plain_text
from pi_tui.tui.screens.dialog import Dialog
from pi_tui.tui.widgets.markdown_view import MarkdownView


class ChoiceDialog(Dialog[str | None]):
    """Pick one option by id; typing filters the list. Escape cancels (None)."""

    def __init__(
        self, title: str, options: Sequence[tuple[str, str]], *, hint: str = "", filterable: bool = True
    ) -> None:
        super().__init__(title)
        self.choices = list(options)
        self.hint = hint
        self.filterable = filterable

    def compose_head(self) -> ComposeResult:
        if self.filterable:
            yield Input(placeholder="type to filter", id="dialog-filter")

    def compose_body(self) -> ComposeResult:
        yield OptionList(*self._options(""), id="dialog-options")
        if self.hint:
            yield Label(self.hint, classes="dialog-hint")

    def on_mount(self) -> None:
        if self.filterable:
            self.query_one(Input).focus()
        else:
            self.query_one(OptionList).focus()
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = 0

    def _options(self, needle: str) -> list[Option]:
        lowered = needle.lower()
        return [Option(Content(label), id=key) for key, label in self.choices if lowered in label.lower()]

    @on(Input.Changed, "#dialog-filter")
    def _filter(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        if options.option_count:
            options.highlighted = 0

    @on(Input.Submitted, "#dialog-filter")
    def _submit_filtered(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_key(self, event: events.Key) -> None:
        # Arrow keys move through the list while the filter keeps the focus.
        if self.filterable and event.key in ("down", "up") and self.query_one(Input).has_focus:
            options = self.query_one(OptionList)
            if event.key == "down":
                options.action_cursor_down()
            else:
                options.action_cursor_up()
            event.stop()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class InfoDialog(Dialog[None]):
    """Markdown to read (session facts, keys); any of Escape, Enter or q closes it."""

    BINDINGS = [
        Binding("escape", "cancel", "Close"),
        Binding("enter", "cancel", show=False),
        Binding("q", "cancel", show=False),
    ]

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__(title)
        self.markdown = markdown

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownView(self.markdown)


class KeysDialog(Dialog[None]):
    """F1: keys and commands, one line each, aligned; any of Escape, Enter, q or F1 closes it."""

    DEFAULT_CSS = """
    KeysDialog #keys-table { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Close"),
        Binding("enter", "cancel", show=False),
        Binding("q", "cancel", show=False),
        Binding("f1", "cancel", show=False),
    ]
    KEY_COLUMN_WIDTH = 22
    """Wider keys (a command's usage) wrap inside their column."""

    def __init__(self, sections: Sequence[HelpSection]) -> None:
        super().__init__("Keys and commands")
        self.sections = list(sections)
        self.text = plain_text(self.sections)
        """What the dialog shows, as plain text."""

    def compose_body(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2), expand=True)
        table.add_column(max_width=self.KEY_COLUMN_WIDTH, overflow="fold", style="bold")
        table.add_column(ratio=1)
        for index, section in enumerate(self.sections):
            if index:
                table.add_row("", "")
            table.add_row(RichText(section.title, style="bold underline"), "")
            for key, text in section.rows:
                table.add_row(RichText(key), RichText(text))
        with VerticalScroll():
            yield Static(table, id="keys-table")


class TextDialog(Dialog[str | None]):
    """One line of text (instructions, a name). Enter accepts, Escape cancels (None)."""

    def __init__(self, title: str, *, placeholder: str = "", value: str = "") -> None:
        super().__init__(title)
        self.placeholder = placeholder
        self.value = value

    def compose_body(self) -> ComposeResult:
        yield Input(value=self.value, placeholder=self.placeholder)

    @on(Input.Submitted)
    def _accept(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)
