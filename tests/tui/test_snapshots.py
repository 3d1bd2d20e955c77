"""SVG snapshots of the start page and the chat at 120x40, and of queued messages at 160x48 (plain `def`
tests: snap_compare runs its own loop)."""

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
from pi_tui.tui.widgets.queued_messages import QueuedMessages
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import fix_prompt_place_and_day, make_chat_app
from .conftest import PROJECT
from .pilot_helpers import settle, terminal_input

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
        screen.side_panel.refresh_context_pane()
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


def fixed_system_prompt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The prompt names the README of the checkout, the project folder and the day; each varies by clone,
    by run (pytest numbers its temporary folders) and by date, and so would the prefix's token count."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    fix_prompt_place_and_day(monkeypatch)


@pytest.mark.parametrize("theme", THEMES)
def test_chat_after_a_tool_call(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    fixed_system_prompt(monkeypatch, tmp_path)
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


async def queue_a_steer_and_a_follow_up(pilot: Pilot[Any]) -> None:
    screen = pilot.app.screen
    await settle(pilot)
    terminal_input(pilot, "run the gated command\r")
    await until(lambda: screen.query(ToolCallBlock), pilot=pilot, what="the command to start")
    terminal_input(pilot, "look at the failing test first\r")
    terminal_input(pilot, "then update the changelog and say what changed in the parser since 1.2\t")
    queue = screen.query_one(QueuedMessages)
    await until(lambda: queue.option_count == 2, pilot=pilot, what="both messages listed")
    # The command runs on: everything but its turn has finished once the footer shows the figures.
    await until(
        lambda: screen.caught_up and all(w.is_finished for w in pilot.app.workers if w.group != "turn"),
        pilot=pilot,
        what="the screen to catch up",
    )
    # The side panel's figures are not what this shows (and its table is filled in batches): hidden.
    await pilot.press("ctrl+b")
    await until(lambda: not screen.query_one("#side").display, pilot=pilot, what="the side panel hidden")
    pilot.app.clear_notifications()
    screen.set_focus(None)  # a focused editor's cursor blinks
    await pilot.pause()
    await pilot.pause()


def test_chat_with_a_steer_and_a_follow_up_queued(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixed_system_prompt(monkeypatch, tmp_path)
    gate = ScriptedToolCall(name="bash", arguments={"command": "until [ -e release ]; do sleep 0.05; done"})
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=[gate])])
    app.theme = "pi-dark"
    assert snap_compare(app, terminal_size=(160, 48), run_before=queue_a_steer_and_a_follow_up)
