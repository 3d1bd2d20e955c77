"""Named pipes, devices and huge lines: the file tools refuse what is not a regular file, at once, and
bound what they read (docs/reliability.md, "Named pipes, devices and other files")."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools import read as read_module
from pi_tui.tools.edit import EditParams, EditTool
from pi_tui.tools.file_work import FileWorkAborted, run_file_work
from pi_tui.tools.grep import GrepParams, GrepTool
from pi_tui.tools.read import ReadParams, ReadTool
from pi_tui.tools.write import WriteParams, WriteTool
from tests.support.waiting import until_sync

GIVE_UP_S = 30.0
"""Only for the old behaviour: a tool that blocks fails the test instead of hanging the suite."""


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    yield path
    # Release whatever the old code left blocked on the pipe: an O_RDWR open satisfies both sides.
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    os.close(fd)


@pytest.fixture(autouse=True)
def no_ripgrep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pi_tui.tools.grep.shutil.which", lambda name: None)


async def run(tool: Any, params: Any) -> ToolResult:
    result: ToolResult = await asyncio.wait_for(tool.execute("c", params, AbortSignal()), GIVE_UP_S)
    return result


async def test_read_of_a_named_pipe_is_refused_naming_it(tmp_path: Path, fifo: Path) -> None:
    result = await run(ReadTool(str(tmp_path)), ReadParams(path="fifo"))
    assert result.is_error and result.text_content == (
        "Cannot read fifo: it is a named pipe (FIFO); only regular files are used."
    )


async def test_write_to_a_named_pipe_is_refused(tmp_path: Path, fifo: Path) -> None:
    result = await run(WriteTool(str(tmp_path)), WriteParams(path="fifo", content="x"))
    assert result.is_error and "named pipe (FIFO)" in result.text_content


async def test_edit_and_grep_of_a_named_pipe_are_refused(tmp_path: Path, fifo: Path) -> None:
    edit = await run(
        EditTool(str(tmp_path)),
        EditParams.model_validate({"path": "fifo", "edits": [{"oldText": "a", "newText": "b"}]}),
    )
    assert edit.is_error and "named pipe (FIFO)" in edit.text_content
    grep = await run(GrepTool(str(tmp_path)), GrepParams(pattern="x", path="fifo"))
    assert (
        grep.is_error
        and grep.text_content == "Cannot search fifo: it is a named pipe (FIFO); only regular files are used."
    )


async def test_grep_over_a_project_holding_a_named_pipe_skips_it(tmp_path: Path, fifo: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    result = await run(GrepTool(str(tmp_path)), GrepParams(pattern="needle"))
    assert result.text_content == "a.txt:1: needle"


@pytest.mark.parametrize("tool_name", ["read", "write", "edit", "grep"])
async def test_dev_zero_is_refused_as_a_character_device(tmp_path: Path, tool_name: str) -> None:
    tools: dict[str, tuple[Any, Any]] = {
        "read": (ReadTool(str(tmp_path)), ReadParams(path="/dev/zero")),
        "write": (WriteTool(str(tmp_path)), WriteParams(path="/dev/zero", content="x")),
        "edit": (
            EditTool(str(tmp_path)),
            EditParams.model_validate({"path": "/dev/zero", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
        "grep": (GrepTool(str(tmp_path)), GrepParams(pattern="x", path="/dev/zero")),
    }
    tool, params = tools[tool_name]
    result = await run(tool, params)
    assert result.is_error and "it is a character device; only regular files are used" in result.text_content


async def test_a_huge_first_line_is_measured_only_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "FULL_READ_BYTES", 1024)
    monkeypatch.setattr(read_module, "LONG_LINE_MEASURE_BYTES", 1 << 20, raising=False)
    (tmp_path / "one-line").write_bytes(b"a" * (3 << 20))
    result = await run(ReadTool(str(tmp_path)), ReadParams(path="one-line"))
    assert result.text_content.startswith("[Line 1 is more than 1.0MB, exceeds 50.0KB limit.")


async def test_aborting_stops_waiting_for_file_work_that_never_ends() -> None:
    signal = AbortSignal()
    release = threading.Event()
    task = asyncio.ensure_future(run_file_work(signal, release.wait))
    await asyncio.sleep(0)
    signal.abort()
    try:
        with pytest.raises(FileWorkAborted):
            await asyncio.wait_for(task, GIVE_UP_S)
    finally:
        release.set()


def test_a_process_ends_while_its_file_work_is_stuck(tmp_path: Path) -> None:
    """The daemon thread does not hold the interpreter's exit (the default executor's would)."""
    script = (
        "import asyncio, threading\n"
        "from pi_tui.ai.abort import AbortSignal\n"
        "from pi_tui.tools.file_work import run_file_work\n"
        "async def main():\n"
        "    task = asyncio.ensure_future(run_file_work(AbortSignal(), threading.Event().wait))\n"
        "    await asyncio.sleep(0.1)\n"
        "    task.cancel()\n"
        "    print('done', flush=True)\n"
        "asyncio.run(main())\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        until_sync(lambda: process.poll() is not None, GIVE_UP_S, what="the process to end")
    finally:
        process.kill()
    assert process.returncode == 0 and process.stdout is not None and process.stdout.read() == "done\n"
