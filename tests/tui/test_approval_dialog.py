"""Approval mode in the TUI: the dialog shows the call (an edit as a diff), y runs it, n / Esc deny it,
a stops asking for that tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Static

from pi_tui.ai.messages import TextContent, ToolResultMessage
from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.config.settings import Settings
from pi_tui.session.approval import user_denied_text
from pi_tui.tui.screens.approval_dialog import ApprovalDialog, call_details
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (120, 40)


def bash(command: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name="bash", arguments={"command": command})])


def edit_call(path: str, old: str, new: str) -> ScriptedToolCall:
    return ScriptedToolCall(
        name="edit", arguments={"path": path, "edits": [{"oldText": old, "newText": new}]}
    )


async def next_dialog(app: Any) -> ApprovalDialog:
    # Pushed is not yet composed: under load the body was queried before it existed.
    await until(
        lambda: isinstance(app.screen, ApprovalDialog) and bool(app.screen.query("#approval-body")),
        what="the approval dialog, composed",
    )
    assert isinstance(app.screen, ApprovalDialog)
    return app.screen


def body_text(dialog: ApprovalDialog) -> str:
    return str(dialog.query_one("#approval-body", Static).render())


async def test_y_n_escape_and_always(tmp_path: Path) -> None:
    replies = [
        bash("touch yes.txt"),
        bash("touch no.txt"),
        ScriptedReply(tool_calls=[edit_call("f.txt", "[bold]old[/bold]", "new")]),
        bash("touch always1.txt"),
        bash("touch always2.txt"),
        ScriptedReply(text="all done"),
    ]
    project = tmp_path / "project"
    project.mkdir()
    (project / "f.txt").write_text("[bold]old[/bold]\n")
    app, session, provider = make_chat_app(tmp_path, replies, settings=Settings(approval=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"go", "enter")

        dialog = await next_dialog(app)
        assert dialog.tool_name == "bash" and body_text(dialog) == "touch yes.txt"
        await pilot.press("y")
        dialog = await next_dialog(app)
        assert body_text(dialog) == "touch no.txt"
        await pilot.press("n")
        dialog = await next_dialog(app)
        # An edit shows its diff; markup in a file is shown as text, never interpreted.
        assert dialog.tool_name == "edit" and "-[bold]old[/bold]" in body_text(dialog)
        assert "+new" in body_text(dialog)
        await pilot.press("escape")
        dialog = await next_dialog(app)
        assert body_text(dialog) == "touch always1.txt"
        await pilot.press("a")

        await asyncio.wait_for(session.wait_for_idle(), 20)
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)

    assert (project / "yes.txt").exists()
    assert not (project / "no.txt").exists()
    assert (project / "f.txt").read_text() == "[bold]old[/bold]\n"
    assert (project / "always1.txt").exists() and (project / "always2.txt").exists()
    assert provider.calls == 6 and session.last_assistant_text() == "all done"
    results = [m for m in session.agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [m.is_error for m in results] == [False, True, True, False, False]
    assert results[1].content == [TextContent(text=user_denied_text("bash"))]
    assert results[2].content == [TextContent(text=user_denied_text("edit"))]


def test_details_show_the_command_the_file_and_the_edit_diff() -> None:
    assert call_details("bash", {"command": "make\nmake test", "timeout": 5}) == (
        "command (timeout 5 s)",
        ["make", "make test"],
    )
    assert call_details("write", {"path": "a.py", "content": "x = 1\ny = 2\n"}) == (
        "write a.py (2 lines)",
        ["x = 1", "y = 2"],
    )
    edits = [{"oldText": "a\nb\nc", "newText": "a\nB\nc\nd"}, {"oldText": "z", "newText": "zz"}]
    subject, lines = call_details("edit", {"path": "a.py", "edits": edits})
    assert subject == "edit a.py"
    assert lines == [
        "@@ edit 1 of 2: -1 +2 lines",
        " a",
        "-b",
        "+B",
        " c",
        "+d",
        "@@ edit 2 of 2: -1 +1 lines",
        "-z",
        "+zz",
    ]
