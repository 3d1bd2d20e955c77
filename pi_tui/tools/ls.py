"""The `ls` tool: a sorted listing with `/` after folders, dotfiles included."""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Any, ClassVar

from pydantic import Field

from pi_tui.agent.tool import OPERATION_ABORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import resolve_to_cwd
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    path: str | None = Field(default=None, description="Directory to list (default: current directory)")
    limit: int | None = Field(default=None, description="Maximum number of entries to return (default: 500)")


class LsTool(AgentTool[LsParams]):
    name: ClassVar[str] = "ls"
    label: ClassVar[str] = "ls"
    description: ClassVar[str] = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. "
        f"Includes dotfiles. Output is truncated to {DEFAULT_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB "
        "(whichever is hit first)."
    )
    parameters: ClassVar[type[ToolParams]] = LsParams
    prompt_snippet: ClassVar[str | None] = "List directory contents"

    def __init__(self, cwd: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.cwd = cwd
        self.max_bytes = max_bytes

    async def execute(
        self,
        tool_call_id: str,
        params: LsParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        directory = resolve_to_cwd(params.path or ".", self.cwd)
        limit = params.limit if params.limit is not None else DEFAULT_LIMIT
        listed = await asyncio.to_thread(_list, directory, limit)
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        if isinstance(listed, str):
            return ToolResult.error(listed)
        entries, limit_reached = listed
        if not entries:
            return ToolResult.text("(empty directory)")
        truncation = truncate_head("\n".join(entries), max_lines=2**53 - 1, max_bytes=self.max_bytes)
        text = truncation.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
            details["entryLimitReached"] = limit
        if truncation.truncated:
            notices.append(f"{format_size(self.max_bytes)} limit reached")
            details["truncation"] = truncation.to_json_obj()
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return ToolResult.text(text, details=details or None)


def _list(directory: str, limit: int) -> tuple[list[str], bool] | str:
    if not os.path.exists(directory):
        return f"Path not found: {directory}"
    if not os.path.isdir(directory):
        return f"Not a directory: {directory}"
    try:
        names = os.listdir(directory)
    except OSError as error:
        return f"Cannot read directory: {error.strerror or error}"
    names.sort(key=str.lower)
    entries: list[str] = []
    for name in names:
        if len(entries) >= limit:
            return entries, True
        try:
            mode = os.stat(os.path.join(directory, name)).st_mode
        except OSError:
            continue  # pi skips entries it cannot stat (e.g. dangling symlinks)
        entries.append(name + "/" if stat.S_ISDIR(mode) else name)
    return entries, False
