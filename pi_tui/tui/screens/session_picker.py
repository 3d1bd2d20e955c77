"""`/resume`: pick a session of this directory or any, pi's included; type to search, Ctrl+S sorts.

As in pi's picker, Ctrl+N shows named sessions only, Ctrl+R renames the highlighted one and Ctrl+D deletes
it (to the trash when there is one) after a confirmation; the open session cannot be deleted. The
listing reads every session file, so it runs in a thread worker; the answer is the file's path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Input, Label

from pi_tui.session.session_files import delete_session_file, rename_session_file
from pi_tui.session_file.listing import SessionSummary
from pi_tui.session_file.store import SessionError
from pi_tui.tui.screens.dialog import Dialog
from pi_tui.tui.screens.dialogs import ChoiceDialog, TextDialog
from pi_tui.tui.widgets.session_browser import SessionBrowser, SessionRow
from pi_tui.tui.worker_results import deliver

Lister = Callable[[str | None], list[SessionSummary]]
"""Sessions of one working directory, or of all of them for None (blocking)."""

HINT = (
    "type to search · ↑↓ move · enter open · ctrl+s sort · tab this directory / all · ctrl+n named only"
    " · ctrl+r rename · ctrl+d delete · esc cancel"
)


class SessionPicker(Dialog[str | None]):
    """Answers the chosen session file's path, or None on Escape."""

    DEFAULT_CSS = """
    SessionPicker > Vertical { max-width: 120; height: 80%; }
    SessionPicker .dialog-title { padding: 0; }
    SessionPicker Input { margin: 1 0; }
    SessionPicker SessionBrowser { height: 1fr; }
    SessionPicker #picker-hint { width: 1fr; height: auto; }
    """

    BINDINGS = [
        Binding("ctrl+s", "cycle_sort", "Sort"),
        Binding("tab", "toggle_scope", "This directory / all"),
        Binding("ctrl+n", "toggle_named", "Named only"),
        Binding("ctrl+r", "rename", "Rename"),
        # The search box would take Ctrl+D (delete right) first.
        Binding("ctrl+d", "delete", "Delete", priority=True),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
        Binding("pagedown", "move(10)", show=False),
        Binding("pageup", "move(-10)", show=False),
    ]

    def __init__(
        self, cwd: str, lister: Lister, *, show_all: bool = False, current: Path | None = None
    ) -> None:
        super().__init__()
        self.cwd = cwd
        self.lister = lister
        self.show_all = show_all
        self.current = current
        """The open session's file: it may be renamed here, not deleted."""
        self.loaded = False

    def compose_head(self) -> ComposeResult:
        yield Input(placeholder="search name, first message, id, directory", id="picker-search")

    def compose_body(self) -> ComposeResult:
        yield SessionBrowser(id="picker-sessions", search_keys=False)
        yield Label(HINT, id="picker-hint", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._list()

    @property
    def browser(self) -> SessionBrowser:
        return self.query_one(SessionBrowser)

    @work(thread=True, exclusive=True, group="picker", exit_on_error=False)
    def _list(self) -> None:
        summaries = self.lister(None if self.show_all else self.cwd)
        deliver(self, self._show, summaries)

    def _show(self, summaries: list[SessionSummary]) -> None:
        self.browser.show([SessionRow.from_summary(row) for row in summaries], here=self.cwd)
        self.loaded = True
        self._show_title()

    def _show_title(self) -> None:
        scope = ("named sessions, " if self.browser.named_only else "") + (
            "all directories" if self.show_all else "this directory"
        )
        count = len(self.browser.shown)
        empty = "" if count or self.browser.query_text else " — none here yet: tab lists every directory"
        self.show_title(f"Resume a session — {scope} ({count}) · sorted by {self.browser.sort_mode}{empty}")

    @on(Input.Changed, "#picker-search")
    def _search(self, event: Input.Changed) -> None:
        self.browser.search(event.value)
        self._show_title()

    @on(Input.Submitted, "#picker-search")
    def _open_highlighted(self) -> None:
        row = self.browser.highlighted_row
        if row is not None:
            self.dismiss(row.key)

    @on(DataTable.RowSelected)
    def _open_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_move(self, step: int) -> None:
        browser = self.browser
        if browser.row_count:
            row = max(0, min(browser.row_count - 1, browser.cursor_row + step))
            browser.move_cursor(row=row)

    def action_cycle_sort(self) -> None:
        self.browser.action_cycle_sort()
        self._show_title()

    def action_toggle_scope(self) -> None:
        self.show_all = not self.show_all
        self._list()

    def action_toggle_named(self) -> None:
        self.browser.toggle_named_only()
        self._show_title()

    def action_rename(self) -> None:
        row = self.browser.highlighted_row
        if row is None:
            return
        current = row.title if row.named else ""
        dialog = TextDialog(f"Rename: {row.title}", placeholder="a name for this session", value=current)
        self.app.push_screen(dialog, callback=lambda name: self._rename(row, name))

    async def _rename(self, row: SessionRow, name: str | None) -> None:
        if name is None:
            return
        try:
            named = await asyncio.to_thread(rename_session_file, Path(row.key), name)
        except (ValueError, SessionError, OSError) as error:
            self.notify(f"Not renamed: {error}", severity="error", markup=False)
            return
        self.notify(f"Named {named!r}", markup=False)
        self._list()

    def action_delete(self) -> None:
        row = self.browser.highlighted_row
        if row is None:
            return
        if self.current is not None and Path(row.key) == self.current:
            self.notify("The open session cannot be deleted.", severity="warning")
            return
        dialog = ChoiceDialog(
            f"Delete session {row.title!r}?",
            [("delete", "Delete it (to the trash when there is one)"), ("keep", "Keep it")],
            hint=row.key,
            filterable=False,
        )
        self.app.push_screen(dialog, callback=lambda answer: self._delete(row, answer))

    async def _delete(self, row: SessionRow, answer: str | None) -> None:
        if answer != "delete":
            return
        try:
            deletion = await asyncio.to_thread(delete_session_file, Path(row.key))
        except OSError as error:
            self.notify(f"Not deleted: {error}", severity="error", markup=False)
            return
        self.notify(deletion.describe(), markup=False)
        self._list()
