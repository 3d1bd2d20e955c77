"""The pi-tui application.

With a model it opens the chat on a session. Without one it stays on the start page: what to set
up, and a browser of this directory's sessions (pi's included) with a read-only preview of what
each would send on continuing. Session files are read in worker threads; widgets only render.
"""

from __future__ import annotations

import gc
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.theme import Theme
from textual.widgets import Footer, Header, Static

from pi_tui.config.settings_files import load_settings, save_global_settings
from pi_tui.session.demo import Demo
from pi_tui.session.runtime import AgentSessionRuntime
from pi_tui.session_file.listing import SessionSummary, list_sources
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.session_preview_data import build_preview
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.theming import user_themes_dir
from pi_tui.tui.widgets.session_browser import SessionBrowser, SessionRow
from pi_tui.tui.widgets.session_preview import SessionPreview, SessionPreviewData
from pi_tui.tui.worker_results import deliver

EXIT_WAIT_SECONDS = 2.0
"""How long quitting waits for the session's work to stop before the connections are closed anyway."""
GC_THRESHOLDS = (5_000, 10, 1_000)
"""Young collections every 5,000 allocations (Python's default is 700): a streaming frame makes thousands
of short-lived objects. The middle generation is collected every 10 young ones, so it stays small: at
every 50 it grew to half a million objects and each pass froze a frame for 0.2-0.25 s; at 10 the longest
is ~25 ms (bench/tui.py --only stream). Full collections over the app's heap (0.2-0.6 s) stay rare.
"""


def tune_gc() -> None:
    """Take everything alive at start-up (modules, the session, the widgets) out of the collector's
    scans for good, and collect less often. For a process that runs one app: tests leave it alone."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class PiTuiApp(ThemedApp[int]):
    """Start page: setup status, session browser, session preview."""

    CSS_PATH = "styles/app.tcss"
    TITLE = "pi-tui"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("a", "toggle_all", "All directories"),
        Binding("r", "reload_sessions", "Reload"),
        Binding("d", "demo", "Demo"),
    ]
    START_PAGE_ACTIONS = frozenset({"toggle_all", "reload_sessions", "demo"})
    """The start page's keys: the app is its screen, so without a check they would act (and show in the
    footer) on every screen, `d` replacing an open chat with the demo."""

    def __init__(
        self,
        *,
        cwd: Path,
        session_root: Path,
        pi_session_root: Path,
        setup_notice: str,
        runtime: AgentSessionRuntime | None = None,
        startup_warnings: list[str] | None = None,
        initial_messages: list[str] | None = None,
        demo: bool = False,
        open_resume: bool = False,
        tune_gc: bool = False,
    ) -> None:
        super().__init__(user_themes=user_themes_dir())
        self._tune_gc = tune_gc
        """Apply `tune_gc` once the app is up (the real launch does; a test process running many apps
        must not freeze their garbage)."""
        self.runtime = runtime
        self.startup_warnings = startup_warnings or []
        self.initial_messages = initial_messages or []
        self.demo = demo
        self.open_resume = open_resume
        self.cwd = cwd
        self.session_root = session_root
        self.pi_session_root = pi_session_root
        self.setup_notice = setup_notice
        self._summaries: dict[str, SessionSummary] = {}
        self.show_all = False
        """List every directory's sessions instead of only the current one's."""
        # Applied before the first paint, so the app never flashes another theme.
        settings = runtime.services.resources.settings if runtime is not None else load_settings(cwd).settings
        self._theme_warning = self.apply_theme_setting(settings.theme)
        self._saved_theme = self.theme
        """The theme the settings file names (or the default): a switch to another one is saved."""

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(self.setup_notice, id="setup-notice", markup=False)
        with Horizontal(id="start-panes"):
            yield SessionBrowser(id="session-browser")
            yield SessionPreview(id="session-preview")
        yield Footer()

    def on_mount(self) -> None:
        if self._tune_gc:
            tune_gc()
        # Any switch is remembered, whether from /settings or Textual's own "Change theme" palette entry.
        self.theme_changed_signal.subscribe(self, self._theme_switched)
        self.sub_title = str(self.cwd)
        for problem in [*self.theme_problems, self._theme_warning]:
            if problem is not None:
                self.notify(str(problem), severity="warning", timeout=10, markup=False)
        for note in self.theme_notes:
            self.notify(note, timeout=10, markup=False)
        self.query_one(SessionPreview).show_hint("Select a session to preview it.")
        self.load_sessions()
        if self.runtime is not None:
            chat = ChatScreen(
                self.runtime,
                demo=self.demo,
                initial_messages=self.initial_messages,
                open_resume=self.open_resume,
            )
            self.push_screen(chat, callback=lambda _: self.exit())
            for warning in self.startup_warnings:
                self.notify(warning, severity="warning", timeout=8, markup=False)

    async def on_unmount(self) -> None:
        # Textual has cancelled the screens' workers by now; what is left is the provider's connections.
        if self.runtime is not None:
            await self.runtime.dispose(wait_s=EXIT_WAIT_SECONDS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.START_PAGE_ACTIONS:
            return self.screen is self.screen_stack[0]
        return True

    def _theme_switched(self, theme: Theme) -> None:
        if theme.name != self._saved_theme:
            self._saved_theme = theme.name
            self._save_theme(theme.name)

    @work(thread=True, group="save-theme", exit_on_error=False)
    def _save_theme(self, name: str) -> None:
        for problem in save_global_settings({"theme": name}):
            deliver(self, self.notify, str(problem), severity="warning", markup=False)

    def action_demo(self) -> None:
        """Offered on the start page: watch a scripted model work, offline, with every pane live."""
        self._start_demo()

    @work(thread=True, exclusive=True, group="demo", exit_on_error=False)
    def _start_demo(self) -> None:
        import tempfile

        from pi_tui.session.demo import create_demo

        demo = create_demo(Path(tempfile.mkdtemp(prefix="pi-tui-demo-")))
        deliver(self, self._show_demo, demo)

    def _show_demo(self, demo: Demo) -> None:
        self.runtime = demo.runtime
        self.push_screen(ChatScreen(demo.runtime, demo=True, initial_messages=list(demo.prompts)))

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
