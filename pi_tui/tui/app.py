"""The pi-tui application.

With a model it opens the chat on a session, above the start page. Without one it stays on the start
page (`screens/start_page.py`): what to set up, and the sessions to look into.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual import events, on, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import Theme

from pi_tui.config.settings_files import load_settings, save_global_settings
from pi_tui.session.runtime import AgentSessionRuntime
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.start_page import StartScreen
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.theming import user_themes_dir
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
    scans for good, and collect less often, from now on: `pi-tui` starts with the collector off
    (`cli.main`) and this turns it on, after the first frame. For a process that runs one app: tests
    leave it alone."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


class PiTuiApp(ThemedApp[int]):
    """The start page at the bottom, the chat (when there is a model, or for the demo) above it."""

    TITLE = "pi-tui"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

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
        # Applied before the first paint, so the app never flashes another theme.
        settings = runtime.services.resources.settings if runtime is not None else load_settings(cwd).settings
        self._theme_warning = self.apply_theme_setting(settings.theme)
        self._saved_theme = self.theme
        """The theme the settings file names (or the default): a switch to another one is saved."""

    async def on_event(self, event: events.Event) -> None:
        # A key the terminal sent (not one bubbling back up): the chat screen may first move the focus to
        # the editor, so that a key with no meaning where the focus is, and the keys behind it, are typed.
        if isinstance(event, events.Key) and not event.is_forwarded and isinstance(self.screen, ChatScreen):
            self.screen.route_typed_key(event)
        await super().on_event(event)

    def get_default_screen(self) -> Screen[None]:
        if self.runtime is not None:
            # The chat goes on top at mount and the app ends with it, so a start page under it would never
            # be seen: it cost its widgets' styling and a session listing (a thread holding the GIL)
            # before the chat's first frame (docs/startup.md).
            return Screen(id="under-chat")
        return StartScreen(
            cwd=self.cwd,
            session_root=self.session_root,
            pi_session_root=self.pi_session_root,
            setup_notice=self.setup_notice,
        )

    def on_mount(self) -> None:
        if self._tune_gc:
            # After the first frame: the screens' widgets are built by then and are frozen with the rest.
            self.call_after_refresh(tune_gc)
        # A switch (/settings, or any code setting `theme`) is remembered, outside the demo.
        self.theme_changed_signal.subscribe(self, self._theme_switched)
        for problem in [*self.theme_problems, self._theme_warning]:
            if problem is not None:
                self.notify(str(problem), severity="warning", timeout=10, markup=False)
        for note in self.theme_notes:
            self.notify(note, timeout=10, markup=False)
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

    def get_system_commands(self, screen: Screen[Any]) -> Iterator[SystemCommand]:
        # Textual's generic entries (Keys, Maximize, Screenshot, Theme) stand beside pi-tui's own F1,
        # F11 and /settings and act behind their backs (Theme saved a switch even from the demo): the
        # chat's palette lists its slash commands only (`command_provider.py`), /quit among them. Other
        # screens have no such list, so quitting is their one entry.
        if not isinstance(screen, ChatScreen):
            yield SystemCommand("Quit", "Quit pi-tui", self.action_quit)

    @property
    def showing_demo(self) -> bool:
        """The demo's chat is open (`--demo`, or `d` on the start page): a show, not the user's setup."""
        return self.demo or any(isinstance(s, ChatScreen) and s.demo for s in self.screen_stack)

    def _theme_switched(self, theme: Theme) -> None:
        # The demo writes nothing of the user's: a theme tried there lasts until the app quits.
        if theme.name != self._saved_theme and not self.showing_demo:
            self._saved_theme = theme.name
            self._save_theme(theme.name)

    @work(thread=True, group="save-theme", exit_on_error=False)
    def _save_theme(self, name: str) -> None:
        for problem in save_global_settings({"theme": name}):
            deliver(self, self.notify, str(problem), severity="warning", markup=False)

    @on(StartScreen.DemoReady)
    def _show_demo(self, event: StartScreen.DemoReady) -> None:
        demo = event.demo
        self.runtime = demo.runtime
        self.push_screen(ChatScreen(demo.runtime, demo=True, initial_messages=list(demo.prompts)))
