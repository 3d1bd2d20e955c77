"""SVG snapshots of the start page in the light theme at 120x40, and of queued messages at 160x48 (plain
`def` tests: snap_compare runs its own loop); the README's pictures are in test_readme_pictures.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.tui.widgets import activity_line, conversation
from pi_tui.tui.widgets.queued_messages import QueuedMessages
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import fix_prompt_place_and_day, make_chat_app
from .pilot_helpers import settle, terminal_input
from .readme_pictures import highlight_tree_session
from .scenarios import fix_world, start_page


def test_start_page_light(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start page in the light theme (the dark one is the README's, tests/tui/readme_pictures.py)."""
    fix_world(monkeypatch, tmp_path)
    app = start_page(tmp_path)
    app.theme = "pi-light"
    assert snap_compare(app, terminal_size=(120, 40), run_before=highlight_tree_session)


def fixed_system_prompt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The prompt names the README of the checkout, the project folder and the day; each varies by clone,
    by run (pytest numbers its temporary folders) and by date, and so would the prefix's token count."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    monkeypatch.setattr(activity_line, "clock", lambda: 100.0)  # the status line's spinner and seconds
    fix_prompt_place_and_day(monkeypatch)


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
