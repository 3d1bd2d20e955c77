"""The start page: what to set up, and a browser of this directory's sessions (pi's included) with a
read-only preview of what each would send on continuing. Session files are read in worker threads.

It is the bottom screen of the app: a chat opens on top of it, so its keys act only while it shows.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, Static

from pi_tui.session.demo import Demo
from pi_tui.session_file.listing import SessionSummary, list_sources
from pi_tui.tui.session_preview_data import build_preview
from pi_tui.tui.widgets.key_hints import KeyHints
from pi_tui.tui.widgets.session_browser import SessionBrowser, SessionRow
from pi_tui.tui.widgets.session_preview import SessionPreview, SessionPreviewData
from pi_tui.tui.worker_results import deliver


class StartScreen(Screen[None]):
    """Setup status, session browser, session preview."""

    # Default CSS, not a CSS_PATH: Textual reads a screen's CSS file when the screen is pushed, and this
    # one is the app's first screen, which is installed without being pushed.
    DEFAULT_CSS = """
    #setup-notice { padding: 0 1; margin: 1 1 0 1; border: round $warning; color: $text; }
    #start-panes { height: 1fr; margin: 1 1 0 1; }
    #session-browser { width: 3fr; border: round $primary; }
    #session-preview { width: 2fr; border: round $secondary; padding: 0 1; }
    """
    BINDINGS = [
        Binding("a", "toggle_all", "All directories"),
        Binding("r", "reload_sessions", "Reload"),
        Binding("d", "demo", "Demo"),
    ]

    class DemoReady(Message):
        """The demo's session is set up: the app opens a chat on it."""

        def __init__(self, demo: Demo) -> None:
            super().__init__()
            self.demo = demo

    def __init__(self, *, cwd: Path, session_root: Path, pi_session_root: Path, setup_notice: str) -> None:
        super().__init__()
        self.cwd = cwd
        self.session_root = session_root
        self.pi_session_root = pi_session_root
        self.setup_notice = setup_notice
        self._summaries: dict[str, SessionSummary] = {}
        self.show_all = False
        """List every directory's sessions instead of only the current one's."""

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(self.setup_notice, id="setup-notice", markup=False)
        with Horizontal(id="start-panes"):
            yield SessionBrowser(id="session-browser")
            yield SessionPreview(id="session-preview")
        yield KeyHints()

    def on_mount(self) -> None:
        self.sub_title = str(self.cwd)
        self.query_one(SessionPreview).show_hint("Select a session to preview it.")
        self.load_sessions()

    def action_demo(self) -> None:
        """Watch a scripted model work, offline, with every pane live."""
        self._start_demo()

    @work(thread=True, exclusive=True, group="demo", exit_on_error=False)
    def _start_demo(self) -> None:
        from pi_tui.session.demo import create_demo, demo_folder

        demo = create_demo(demo_folder())
        deliver(self, self.post_message, self.DemoReady(demo))

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        self.load_sessions()

    def action_reload_sessions(self) -> None:
        self.load_sessions()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load_sessions(self) -> None:
        cwd = None if self.show_all else str(self.cwd)
        summaries = list_sources(cwd, root=self.session_root, pi_root=self.pi_session_root)
        deliver(self, self._show_sessions, summaries)

    def _show_sessions(self, summaries: list[SessionSummary]) -> None:
        self._summaries = {str(summary.path): summary for summary in summaries}
        rows = [SessionRow.from_summary(summary) for summary in summaries]
        browser = self.query_one(SessionBrowser)
        browser.show(rows, here=str(self.cwd) if self.show_all else None)
        scope = "all directories" if self.show_all else "this directory"
        browser.border_title = f"Sessions — {scope} ({len(rows)})"
        if not rows:
            self.query_one(SessionPreview).show_hint(
                f"No sessions in {scope} yet. Press a to list every directory."
            )

    @on(SessionBrowser.RowHighlighted)
    def _preview_highlighted(self, event: SessionBrowser.RowHighlighted) -> None:
        summary = self._summaries.get(event.row_key.value or "")
        if summary is not None:
            self.load_preview(summary)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def load_preview(self, summary: SessionSummary) -> None:
        data = build_preview(summary.path, summary.source)
        deliver(self, self._show_preview, data)

    def _show_preview(self, data: SessionPreviewData) -> None:
        self.query_one(SessionPreview).show(data)
