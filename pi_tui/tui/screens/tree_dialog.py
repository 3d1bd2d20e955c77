"""`/tree`: the session tree as pi's tree selector shows it, with its filters, search and labels.

The cursor starts on the current position. Typing searches (the label and the entry's text); ctrl+o and
ctrl+shift+o cycle pi's filters (default, no-tools, user-only, labeled-only, all); ctrl+l labels the
highlighted entry (an empty label removes it). Enter answers with the entry to move to.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pi_tui.session_file.tree_listing import TreeFilter, TreeLine, next_filter, tree_line_text
from pi_tui.tui.screens.dialog import Dialog
from pi_tui.tui.screens.dialogs import TextDialog

TITLE = "Session tree (● you are here)"
HINT = "enter go there · ctrl+o / ctrl+shift+o filter · ctrl+l label · type to search · esc cancel"

LoadLines = Callable[[TreeFilter], list[TreeLine]]
"""The tree's lines under a filter (read from the session each time: labels change them)."""
SaveLabel = Callable[[str, str], str | None]
"""Label an entry (blank removes); returns why it could not."""


class TreeDialog(Dialog[str | None]):
    DEFAULT_CLASSES = "-long-list"
    BINDINGS = [
        Binding("ctrl+o", "cycle_filter(1)", "Filter", priority=True),
        Binding("ctrl+shift+o", "cycle_filter(-1)", "Filter back", priority=True),
        Binding("ctrl+l", "label", "Label", priority=True),
    ]

    def __init__(self, load_lines: LoadLines, save_label: SaveLabel, mode: TreeFilter = "default") -> None:
        super().__init__(TITLE)
        self.load_lines = load_lines
        self.save_label = save_label
        self.mode: TreeFilter = mode
        self.lines: list[TreeLine] = []

    def compose_head(self) -> ComposeResult:
        yield Input(placeholder="type to search", id="tree-search")

    def compose_body(self) -> ComposeResult:
        yield OptionList(id="tree-options")
        yield Label(HINT, classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._reload(keep=None)

    @property
    def options(self) -> OptionList:
        return self.query_one(OptionList)

    @property
    def highlighted_id(self) -> str | None:
        options = self.options
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    def _reload(self, keep: str | None) -> None:
        """Read the lines under the current filter; the cursor stays on `keep` if still shown, else it
        goes to the current position (or the last line)."""
        self.lines = self.load_lines(self.mode)
        title = TITLE if self.mode == "default" else f"{TITLE} · filter: {self.mode}"
        self.show_title(title)
        self._show(keep)

    def _show(self, keep: str | None) -> None:
        tokens = self.query_one(Input).value.lower().split()
        shown = [line for line in self.lines if all(token in _searchable(line) for token in tokens)]
        options = self.options
        options.clear_options()
        options.add_options([Option(Content(tree_line_text(line)), id=line.entry_id) for line in shown])
        if not shown:
            return
        ids = [line.entry_id for line in shown]
        leaf = next((line.entry_id for line in shown if line.is_leaf), None)
        target = keep if keep in ids else leaf if leaf is not None else ids[-1]
        options.highlighted = ids.index(target)

    @on(Input.Changed, "#tree-search")
    def _search(self) -> None:
        self._show(self.highlighted_id)

    @on(Input.Submitted, "#tree-search")
    def _submit(self) -> None:
        if self.highlighted_id is not None:
            self.dismiss(self.highlighted_id)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        # The arrows move through the tree while the search keeps the focus.
        moves = {"down": "cursor_down", "up": "cursor_up", "pagedown": "page_down", "pageup": "page_up"}
        if event.key in moves and self.query_one(Input).has_focus:
            getattr(self.options, f"action_{moves[event.key]}")()
            event.stop()

    def action_cycle_filter(self, step: int) -> None:
        self.mode = next_filter(self.mode, step)
        self._reload(keep=self.highlighted_id)

    def action_label(self) -> None:
        entry_id = self.highlighted_id
        if entry_id is None:
            return
        current = next((line.label for line in self.lines if line.entry_id == entry_id), None) or ""

        def labelled(text: str | None) -> None:
            if text is None:
                return
            problem = self.save_label(entry_id, text)
            if problem is not None:
                self.notify(problem, severity="error", markup=False)
            self._reload(keep=entry_id)

        self.app.push_screen(
            TextDialog("Label (empty removes it)", placeholder="a label for this entry", value=current),
            callback=labelled,
        )


def _searchable(line: TreeLine) -> str:
    return f"{line.label or ''} {line.text}".lower()
