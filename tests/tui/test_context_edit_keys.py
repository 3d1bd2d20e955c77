"""`h` in the Tools pane and in the Context pane: the preview dialog first (what the model loses, the
tokens saved per turn, what the edit costs now), then pi 1.6's `context_edit`; `h` again undoes it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from pi_tui.ai.messages import ToolResultMessage
from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.session_file.entries import ContextEditEntry
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (140, 44)
REPLIES = [
    ScriptedReply(tool_calls=[ScriptedToolCall(name="read", arguments={"path": "big.txt"})]),
    ScriptedReply(text="It is a long file of numbers."),
]


def dialog_hint(dialog: object) -> str:
    assert isinstance(dialog, ChoiceDialog)
    return dialog.hint


async def test_h_in_the_tools_pane_hides_the_result_after_the_preview_and_h_again_restores_it(
    tmp_path: Path,
) -> None:
    app, session, _ = make_chat_app(tmp_path, list(REPLIES))
    project = Path(session.resources.cwd)
    (project / "big.txt").write_text("\n".join(f"number {n}" for n in range(2_000)), encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "read big.txt")
        [block] = list(app.screen.query_one(ConversationView).query_children(ToolCallBlock))
        await pilot.click(block)
        await settle(pilot)
        viewer = app.screen.query_one(ToolOutputViewer)
        viewer.focus()
        await pilot.press("h")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot, what="the preview")
        hint = dialog_hint(app.screen)
        assert "(toolResult): left out of every later request." in hint
        assert "number 0" in hint and "Saves ~" in hint and "re-reads ~" in hint
        await pilot.press("enter")  # the first option: hide
        await until(lambda: isinstance(session.store.entries[-1], ContextEditEntry), pilot=pilot)
        edit = session.store.entries[-1]
        assert isinstance(edit, ContextEditEntry) and edit.replacement is None
        assert not any(isinstance(m, ToolResultMessage) for m in session.agent.state.messages)

        await settle(pilot)
        viewer.focus()
        await pilot.press("h")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot, what="the undo preview")
        assert app.screen.title_text == "Restore this entry?"  # type: ignore[attr-defined]
        assert "restored to its original content" in dialog_hint(app.screen)
        await pilot.press("enter")
        await until(
            lambda: any(isinstance(m, ToolResultMessage) for m in session.agent.state.messages), pilot=pilot
        )
        restore = session.store.entries[-1]
        assert isinstance(restore, ContextEditEntry) and restore.replacement is not None


async def test_h_in_the_context_pane_replaces_a_message_with_a_note(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, list(REPLIES))
    project = Path(session.resources.cwd)
    (project / "big.txt").write_text("\n".join(f"number {n}" for n in range(500)), encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "read big.txt")
        result_id = next(
            entry_id
            for entry_id, message in zip(
                session.store.build_context().entry_ids, session.store.build_context().messages, strict=True
            )
            if isinstance(message, ToolResultMessage)
        )
        inspector = app.screen.query_one(ContextInspector)
        await until(lambda: f"message:{result_id}" in inspector.table.rows, pilot=pilot, what="the row")
        inspector.select_row(f"message:{result_id}")
        inspector.query_one(DataTable).focus()
        await pilot.press("h")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot, what="the preview")
        await pilot.press("down", "enter")  # the second option: a note
        await until(lambda: isinstance(session.store.entries[-1], ContextEditEntry), pilot=pilot)
        [result] = [m for m in session.agent.state.messages if isinstance(m, ToolResultMessage)]
        assert result.text.startswith("[read output left out by the user: 500 lines")
