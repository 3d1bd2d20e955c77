"""An edit's and a write's diff in the conversation (collapsed and with ctrl+o) and in the Tools pane."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from rich.color import Color
from rich.style import Style
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall, ScriptedUsage
from pi_tui.context import resources
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.diff_view import DiffView
from pi_tui.tui.widgets.tool_call_block import DIFF_LINES, ToolCallBlock
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

from .chat_fixtures import make_chat_app
from .conftest import PROJECT
from .pilot_helpers import settle, submit

SIZE = (160, 48)
GREET = "def greet(name):\n    return 'Hello ' + name\n\n\nprint(greet('world'))\n"
EDIT = {"path": "greet.py", "edits": [{"oldText": "'Hello ' + name", "newText": "f'Hello, {name}!'"}]}
LONG = "".join(f"line {n}\n" for n in range(1, 41))


def edit_then_write_replies() -> list[ScriptedReply]:
    return [
        ScriptedReply(
            tool_calls=[ScriptedToolCall(name="edit", arguments=EDIT, id="call-edit")],
            usage=ScriptedUsage(input=1800, output=40),
        ),
        ScriptedReply(
            tool_calls=[
                ScriptedToolCall(
                    name="write", arguments={"path": "long.txt", "content": LONG}, id="call-write"
                )
            ],
            usage=ScriptedUsage(input=1900, output=60),
        ),
        ScriptedReply(
            text="Greeting fixed and `long.txt` written.", usage=ScriptedUsage(input=2000, output=9)
        ),
    ]


def colour_of(app: Any, name: str) -> Color:
    """The theme colour CSS `$name` stands for."""
    return Color.parse(app.get_css_variables()[name])


def line_styles(view: DiffView) -> dict[str, Style]:
    """The style each painted diff line starts with, by the line's text."""
    lines = view.render().split("\n")
    return {line.plain: line.get_style_at_offset(view.app.console, 0) for line in lines}


def blocks(app: Any) -> list[ToolCallBlock]:
    return list(app.screen.query_one(ConversationView).query_children(ToolCallBlock))


async def run_edit_and_write(tmp_path: Path, pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await submit(pilot, "fix the greeting, then write long.txt")
    assert "f'Hello, {name}!'" in (tmp_path / "project" / "greet.py").read_text()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "greet.py").write_text(GREET)
    return folder


async def test_the_conversation_shows_coloured_diffs_and_ctrl_o_shows_more(
    tmp_path: Path, project: Path
) -> None:
    app, _, _ = make_chat_app(tmp_path, edit_then_write_replies())
    async with app.run_test(size=SIZE) as pilot:
        await run_edit_and_write(tmp_path, pilot)
        edit, write = blocks(app)
        head = str(edit.query_one(".tool-head").render())
        assert head.startswith("edit  greet.py:2   [done")  # the first changed line, as pi shows it
        assert not edit.query_one(".tool-tail").display  # the diff, not "Successfully replaced 1 block(s)"
        styles = line_styles(edit.query_one(DiffView))
        assert list(styles) == [
            " 1 def greet(name):",
            "-2     return 'Hello ' + name",
            "+2     return f'Hello, {name}!'",
            " 3 ",
            " 4 ",
            " 5 print(greet('world'))",
        ]
        assert styles["-2     return 'Hello ' + name"].color == colour_of(app, "error")
        assert styles["+2     return f'Hello, {name}!'"].color == colour_of(app, "success")
        assert styles[" 1 def greet(name):"].color != colour_of(app, "success")

        # A new file: every line added; collapsed to its first lines, ctrl+o shows the rest.
        view = write.query_one(DiffView)
        assert write.diff_lines[0].display == "+ 1 line 1" and len(write.diff_lines) == 40
        shown = view.render().plain.split("\n")
        assert shown[:DIFF_LINES] == [f"+{n:>2} line {n}" for n in range(1, DIFF_LINES + 1)]
        assert shown[-1] == f"… {40 - DIFF_LINES} more diff lines (ctrl+o to expand)"
        await pilot.press("ctrl+o")  # the newest call
        await settle(pilot)
        assert write.expanded
        assert view.render().plain.split("\n") == [f"+{n:>2} line {n}" for n in range(1, 41)]


async def test_the_tools_pane_shows_the_diff_below_what_the_model_got(tmp_path: Path, project: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, edit_then_write_replies())
    async with app.run_test(size=SIZE) as pilot:
        await run_edit_and_write(tmp_path, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await pilot.click(blocks(app)[0])
        await settle(pilot)
        viewer = screen.query_one(ToolOutputViewer)
        view = viewer.line_view
        texts = [view.line_text(index) for index in range(view.line_count)]
        assert texts[0] == "Successfully replaced 1 block(s) in greet.py."
        assert texts[1] == ""
        assert texts[2:5] == [
            " 1 def greet(name):",
            "-2     return 'Hello ' + name",
            "+2     return f'Hello, {name}!'",
        ]
        assert [view.line_number(index) for index in range(3)] == [1, None, None]
        title = str(viewer.query_one("#tool-output-title").render())
        assert "what the model got, then the diff" in title
        view.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        removed = [segment for segment in view.render_line(3) if segment.text.startswith("-2")]
        added = [segment for segment in view.render_line(4) if segment.text.startswith("+2")]
        assert removed[0].style is not None and removed[0].style.color == colour_of(app, "error")
        assert removed[0].style.bgcolor != removed[0].style.color  # readable on its tint
        assert added[0].style is not None and added[0].style.color == colour_of(app, "success")


def test_snapshot_of_a_conversation_with_an_edit(
    snap_compare: Any, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    monkeypatch.setattr(resources, "package_readme_path", lambda: Path("/opt/pi-tui/README.md"))
    build = resources.build_system_prompt

    def fixed_place_and_day(**fields: Any) -> Any:
        return build(**{**fields, "cwd": PROJECT, "date": datetime.date(2026, 1, 15)})

    monkeypatch.setattr(resources, "build_system_prompt", fixed_place_and_day)
    app, _, _ = make_chat_app(tmp_path, edit_then_write_replies())

    async def run_before(pilot: Pilot[Any]) -> None:
        await run_edit_and_write(tmp_path, pilot)
        screen = pilot.app.screen
        screen.action_toggle_side()  # the conversation alone, at full width
        screen.set_focus(None)  # a focused editor's cursor blinks
        await settle(pilot)
        screen.query_one(ConversationView).scroll_end(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
