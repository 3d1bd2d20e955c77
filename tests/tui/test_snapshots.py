"""SVG snapshots of the start page at 120x40 (plain `def` tests: snap_compare runs its own loop)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall, ScriptedUsage
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView

from .chat_fixtures import fix_prompt_place_and_day, make_chat_app
from .conftest import PROJECT
from .pilot_helpers import settle

SIZE = (120, 40)
THEMES = ["pi-dark", "pi-light"]


async def highlight_tree_session(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


@pytest.mark.parametrize("theme", THEMES)
def test_start_page(snap_compare: Any, pi_session_root: Path, tmp_path: Path, theme: str) -> None:
    app = PiTuiApp(
        cwd=Path(PROJECT),
        session_root=tmp_path / "ours",
        pi_session_root=pi_session_root,
        setup_notice="No model configured. Set OPENAI_API_KEY, or describe your models in models.json.",
    )
    app.theme = theme
    assert snap_compare(app, terminal_size=SIZE, run_before=highlight_tree_session)


def chat_run(prompt: str) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press(*prompt, "enter")
        await pilot.app.runtime.session.wait_for_idle()  # type: ignore[attr-defined]
        await settle(pilot)
        # The inspector refreshes in a worker after each event; end on one known refresh and row.
        screen = pilot.app.screen
        screen._refresh_inspector()
        await settle(pilot)
        screen.query_one(ContextInspector).select_row("system:base")
        await settle(pilot)
        # A focused editor's cursor blinks, and a snapshot may catch either phase.
        screen.set_focus(None)
        conversation = pilot.app.screen.query_one(ConversationView)
        conversation.scroll_end(animate=False, immediate=True)
        await pilot.pause()  # immediate: the scroll is applied already; this waits for its repaint
        await pilot.pause()

    return run


@pytest.mark.parametrize("theme", THEMES)
def test_chat_after_a_tool_call(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    fix_prompt_place_and_day(monkeypatch)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "todo.md").write_text("- write the parser\n- add tests\n- ship it\n")
    replies = [
        ScriptedReply(
            thinking="The user wants the open items; read the file.",
            tool_calls=[ScriptedToolCall(name="read", arguments={"path": "todo.md"}, id="call-1")],
            usage=ScriptedUsage(input=1800, output=40, cache_read=1500),
        ),
        ScriptedReply(
            text="Three items are open:\n\n1. write the parser\n2. add tests\n3. ship it",
            usage=ScriptedUsage(input=1900, output=30, cache_read=1800),
        ),
    ]
    app, _, _ = make_chat_app(tmp_path, replies)
    app.theme = theme
    assert snap_compare(app, terminal_size=SIZE, run_before=chat_run("what is left in todo.md?"))
