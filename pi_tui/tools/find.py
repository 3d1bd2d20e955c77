"""The `find` tool: fd when on PATH, else a gitignore-aware Python walk with the
same glob rules (a pattern containing `/` is matched against the full path, with `**/` in front)."""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import Any, ClassVar

from pydantic import Field

from pi_tui.agent.tool import OPERATION_ABORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.file_walk import walk
from pi_tui.tools.glob_match import GlobPatternError, glob_matcher
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import resolve_to_cwd
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
    )
    path: str | None = Field(default=None, description="Directory to search in (default: current directory)")
    limit: int | None = Field(default=None, description="Maximum number of results (default: 1000)")


def effective_pattern(pattern: str) -> tuple[str, bool]:
    """`(pattern, full_path)` as pi passes them to fd."""
    if "/" not in pattern:
        return pattern, False
    if pattern.startswith(("/", "**/")) or pattern == "**":
        return pattern, True
    return f"**/{pattern}", True


class FindTool(AgentTool[FindParams]):
    name: ClassVar[str] = "find"
    label: ClassVar[str] = "find"
    description: ClassVar[str] = (
        "Search for files by glob pattern. Returns matching file paths relative to the search directory. "
        f"Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    parameters: ClassVar[type[ToolParams]] = FindParams
    prompt_snippet: ClassVar[str | None] = "Find files by glob pattern (respects .gitignore)"

    def __init__(self, cwd: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.cwd = cwd
        self.max_bytes = max_bytes

    async def execute(
        self,
        tool_call_id: str,
        params: FindParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        root = resolve_to_cwd(params.path or ".", self.cwd)
        if not await asyncio.to_thread(os.path.exists, root):
            return ToolResult.error(f"Path not found: {root}")
        limit = params.limit if params.limit is not None else DEFAULT_LIMIT
        fd = shutil.which("fd")
        if fd is not None:
            found = await _run_fd(fd, params.pattern, root, limit, signal)
            if isinstance(found, str):
                return ToolResult.error(found)
            results = found
        else:
            try:
                results = await asyncio.to_thread(_python_find, params.pattern, root, limit, signal)
            except GlobPatternError as error:
                return ToolResult.error(str(error))
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        if not results:
            return ToolResult.text("No files found matching pattern")
        truncation = truncate_head("\n".join(results), max_lines=2**53 - 1, max_bytes=self.max_bytes)
        text = truncation.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if len(results) >= limit:
            notices.append(
                f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["resultLimitReached"] = limit
        if truncation.truncated:
            notices.append(f"{format_size(self.max_bytes)} limit reached")
            details["truncation"] = truncation.to_json_obj()
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return ToolResult.text(text, details=details or None)


def _python_find(pattern: str, root: str, limit: int, signal: AbortSignal) -> list[str]:
    glob, full_path = effective_pattern(pattern)
    matches = glob_matcher(glob)
    results: list[str] = []
    if limit <= 0:
        return results
    for entry in walk(root, should_stop=lambda: signal.aborted):
        target = entry.path.replace(os.sep, "/") if full_path else entry.relative.rsplit("/", 1)[-1]
        if matches(target):
            results.append(entry.relative + "/" if entry.is_dir else entry.relative)
            if len(results) >= limit:
                break
    return results


async def _run_fd(fd: str, pattern: str, root: str, limit: int, signal: AbortSignal) -> list[str] | str:
    glob, full_path = effective_pattern(pattern)
    args = ["--glob", "--color=never", "--hidden", "--no-require-git", "--max-results", str(limit)]
    if full_path:
        args.append("--full-path")
    process = await asyncio.create_subprocess_exec(
        fd, *args, "--", glob, root,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    unregister = signal.on_abort(process.kill)
    try:
        stdout, stderr = await process.communicate()
    finally:
        unregister()
    lines = [line.strip() for line in stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    if process.returncode != 0 and not lines:
        return stderr.decode("utf-8", "replace").strip() or f"fd exited with code {process.returncode}"
    return _relativize(lines, root)


def _relativize(lines: list[str], root: str) -> list[str]:
    """fd's output as posix paths relative to the search root; folders keep their trailing `/`."""
    results = []
    for line in lines:
        trailing = line.endswith("/")
        relative = os.path.relpath(line, root) if os.path.isabs(line) else line
        relative = relative.replace(os.sep, "/")
        results.append(relative + "/" if trailing and not relative.endswith("/") else relative)
    return results
