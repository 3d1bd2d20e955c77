"""A table of sessions to search and sort: the start page's and `/resume`'s way back into earlier work.

`s` cycles the order (modified, created, name, messages); `/` starts a search typed into the table
itself (Enter keeps it, Esc clears it), because the start page's letters are its own keys. The
`/resume` picker feeds its search box in through `search`. The current order and search are shown
in the table's bottom border.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import DataTable

from pi_tui.session_file.listing import SessionSummary

SortMode = Literal["modified", "created", "name", "messages"]
SORT_MODES: tuple[SortMode, ...] = ("modified", "created", "name", "messages")


@dataclass(frozen=True)
class SessionRow:
    """What the browser shows and searches of one session."""

    key: str
    modified: datetime
    title: str
    message_count: int
    source: str
    created: datetime | None = None
    session_id: str = ""
    cwd: str = ""
    first_message: str = ""
    named: bool = False

    @classmethod
    def from_summary(cls, summary: SessionSummary) -> SessionRow:
        return cls(
            key=str(summary.path),
            modified=summary.modified,
            title=" ".join((summary.name or summary.first_message).split()),
            message_count=summary.message_count,
            source=summary.source,
            created=summary.created,
            session_id=summary.id,
            cwd=summary.cwd,
            first_message=summary.first_message,
            named=bool(summary.name and summary.name.strip()),
        )

    def matches(self, query: str) -> bool:
        """Every word of `query` appears in the name, first message, id or directory (any case)."""
        haystack = f"{self.title}\n{self.first_message}\n{self.session_id}\n{self.cwd}".lower()
        return all(word in haystack for word in query.lower().split())


def arrange(
    rows: Sequence[SessionRow], sort: SortMode, query: str = "", *, named_only: bool = False
) -> list[SessionRow]:
    """The rows matching `query` (named ones only, if asked), newest (or largest, or A to Z by name) first."""
    shown = [row for row in rows if row.matches(query) and (row.named or not named_only)]
    if sort == "created":
        shown.sort(key=lambda row: row.created or row.modified, reverse=True)
    elif sort == "name":
        shown.sort(key=lambda row: (row.title.casefold(), -row.modified.timestamp()))
    elif sort == "messages":
        shown.sort(key=lambda row: (-row.message_count, -row.modified.timestamp()))
    else:
        shown.sort(key=lambda row: row.modified, reverse=True)
    return shown


class SessionBrowser(DataTable[str | Text]):
    """Sessions, one row each; keeps every row it was given and shows the ones the search matches."""

    DEFAULT_CSS = """
    SessionBrowser { height: 1fr; }
    """

    BINDINGS = [
        Binding("s", "cycle_sort", "Sort"),
        Binding("slash", "start_search", "Search"),
    ]

    def __init__(self, *, id: str | None = None, search_keys: bool = True) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.sort_mode: SortMode = "modified"
        self.query_text = ""
        self.typing = False
        """`/` was pressed: printable keys go into the search until Enter or Esc."""
        self.search_keys = search_keys
        self.named_only = False
        self._rows: list[SessionRow] = []
        self._here: str | None = None

    def on_mount(self) -> None:
        self.add_columns("modified", "msgs", "source", "session")
        self._show_state()

    @property
    def shown(self) -> list[SessionRow]:
        return arrange(self._rows, self.sort_mode, self.query_text, named_only=self.named_only)

    def show(self, rows: Sequence[SessionRow], *, here: str | None = None) -> None:
        """Replace the rows; those of another directory than `here` (when given) name their directory."""
        self._rows, self._here = list(rows), here
        self._refill()

    def search(self, query: str) -> None:
        self.query_text = query
        self._refill()

    def toggle_named_only(self) -> None:
        self.named_only = not self.named_only
        self._refill()

    @property
    def highlighted_row(self) -> SessionRow | None:
        key = self._cursor_key()
        return next((row for row in self._rows if row.key == key), None)

    def action_cycle_sort(self) -> None:
        self.sort_mode = SORT_MODES[(SORT_MODES.index(self.sort_mode) + 1) % len(SORT_MODES)]
        self._refill()

    def action_start_search(self) -> None:
        if not self.search_keys:
            return
        self.typing = True
        self._show_state()

    def on_key(self, event: events.Key) -> None:
        if not self.typing:
            return
        if event.key == "escape":
            self.typing = False
            self.search("")
        elif event.key == "enter":
            self.typing = False
            self._show_state()
        elif event.key == "backspace":
            self.search(self.query_text[:-1])
        elif event.is_printable and event.character is not None:
            self.search(self.query_text + event.character)
        else:
            return  # arrows still move through the rows
        event.stop()
        event.prevent_default()

    def _refill(self) -> None:
        cursor_key = self._cursor_key()
        self.clear()
        rows = self.shown
        for row in rows:
            title = row.title if self._here is None or row.cwd == self._here else f"{row.title}  ({row.cwd})"
            self.add_row(
                row.modified.astimezone().strftime("%Y-%m-%d %H:%M"),
                str(row.message_count),
                row.source,
                Text(title),  # a name or first message, not markup (DataTable parses a str as markup)
                key=row.key,
            )
        keys = [row.key for row in rows]
        if cursor_key in keys:
            self.move_cursor(row=keys.index(cursor_key))
        self._show_state()

    def _cursor_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def _show_state(self) -> None:
        parts = [f"sort: {self.sort_mode}"]
        if self.named_only:
            parts.append("named only")
        if self.typing or self.query_text:
            parts.append(f"search: {self.query_text}" + ("▏" if self.typing else ""))
        if self.query_text or self.named_only:
            parts.append(f"{self.row_count} of {len(self._rows)}")
        self.border_subtitle = " · ".join(parts)
