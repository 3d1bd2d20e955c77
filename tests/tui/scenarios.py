"""Scenarios on the real app that end on a picture: each builds its app in a given folder and says what a
user does before the picture is taken. The snapshot tests run them, and so does `make screenshots` for the
README's pictures (`tests/tui/readme_pictures.py`), so a picture in the README is a tested one.

`fix_world` fixes everything that varies by machine, run or day (home, time zone, clock, the system
prompt's place and date), so a scenario draws the same picture in any folder on any day."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from pi_tui.config.paths import cwd_folder_name
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets import activity_line, conversation
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from tests.support.waiting import until

from .chat_fixtures import chat_on_pi_session, fix_prompt_place_and_day
from .conftest import PROJECT
from .pilot_helpers import settle

PI_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
"""The files written by the real pi (the `pi_fixtures` fixture's folder)."""
PI_TUI_HOME = ".pi-tui"
PI_AGENT_DIR = ".pi-agent"
"""pi-tui's and pi's homes, under the scenario's folder."""

Run = Callable[[Pilot[Any]], Awaitable[None]]


@dataclass(frozen=True)
class Scenario:
    build: Callable[[Path], App[Any]]
    """The app, with its files in the given (empty) folder; `fix_world` has been applied to it."""
    run_before: Run
    """What the user does before the picture."""
    size: tuple[int, int] = (120, 40)


def fix_world(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Home and pi-tui's and pi's homes in `folder` (the footer shows the project as `~/project`), the
    conversation's and the status line's clocks stopped, the system prompt's place and day fixed. (The
    time zone is UTC: the tests' conftest sets it, and so does `make screenshots`.)"""
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("PI_TUI_HOME", str(folder / PI_TUI_HOME))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder / PI_AGENT_DIR))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    monkeypatch.setattr(activity_line, "clock", lambda: 100.0)  # the status line's spinner and seconds
    fix_prompt_place_and_day(monkeypatch)


def pi_chat(session: str) -> Callable[[Path], App[Any]]:
    """The chat on a copy of one of pi's sessions in the fixtures."""
    return lambda folder: chat_on_pi_session(folder, PI_FIXTURES, session)


def start_page(folder: Path) -> PiTuiApp:
    """The start page with no model configured, listing every fixture session of pi as this folder's."""
    pi_sessions = folder / "pi-sessions"
    filed = pi_sessions / cwd_folder_name(PROJECT)
    filed.mkdir(parents=True)
    for source in sorted((PI_FIXTURES / "pi-sessions").glob("*.jsonl")):
        shutil.copy(source, filed / source.name)
    return PiTuiApp(
        cwd=Path(PROJECT),
        session_root=folder / "ours",
        pi_session_root=pi_sessions,
        setup_notice="No model configured. Set OPENAI_API_KEY, or describe your models in models.json.",
    )


def chat_screen(app: App[Any]) -> ChatScreen | None:
    """The chat, under any dialog opened over it."""
    return next((screen for screen in app.screen_stack if isinstance(screen, ChatScreen)), None)


async def quiet(pilot: Pilot[Any]) -> None:
    """Every session event on screen and every worker ended, but a turn (which may be waiting for the
    answer to a dialog)."""
    app = pilot.app
    await until(
        lambda: (
            all(getattr(screen, "caught_up", True) for screen in app.screen_stack)
            and all(worker.is_finished for worker in app.workers if worker.group != "turn")
        ),
        pilot=pilot,
        what="the screens to catch up and the workers to end",
    )
    await pilot.pause()


async def steady(pilot: Pilot[Any]) -> None:
    """End on a picture that does not depend on timing: the Context pane refreshed once more with its first
    row shown, the conversation at its end, every cursor drawn steady (a snapshot could catch either phase
    of a blink)."""
    await quiet(pilot)
    chat = chat_screen(pilot.app)
    if chat is not None:
        chat.side_panel.refresh_context_pane()
        await quiet(pilot)
        inspector = chat.query_one(ContextInspector)
        rows = list(inspector.table.rows)  # none while the pane is hidden
        if rows:
            inspector.select_row(str(rows[0].value))
        chat.query_one(ConversationView).scroll_end(animate=False, immediate=True)
    for screen in pilot.app.screen_stack:
        for editor in screen.query("Input, TextArea"):
            editor.cursor_blink = False  # type: ignore[attr-defined]
            # TextArea keys its line cache as if blinking: lines drawn in the "off" phase are dropped.
            editor.notify_style_update()
    await quiet(pilot)
    await pilot.pause()  # the footer recomposes for the focus after a refresh
    await pilot.pause()


def keys_then_steady(*keys: str, wait_for: type[Any] | None = None) -> Run:
    """Press `keys` one by one, wait for a screen of type `wait_for` on top, end steady."""

    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await quiet(pilot)  # what the key started (a pane's rows, a dialog's list) is there for the next
        if wait_for is not None:
            await until(lambda: isinstance(pilot.app.screen, wait_for), pilot=pilot, what=f"{wait_for}")
        await steady(pilot)

    return run


def typed(text: str) -> Sequence[str]:
    """The keys that type `text` into the editor and send it."""
    return [*text, "enter"]
