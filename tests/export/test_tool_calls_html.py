"""Tool calls in the HTML export: an edit's and a write's diff as classed lines, and calls that share an
id each with their own result."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from pi_tui.export.html_export import render_html
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.edit import EditParams, EditTool
from pi_tui.tools.write import WriteParams, WriteTool

DIFF_LINE = re.compile(r'<span class="(add|del|ctx)">(.*?)</span>(?=<span class="(?:add|del|ctx)">|</pre>)')


def tool_sections(document: str) -> list[str]:
    """Each tool call's block, in page order."""
    return document.split('<div class="tool')[1:]


def diff_lines(section: str) -> list[tuple[str, str]]:
    found = re.search(r'<pre class="diff tool-diff">(.*?)</pre>', section, re.S)
    assert found is not None, section[:300]
    return [
        (kind, html.unescape(re.sub("<[^>]+>", "", body))) for kind, body in DIFF_LINE.findall(found.group(0))
    ]


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


async def test_edits_and_writes_show_their_diff(tmp_path: Path) -> None:
    document = await write_then_edit(tmp_path)
    write_section, edit_section = tool_sections(document)
    assert diff_lines(write_section) == [
        ("add", "+1 def greet(name):"),
        ("add", "+2     return 'Hello ' + name"),
    ]
    assert diff_lines(edit_section) == [
        ("ctx", " 1 def greet(name):"),
        ("del", "-2     return 'Hello ' + name"),
        ("add", "+2     return f'Hello, {name}!'"),
    ]
    # The words that changed are marked within the replaced line.
    assert '<span class="changed">' in edit_section
    assert ".diff .ctx" in document and ".diff .add .changed" in document  # styled by the page's own CSS


def test_pis_own_edit_results_show_their_diff(pi_fixtures: Path, tmp_path: Path) -> None:
    copy = tmp_path / "b-tools.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "b-tools.jsonl", copy)
    document = render_html(SessionStore.open(copy))
    edits = [section for section in tool_sections(document) if "<strong>edit</strong>" in section]
    lines = diff_lines(edits[0])
    assert ("del", "-2     return 'Hello ' + name") in lines and ("add", "+6     print(greet('pi'))") in lines
    assert "tool-diff" not in edits[-1]  # the failed edit has no diff
