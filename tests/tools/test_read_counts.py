"""A file's lines as pi 1.6 counts them: the final newline ends the last line, it starts no empty one."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.read import ReadParams, ReadTool


async def read(tmp_path: Path, **params: object) -> str:
    tool = ReadTool(str(tmp_path))
    result = await tool.execute("r", ReadParams(path="six.txt", **params), AbortSignal())  # type: ignore[arg-type]
    return result.text_content


async def test_a_six_line_file_is_six_lines(tmp_path: Path) -> None:
    (tmp_path / "six.txt").write_text("".join(f"line {n}\n" for n in range(1, 7)))
    assert await read(tmp_path) == "".join(f"line {n}\n" for n in range(1, 7))  # the text as it is
    assert (await read(tmp_path, limit=2)).endswith("[4 more lines in file. Use offset=3 to continue.]")
    assert await read(tmp_path, offset=7) == "Offset 7 is beyond end of file (6 lines total)"
    assert (await read(tmp_path, offset=6)).startswith("line 6")
