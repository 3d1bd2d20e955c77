from __future__ import annotations

from pathlib import Path

from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.write import WriteParams, WriteTool, utf16_length


async def test_creates_parents_and_reports_utf16_length(tmp_path: Path) -> None:
    content = "héllo 😀\n"
    result = await WriteTool(str(tmp_path)).execute(
        "c", WriteParams(path="deep/dir/ü file.txt", content=content), AbortSignal()
    )
    assert result.text_content == "Successfully wrote 9 bytes to deep/dir/ü file.txt"
    assert (tmp_path / "deep/dir/ü file.txt").read_text() == content


def test_utf16_length() -> None:
    assert utf16_length("abc") == 3 and utf16_length("😀") == 2 and utf16_length("é") == 1


async def test_overwrites(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("old content")
    await WriteTool(str(tmp_path)).execute("c", WriteParams(path="f", content="new"), AbortSignal())
    assert (tmp_path / "f").read_text() == "new"


async def test_error_when_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = await WriteTool(str(tmp_path)).execute(
        "c", WriteParams(path="file/child", content="y"), AbortSignal()
    )
    assert result.is_error
    assert "EEXIST" in result.text_content or "ENOTDIR" in result.text_content
