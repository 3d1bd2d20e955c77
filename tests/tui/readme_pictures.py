"""The README's pictures (`docs/screenshots/NAME.svg`), one scenario each, and their generation.

`make screenshots` runs `python -m tests.tui.readme_pictures docs/screenshots`: every scenario is drawn as
the snapshot tests draw it (pytest-textual-snapshot's own capture and normalisation), so each picture is
byte for byte the snapshot of `test_readme_pictures.py::test_readme_picture[NAME]`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import normalize_svg
from textual._doc import take_svg_screenshot  # what snap_compare draws with
from textual.app import App
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall, ScriptedUsage
from pi_tui.config.settings import Settings
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from tests.support.session_files import write_sessions_to_resume

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle
from .scenarios import PI_TUI_HOME, Scenario, fix_world, keys_then_steady, pi_chat, start_page, typed

PICTURES = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def chat_after_a_tool_call(theme: str) -> Any:
    def build(folder: Path) -> App[Any]:
        (folder / "project").mkdir()
        (folder / "project" / "todo.md").write_text("- write the parser\n- add tests\n- ship it\n")
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
        app, _, _ = make_chat_app(folder, replies)
        app.theme = theme
        return app

    return build


async def ask_about_todo(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press(*typed("what is left in todo.md?"))
    await pilot.app.runtime.session.wait_for_idle()  # type: ignore[attr-defined]
    await settle(pilot)
    # The inspector refreshes in a worker after each event; end on one known refresh and row.
    screen = pilot.app.screen
    screen.side_panel.refresh_context_pane()  # type: ignore[attr-defined]
    await settle(pilot)
    screen.query_one(ContextInspector).select_row("system:base")
    await settle(pilot)
    # A focused editor's cursor blinks, and a snapshot may catch either phase.
    screen.set_focus(None)
    screen.query_one(ConversationView).scroll_end(animate=False, immediate=True)
    await pilot.pause()  # immediate: the scroll is applied already; this waits for its repaint
    await pilot.pause()


async def highlight_tree_session(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


def sessions_to_resume(folder: Path) -> App[Any]:
    """A new chat in `folder/project`; two earlier sessions of it (one named), one of pi's elsewhere."""
    project = str(folder / "project")
    ours = folder / PI_TUI_HOME / "sessions"
    write_sessions_to_resume(ours, Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions", project)
    app, _, _ = make_chat_app(folder, [])
    return app


def approval_chat(folder: Path) -> App[Any]:
    """Approval mode on; the model's answer is a command to run. The shell is named (the dialog shows it),
    so the picture is the same on a machine without /bin/bash."""
    call = ScriptedToolCall(name="bash", arguments={"command": "rm -rf build && make dist"})
    settings = Settings(approval=True, shell_path="/bin/sh")
    app, _, _ = make_chat_app(folder, [ScriptedReply(tool_calls=[call])], settings=settings)
    return app


def new_chat(folder: Path) -> App[Any]:
    app, _, _ = make_chat_app(folder, [])
    return app


AUTO_COMPACTION = pi_chat("c-auto-compaction.jsonl")
"""pi's session with three automatic compactions and ten tool calls."""

SCENARIOS: dict[str, Scenario] = {
    "start-page": Scenario(lambda folder: start_page(folder), highlight_tree_session),
    "chat": Scenario(chat_after_a_tool_call("pi-dark"), ask_about_todo),
    "chat-light": Scenario(chat_after_a_tool_call("pi-light"), ask_about_todo),
    "context-inspector": Scenario(AUTO_COMPACTION, keys_then_steady("f2", "f11")),
    "tool-output-viewer": Scenario(AUTO_COMPACTION, keys_then_steady("f3", "f11")),
    "compaction-timeline": Scenario(AUTO_COMPACTION, keys_then_steady("f4", "f11")),
    "completion": Scenario(new_chat, keys_then_steady("slash", "c")),
    "session-picker": Scenario(
        sessions_to_resume, keys_then_steady(*typed("/resume"), "tab", wait_for=SessionPicker)
    ),
    "tree": Scenario(pi_chat("f-tree.jsonl"), keys_then_steady(*typed("/tree"), wait_for=TreeDialog)),
    "approval-dialog": Scenario(
        approval_chat, keys_then_steady(*typed("rebuild dist"), wait_for=ApprovalDialog)
    ),
}
"""Each picture the README shows, by its file name in docs/screenshots (without `.svg`)."""


def draw(scenario: Scenario, folder: Path) -> str:
    """The scenario's picture, as its snapshot test stores it; its files go to `folder` (empty)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        fix_world(monkeypatch, folder)
        app = scenario.build(folder)
        svg = take_svg_screenshot(app=app, terminal_size=scenario.size, run_before=scenario.run_before)
    return normalize_svg(svg)


def main(target: Path) -> None:
    os.environ["TZ"] = "UTC"  # as the tests' conftest: times on screen are UTC
    time.tzset()
    for name in ("COLUMNS", "LINES"):  # a terminal's size, not the picture's
        os.environ.pop(name, None)
    target.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        with tempfile.TemporaryDirectory() as folder:
            (target / f"{name}.svg").write_text(draw(scenario, Path(folder)))
        print(f"{target / name}.svg")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PICTURES)
