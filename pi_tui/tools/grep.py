"""The `grep` tool, as pi's: ripgrep when on PATH, else a pure-Python search with the same output
over the project's files (`config.project_files.file_walk`, which honours the ignore files)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, ClassVar

from pydantic import Field

from pi_tui.agent.tool import OPERATION_ABORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.project_files.file_walk import walk
from pi_tui.config.regular_files import NotRegularFile, check_regular, open_regular
from pi_tui.tools.file_work import FileWorkAborted, run_file_work
from pi_tui.tools.glob_match import GlobPatternError, glob_matcher
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import resolve_to_cwd
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
)

DEFAULT_LIMIT = 100
BINARY_SNIFF_BYTES = 8192
LONG_LINE_BYTES = 1 << 20
# Files above this size are searched line by line from disk and never held whole (no context lines).
WHOLE_FILE_BYTES = 32 * 1024 * 1024


class GrepParams(ToolParams):
    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | None = Field(
        default=None, description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"
    )
    ignoreCase: bool | None = Field(  # pi's parameter name
        default=None, description="Case-insensitive search (default: false)"
    )
    literal: bool | None = Field(
        default=None, description="Treat pattern as literal string instead of regex (default: false)"
    )
    context: int | None = Field(
        default=None, description="Number of lines to show before and after each match (default: 0)"
    )
    limit: int | None = Field(default=None, description="Maximum number of matches to return (default: 100)")


@dataclass
class _Search:
    """Matches found, plus file lines read along the way (for context lines)."""

    matches: list[tuple[str, int, str | None]] = field(default_factory=list)
    lines: dict[str, list[str]] = field(default_factory=dict)
    limit_reached: bool = False


class GrepError(Exception):
    pass


class GrepTool(AgentTool[GrepParams]):
    name: ClassVar[str] = "grep"
    label: ClassVar[str] = "grep"
    description: ClassVar[str] = (
        "Search file contents for a pattern. Returns matching lines with file paths and line numbers. "
        f"Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} matches or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Long lines are truncated to "
        f"{GREP_MAX_LINE_LENGTH} chars."
    )
    parameters: ClassVar[type[ToolParams]] = GrepParams
    prompt_snippet: ClassVar[str | None] = "Search file contents for patterns (respects .gitignore)"

    def __init__(self, cwd: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.cwd = cwd
        self.max_bytes = max_bytes

    async def execute(
        self,
        tool_call_id: str,
        params: GrepParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        search_path = resolve_to_cwd(params.path or ".", self.cwd)
        try:
            kind = await asyncio.to_thread(_path_kind, search_path)
        except NotRegularFile as refusal:
            return ToolResult.error(f"Cannot search {params.path or '.'}: {refusal.reason}.")
        if kind is None:
            return ToolResult.error(f"Path not found: {search_path}")
        is_dir = kind == "dir"
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        context = params.context if params.context and params.context > 0 else 0
        rg = shutil.which("rg")
        try:
            if rg is not None:
                search = await _ripgrep(rg, params, search_path, limit, signal)
            else:
                search = await run_file_work(
                    signal, lambda: _python_search(params, search_path, is_dir, limit, signal)
                )
        except GrepError as error:
            return ToolResult.error(str(error))
        except FileWorkAborted:
            return ToolResult.error(OPERATION_ABORTED)
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        if not search.matches:
            return ToolResult.text("No matches found")
        output, lines_truncated = await asyncio.to_thread(_format, search, search_path, is_dir, context)
        truncation = truncate_head(output, max_lines=2**53 - 1, max_bytes=self.max_bytes)
        text = truncation.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if search.limit_reached:
            notices.append(
                f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["matchLimitReached"] = limit
        if truncation.truncated:
            notices.append(f"{format_size(self.max_bytes)} limit reached")
            details["truncation"] = truncation.to_json_obj()
        if lines_truncated:
            notices.append(
                f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            )
            details["linesTruncated"] = True
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return ToolResult.text(text, details=details or None)


def _path_kind(path: str) -> str | None:
    """ "dir", "file" or None (nothing there); `NotRegularFile` for a named pipe, a device, a socket."""
    if not os.path.exists(path):
        return None
    if os.path.isdir(path):
        return "dir"
    check_regular(path)
    return "file"


def _read_lines(path: str) -> list[str] | None:
    """The file's lines (newlines normalised), or None for binary, unreadable or very large files.
    `NotRegularFile` for a named pipe, a device or a socket (never opened)."""
    try:
        with open(open_regular(path), "rb") as file:
            if os.fstat(file.fileno()).st_size > WHOLE_FILE_BYTES:
                return None
            data = file.read()
    except NotRegularFile:
        raise
    except OSError:
        return None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _python_search(params: GrepParams, root: str, is_dir: bool, limit: int, signal: AbortSignal) -> _Search:
    source = re.escape(params.pattern) if params.literal else params.pattern
    flags = re.IGNORECASE if params.ignoreCase else 0
    try:
        regex = re.compile(source, flags)
    except re.error as error:
        raise GrepError(f"regex parse error: {error}") from error
    # Matches on a line also match the joined text with ^ and $ at line ends (\A and \Z excepted).
    prefilter = None if "\\A" in source or "\\Z" in source else re.compile(source, flags | re.MULTILINE)
    glob = params.glob
    negate = bool(glob and glob.startswith("!"))
    try:
        glob_matches = glob_matcher(glob[1:] if negate and glob else glob) if glob else None
    except GlobPatternError as error:
        raise GrepError(str(error)) from error
    search = _Search()
    candidates: Iterator[tuple[str, str]]
    if is_dir:
        files = (entry for entry in walk(root, should_stop=lambda: signal.aborted) if not entry.is_dir)
        candidates = ((entry.path, entry.relative) for entry in files)
    else:
        candidates = iter([(root, os.path.basename(root))])
    for path, relative in candidates:
        if glob_matches is not None:
            target = relative if "/" in (glob or "") else relative.rsplit("/", 1)[-1]
            if glob_matches(target) == negate:
                continue
        try:
            lines = _read_lines(path)
        except NotRegularFile:
            continue  # a walk skips what is not a regular file, as ripgrep does
        if lines is None:
            _search_large_file(path, regex, search, limit)
        elif prefilter is None or prefilter.search("\n".join(lines)) is not None:  # rules out most files
            searchable = lines[:-1] if lines and lines[-1] == "" else lines
            for number, line in enumerate(searchable, start=1):
                if regex.search(line):
                    search.lines[path] = lines
                    search.matches.append((path, number, line))
                    if len(search.matches) >= limit:
                        break
        if len(search.matches) >= limit:
            search.limit_reached = True
            return search
        if signal.aborted:
            return search
    return search


def _search_large_file(path: str, regex: re.Pattern[str], search: _Search, limit: int) -> None:
    try:
        with open(open_regular(path), "rb") as file:
            if os.fstat(file.fileno()).st_size <= WHOLE_FILE_BYTES:
                return  # small but unreadable as text: binary
            if b"\x00" in file.read(BINARY_SNIFF_BYTES):
                return
            file.seek(0)
            for number, raw in enumerate(_bounded_lines(file), start=1):
                line = raw.decode("utf-8", "replace").rstrip("\n").replace("\r", "")
                if regex.search(line):
                    search.matches.append((path, number, line))
                    if len(search.matches) >= limit:
                        return
    except OSError:
        return


def _bounded_lines(file: BinaryIO) -> Iterator[bytes]:
    """The file's lines, each cut at `LONG_LINE_BYTES` (the rest of a longer line is skipped, not
    held in memory: one line of 20 GB costs a scan, not 20 GB)."""
    while True:
        line = file.readline(LONG_LINE_BYTES)
        if not line:
            return
        if not line.endswith(b"\n"):
            rest = line
            while rest and not rest.endswith(b"\n"):
                rest = file.readline(LONG_LINE_BYTES)
        yield line


async def _ripgrep(rg: str, params: GrepParams, root: str, limit: int, signal: AbortSignal) -> _Search:
    args = ["--json", "--line-number", "--color=never", "--hidden"]
    if params.ignoreCase:
        args.append("--ignore-case")
    if params.literal:
        args.append("--fixed-strings")
    if params.glob:
        args += ["--glob", params.glob]
    process = await asyncio.create_subprocess_exec(
        rg, *args, "--", params.pattern, root,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    unregister = signal.on_abort(process.kill)
    search = _Search()
    try:
        async for raw in process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if event.get("type") != "match":
                continue
            data = event.get("data", {})
            path = data.get("path", {}).get("text")
            number = data.get("line_number")
            if isinstance(path, str) and isinstance(number, int):
                text = data.get("lines", {}).get("text")
                search.matches.append((path, number, text.rstrip("\n").replace("\r", "") if text else None))
            if len(search.matches) >= limit:
                search.limit_reached = True
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                break
        stderr = (await process.stderr.read()).decode("utf-8", "replace").strip()
        code = await process.wait()
    finally:
        unregister()
    if not search.limit_reached and not signal.aborted and code not in (0, 1):
        raise GrepError(stderr or f"ripgrep exited with code {code}")
    return search


def _format(search: _Search, root: str, is_dir: bool, context: int) -> tuple[str, bool]:
    out: list[str] = []
    truncated_any = False

    def display(path: str) -> str:
        if is_dir:
            relative = os.path.relpath(path, root)
            if relative and not relative.startswith(".."):
                return relative.replace(os.sep, "/")
        return os.path.basename(path)

    for path, number, text in search.matches:
        name = display(path)
        if context == 0 and text is not None:
            line, cut = truncate_line(text.replace("\r", ""))
            truncated_any |= cut
            out.append(f"{name}:{number}: {line}")
            continue
        lines = search.lines.get(path)
        if lines is None:
            lines = _read_lines(path) or []
            search.lines[path] = lines
        if not lines:
            if text is not None:  # a file too large to hold: the match line without context
                line, cut = truncate_line(text.replace("\r", ""))
                truncated_any |= cut
                out.append(f"{name}:{number}: {line}")
            else:
                out.append(f"{name}:{number}: (unable to read file)")
            continue
        first = max(1, number - context)
        last = min(len(lines), number + context)
        for current in range(first, last + 1):
            line, cut = truncate_line(lines[current - 1].replace("\r", ""))
            truncated_any |= cut
            separator = ":" if current == number else "-"
            out.append(f"{name}{separator}{current}{separator} {line}")
    return "\n".join(out), truncated_any
