"""A table of sessions, newest first: the start page's way back into earlier work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from textual.widgets import DataTable


@dataclass(frozen=True)
class SessionRow:
    """What the browser shows of one session; built by the app from the core's listing."""

    key: str
    modified: datetime
    title: str
    message_count: int
    source: str


class SessionBrowser(DataTable[str]):
    """Sessions of the current directory (and pi's), one row each."""

    DEFAULT_CSS = """
    SessionBrowser { height: 1fr; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.add_columns("modified", "msgs", "source", "session")

    def show(self, rows: Sequence[SessionRow]) -> None:
        self.clear()
        for row in rows:
            self.add_row(
                row.modified.astimezone().strftime("%Y-%m-%d %H:%M"),
                str(row.message_count),
                row.source,
                row.title,
                key=row.key,
            )
