"""Tool calls in the HTML export: calls that share an id each with their own result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from pi_tui.export.html_export import render_html
from pi_tui.session.store import SessionStore
from pi_tui.tools.edit import EditParams, EditTool
from pi_tui.tools.write import WriteParams, WriteTool


def tool_sections(document: str) -> list[str]:
    """Each tool call's block, in page order."""
    return document.split('<div class="tool')[1:]


def record(store: SessionStore, stamp: int, call: ToolCall, result: ToolResult) -> None:
    store.append_message(AssistantMessage(content=[call], stop_reason="toolUse", timestamp=stamp))
    store.append_message(
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=list(result.content),
            details=result.details,
            is_error=result.is_error,
            timestamp=stamp,
        )
    )


async def run(tool: Any, params: Any) -> ToolResult:
    result: ToolResult = await tool.execute("c", params, AbortSignal())
    return result


async def write_then_edit(tmp_path: Path) -> str:
    """A write and an edit of greet.py, both `call_1_0` (a local server restarted between the turns),
    exported."""
    project = tmp_path / "project"
    project.mkdir()
    store = SessionStore.create(str(project), tmp_path / "sessions")
    store.append_message(UserMessage(content="make greet.py", timestamp=1))
    content = "def greet(name):\n    return 'Hello ' + name\n"
    write_args = {"path": "greet.py", "content": content}
    written = await run(WriteTool(str(project)), WriteParams(**write_args))
    record(store, 1000, ToolCall(id="call_1_0", name="write", arguments=write_args), written)
    edit_args = {
        "path": "greet.py",
        "edits": [{"oldText": "'Hello ' + name", "newText": "f'Hello, {name}!'"}],
    }
    edited = await run(EditTool(str(project)), EditParams.model_validate(edit_args))
    record(store, 2000, ToolCall(id="call_1_0", name="edit", arguments=edit_args), edited)
    return render_html(store)


async def test_calls_that_share_an_id_each_show_their_own_result(tmp_path: Path) -> None:
    write_section, edit_section = tool_sections(await write_then_edit(tmp_path))
    assert "Successfully wrote" in write_section and "Successfully replaced" not in write_section
    assert "Successfully replaced 1 block(s)" in edit_section and "Successfully wrote" not in edit_section
