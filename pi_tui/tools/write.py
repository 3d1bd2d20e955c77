"""The `write` tool: create or overwrite a file, creating parent folders.

Beyond pi, the result's details hold the change as a display diff, in the shape pi's edit tool gives it
(`{diff, firstChangedLine}`): every line added for a new file, else the previous content against the
new. pi's own write result has no details, so pi shows such a session as it shows its own.
"""

from __future__ import annotations

import asyncio
import enum
import os
from typing import Any, ClassVar

from pydantic import Field

from pi_tui.agent.tool import OPERATION_ABORTED, STRICT_WHERE_SUPPORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.regular_files import NotRegularFile, check_regular, open_regular
from pi_tui.tools.edit_diff import file_change_diff
from pi_tui.tools.file_locks import file_mutation_lock
from pi_tui.tools.file_work import FileWorkAborted, run_file_work
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import node_error_message, resolve_to_cwd

MAX_DIFF_FILE_BYTES = 4 * 1024 * 1024
"""Files larger than this (before or after) get no diff: reading and diffing them would hold up the turn."""


class Unknown(enum.Enum):
    """The previous content could not be read or is too big to diff."""

    UNKNOWN = enum.auto()


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


def utf16_length(text: str) -> int:
    """JavaScript's `string.length`: characters outside the BMP count twice."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class WriteTool(AgentTool[WriteParams]):
    name: ClassVar[str] = "write"
    label: ClassVar[str] = "write"
    description: ClassVar[str] = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically "
        "creates parent directories."
    )
    parameters: ClassVar[type[ToolParams]] = WriteParams
    constrained_sampling: ClassVar[dict[str, Any] | None] = STRICT_WHERE_SUPPORTED
    prompt_snippet: ClassVar[str | None] = "Create or overwrite files"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ("Use write only for new files or complete rewrites.",)

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    async def execute(
        self,
        tool_call_id: str,
        params: WriteParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        absolute = resolve_to_cwd(params.path, self.cwd)
        async with file_mutation_lock(absolute):
            if signal.aborted:
                return ToolResult.error(OPERATION_ABORTED)
            parent = os.path.dirname(absolute)
            try:
                await asyncio.to_thread(os.makedirs, parent, exist_ok=True)
            except OSError as error:
                return ToolResult.error(node_error_message(error, "mkdir", parent))
            try:
                previous = await run_file_work(signal, lambda: _previous_content(absolute))
                await run_file_work(signal, lambda: _write(absolute, params.content))
            except NotRegularFile as refusal:
                return ToolResult.error(f"Cannot write {params.path}: {refusal.reason}.")
            except OSError as error:
                return ToolResult.error(node_error_message(error, "open", absolute))
            except FileWorkAborted:
                return ToolResult.error(OPERATION_ABORTED)
            if signal.aborted:
                return ToolResult.error(OPERATION_ABORTED)
        details: dict[str, Any] | None = None
        if previous is not Unknown.UNKNOWN and len(params.content) <= MAX_DIFF_FILE_BYTES:
            diff = await asyncio.to_thread(file_change_diff, previous, params.content)
            details = {"diff": diff.diff}
            if diff.first_changed_line is not None:
                details["firstChangedLine"] = diff.first_changed_line
        # pi reports the content's JavaScript length (UTF-16 code units) as "bytes".
        return ToolResult.text(
            f"Successfully wrote {utf16_length(params.content)} bytes to {params.path}", details=details
        )


def _previous_content(path: str) -> str | Unknown | None:
    """The file's text before the write; None when there is no file; `Unknown.UNKNOWN` when it cannot be
    read or is too big to diff (then no diff is given rather than a wrong one). `NotRegularFile` for
    anything else (a named pipe, a device): nothing is written there."""
    try:
        if check_regular(path) is None:
            return None
        with open(open_regular(path), "rb") as file:
            if os.fstat(file.fileno()).st_size > MAX_DIFF_FILE_BYTES:
                return Unknown.UNKNOWN
            return file.read().decode("utf-8", "replace")
    except NotRegularFile:
        raise
    except FileNotFoundError:
        return None
    except OSError:
        return Unknown.UNKNOWN


def _write(path: str, content: str) -> None:
    with open(open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as file:
        file.write(content.encode("utf-8", "surrogatepass"))
