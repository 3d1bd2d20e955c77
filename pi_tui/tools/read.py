"""The `read` tool: text with head truncation and continuation hints, or an image.

Files up to FULL_READ_BYTES are read whole, exactly as pi does. Bigger files are streamed: only the
selected lines are kept (bounded by the budget) and reading stops once the budget is filled, so a
2 GB file costs a few megabytes of reading, not the whole file; the notice then names the file size
instead of its (uncounted) line total.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass
from typing import Any, BinaryIO, ClassVar

from pydantic import Field

from pi_tui.agent.tool import OPERATION_ABORTED, STRICT_WHERE_SUPPORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import ImageContent, TextContent
from pi_tui.config.regular_files import NotRegularFile, open_regular
from pi_tui.tools.file_work import FileWorkAborted, run_file_work
from pi_tui.tools.image_sniff import SNIFF_BYTES, sniff_image_mime
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import node_error_message, resolve_read_path
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    utf8_len,
)

FULL_READ_BYTES = 16 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192
# Images above this size cannot be sent inline (pi would resize them; pi-tui does not resize).
MAX_INLINE_IMAGE_BYTES = 4_500_000
_BLOCK = 1 << 20
LONG_LINE_MEASURE_BYTES = 16 * 1024 * 1024
"""How far a line too long to show is followed to tell its size; beyond, the notice says "more than"
(a 20 GB file of one line is not read to its end to say so)."""


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(default=None, description="Line number to start reading from (1-indexed)")
    limit: int | None = Field(default=None, description="Maximum number of lines to read")


class ReadTool(AgentTool[ReadParams]):
    name: ClassVar[str] = "read"
    label: ClassVar[str] = "read"
    description: ClassVar[str] = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent "
        f"as attachments. For text files, output is truncated to {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Use offset/limit for large files. When you "
        "need the full file, continue with offset until complete."
    )
    parameters: ClassVar[type[ToolParams]] = ReadParams
    constrained_sampling: ClassVar[dict[str, Any] | None] = STRICT_WHERE_SUPPORTED
    prompt_snippet: ClassVar[str | None] = "Read file contents"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ("Use read to examine files instead of cat or sed.",)

    def __init__(
        self, cwd: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.cwd = cwd
        self.max_lines = max_lines
        self.max_bytes = max_bytes

    async def execute(
        self,
        tool_call_id: str,
        params: ReadParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        path = resolve_read_path(params.path, self.cwd)
        try:
            result = await run_file_work(signal, lambda: self._read(path, params, signal))
        except FileWorkAborted:
            return ToolResult.error(OPERATION_ABORTED)
        if signal.aborted:
            return ToolResult.error(OPERATION_ABORTED)
        return result

    def _read(self, path: str, params: ReadParams, signal: AbortSignal) -> ToolResult:
        try:
            info = os.stat(path)
            if stat.S_ISDIR(info.st_mode):
                return ToolResult.error(
                    f"Cannot read {params.path}: it is a directory. Use ls to list its contents."
                )
            with open(open_regular(path), "rb") as file:
                head = file.read(max(SNIFF_BYTES, BINARY_SNIFF_BYTES))
                mime = sniff_image_mime(head)
                if mime is not None:
                    return _image(file, head, mime, info.st_size)
                if b"\x00" in head:
                    return ToolResult.error(
                        f"Cannot read {params.path}: binary file ({format_size(info.st_size)}). "
                        "Use bash to inspect it (e.g. file, xxd, strings)."
                    )
                file.seek(0)
                if info.st_size <= FULL_READ_BYTES:
                    text = file.read().decode("utf-8", "replace")
                    return self._text_result(text, params)
                return self._streamed_result(file, params, info.st_size, signal)
        except NotRegularFile as refusal:
            return ToolResult.error(f"Cannot read {params.path}: {refusal.reason}.")
        except OSError as error:
            return ToolResult.error(node_error_message(error, "open", path))

    def _text_result(self, text: str, params: ReadParams) -> ToolResult:
        lines = text.split("\n")
        # As pi 1.6 counts: a final newline ends the last line, it starts no empty one (a 6-line file
        # is 6 lines, not 7). The slices below still take the text as it is.
        total = len(lines) - (1 if text.endswith("\n") else 0)
        start = max(0, params.offset - 1) if params.offset else 0
        if start >= max(total, 1):
            return ToolResult.error(f"Offset {params.offset} is beyond end of file ({total} lines total)")
        end = len(lines) if params.limit is None else min(start + params.limit, len(lines))
        truncation = truncate_head(
            "\n".join(lines[start:end]), max_lines=self.max_lines, max_bytes=self.max_bytes
        )
        first = start + 1
        if truncation.first_line_exceeds_limit:
            size = format_size(utf8_len(lines[start]))
            return ToolResult.text(
                self._long_line_notice(first, size, params.path), details=_details(truncation)
            )
        if truncation.truncated:
            last = first + truncation.output_lines - 1
            limit_note = (
                "" if truncation.truncated_by == "lines" else f" ({format_size(self.max_bytes)} limit)"
            )
            notice = (
                f"[Showing lines {first}-{last} of {total}{limit_note}. Use offset={last + 1} to continue.]"
            )
            return ToolResult.text(f"{truncation.content}\n\n{notice}", details=_details(truncation))
        if params.limit is not None and end < total:
            notice = f"[{total - end} more lines in file. Use offset={end + 1} to continue.]"
            return ToolResult.text(f"{truncation.content}\n\n{notice}")
        return ToolResult.text(truncation.content)

    def _long_line_notice(self, line: int, size: str, path: str) -> str:
        return (
            f"[Line {line} is {size}, exceeds {format_size(self.max_bytes)} limit. "
            f"Use bash: sed -n '{line}p' {path} | head -c {self.max_bytes}]"
        )

    def _streamed_result(
        self, file: BinaryIO, params: ReadParams, size: int, signal: AbortSignal
    ) -> ToolResult:
        start = max(0, params.offset - 1) if params.offset else 0
        wanted = self.max_lines + 1 if params.limit is None else min(params.limit, self.max_lines + 1)
        scan = _LineScanner(start, wanted, self.max_bytes + 1)
        while not scan.done:
            if signal.aborted:
                return ToolResult.error(OPERATION_ABORTED)
            block = file.read(_BLOCK)
            if not block:
                scan.finish()
                break
            scan.feed(block)
        if start >= scan.lines_seen:
            return ToolResult.error(
                f"Offset {params.offset} is beyond end of file ({scan.lines_seen} lines total)"
            )
        text = "\n".join(line.decode("utf-8", "replace") for line in scan.selected)
        truncation = truncate_head(text, max_lines=self.max_lines, max_bytes=self.max_bytes)
        first = start + 1
        if truncation.first_line_exceeds_limit:
            measured = (
                format_size(scan.first_line_bytes)
                if scan.line_measured
                else f"more than {format_size(LONG_LINE_MEASURE_BYTES)}"
            )
            return ToolResult.text(
                self._long_line_notice(first, measured, params.path),
                details=_details(truncation),
            )
        last = first + truncation.output_lines - 1
        if truncation.truncated:
            limit_note = (
                "" if truncation.truncated_by == "lines" else f" ({format_size(self.max_bytes)} limit)"
            )
            notice = (
                f"[Showing lines {first}-{last} of a {format_size(size)} file{limit_note}. "
                f"Use offset={last + 1} to continue.]"
            )
            return ToolResult.text(f"{truncation.content}\n\n{notice}", details=_details(truncation))
        if not scan.reached_eof:
            notice = f"[More lines in file ({format_size(size)}). Use offset={last + 1} to continue.]"
            return ToolResult.text(f"{truncation.content}\n\n{notice}")
        return ToolResult.text(truncation.content)


@dataclass
class _LineScanner:
    """Keeps lines [start, start + wanted) of a byte stream, at most `max_bytes` bytes of them."""

    start: int
    wanted: int
    max_bytes: int
    lines_seen: int = 0  # lines begun so far (the current one included once it has started)
    kept_bytes: int = 0
    first_line_bytes: int = 0
    done: bool = False
    reached_eof: bool = False
    line_measured: bool = True
    """False when the first selected line was followed for `LONG_LINE_MEASURE_BYTES` without its end."""

    def __post_init__(self) -> None:
        self.selected: list[bytes] = []
        self._current = bytearray()
        self._index = 0
        self.lines_seen = 1

    def feed(self, block: bytes) -> None:
        position = 0
        while position <= len(block) and not self.done:
            newline = block.find(b"\n", position)
            piece = block[position:] if newline < 0 else block[position:newline]
            self._take(piece)
            if newline < 0 or self.done:
                return
            self._end_line()
            position = newline + 1

    def finish(self) -> None:
        self.reached_eof = True
        if self._index >= self.start and not self.done:
            self._end_line(final=True)
        self.done = True

    def _in_selection(self) -> bool:
        return self.start <= self._index < self.start + self.wanted

    def _take(self, piece: bytes) -> None:
        if self._in_selection():
            if self._index == self.start:
                self.first_line_bytes += len(piece)
                if self.first_line_bytes > LONG_LINE_MEASURE_BYTES:
                    self.line_measured = False
                    self.selected.append(bytes(self._current))
                    self.done = True
            room = self.max_bytes - self.kept_bytes - len(self._current)
            if room > 0:
                self._current += piece[:room]

    def _end_line(self, *, final: bool = False) -> None:
        if self._in_selection():
            self.selected.append(bytes(self._current))
            self.kept_bytes += len(self._current) + 1
            if self.kept_bytes > self.max_bytes or len(self.selected) >= self.wanted:
                self.done = True
        self._current.clear()
        if not final:
            self._index += 1
            self.lines_seen += 1


def _details(truncation: TruncationResult) -> dict[str, Any]:
    return {"truncation": truncation.to_json_obj()}


def _image(file: BinaryIO, head: bytes, mime: str, size: int) -> ToolResult:
    if size > MAX_INLINE_IMAGE_BYTES:
        return ToolResult.text("[Image omitted: could not be resized below the inline image size limit.]")
    data = head + file.read()
    return ToolResult(
        content=[
            TextContent(text=f"Read image file [{mime}]"),
            ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime),
        ]
    )
