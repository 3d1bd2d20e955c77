"""The chat screen at 80x24, 99x30 and 120x36 on a real pi session (three compactions, ten tool calls): the
conversation, each side pane and the keys dialog, as SVG snapshots (plain `def` tests: snap_compare runs
its own loop), and the start page at the narrow sizes. Reviewed by eye when accepted: every column, key and
line readable at every size."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.context import resources
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.prompt_area import PromptArea

from .chat_fixtures import chat_on_pi_session
from .conftest import PROJECT
from .pilot_helpers import settle
from .readme_pictures import highlight_tree_session
from .scenarios import fix_world, start_page

SIZES = {"80x24": (80, 24), "99x30": (99, 30), "120x36": (120, 36)}
"""Narrow (the side panel takes the conversation's place), just under the side-by-side width, and wide."""
SESSION = "c-auto-compaction.jsonl"
VIEWS = {"chat": (), "context": ("f2",), "tools": ("f3",), "compactions": ("f4",), "keys": ("f1",)}


@pytest.fixture
def fixed_chat(tmp_path: Path, pi_fixtures: Path, monkeypatch: pytest.MonkeyPatch) -> PiTuiApp:
    """A chat on a copy of a pi session, with everything that varies by machine, run or day fixed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    monkeypatch.setattr(resources, "package_readme_path", lambda: Path("/opt/pi-tui/README.md"))
    build = resources.build_system_prompt

    def fixed_place_and_day(**fields: Any) -> Any:
        return build(**{**fields, "cwd": PROJECT, "date": datetime.date(2026, 1, 15)})

    monkeypatch.setattr(resources, "build_system_prompt", fixed_place_and_day)
    return chat_on_pi_session(tmp_path, pi_fixtures, SESSION)


def open_view(keys: tuple[str, ...]) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        editor = screen.query_one(PromptArea)
        # A snapshot may catch either phase of a blink; stopped, the cursor is drawn steady, once the
        # lines drawn in the "off" phase are dropped (TextArea keys its line cache as if blinking).
        editor.cursor_blink = False
        editor.notify_style_update()
        # The inspector refreshes in a worker after each event; end on one known refresh and row.
        screen.side_panel.refresh_context_pane()
        await settle(pilot)
        inspector = screen.query_one(ContextInspector)
        rows = list(inspector.table.rows)  # none while the pane is hidden (80 columns): it fills when shown
        if rows:
            inspector.select_row(str(rows[0].value))
        screen.query_one(ConversationView).scroll_end(animate=False, immediate=True)
        if keys == ("f1",):
            # Under a dialog the editor's cursor is drawn or not depending on where its blink stopped.
            screen.set_focus(None)
        await pilot.press(*keys)
        await settle(pilot)
        await pilot.pause()  # the footer recomposes for the focus after a refresh
        await pilot.pause()

    return run


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("size", list(SIZES))
def test_layout(snap_compare: Any, fixed_chat: PiTuiApp, size: str, view: str) -> None:
    assert snap_compare(fixed_chat, terminal_size=SIZES[size], run_before=open_view(VIEWS[view]))


@pytest.mark.parametrize("size", ["80x24", "99x30"])
def test_start_page_narrow(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str
) -> None:
    fix_world(monkeypatch, tmp_path)
    app = start_page(tmp_path)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=highlight_tree_session)
