from __future__ import annotations

import base64
from pathlib import Path

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import ImageContent
from pi_tui.tools import read as read_module
from pi_tui.tools.read import ReadParams, ReadTool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 20


async def read(tmp_path: Path, path: str, **kwargs: int) -> ToolResult:
    return await ReadTool(str(tmp_path)).execute("c", ReadParams(path=path, **kwargs), AbortSignal())


async def test_plain_text_without_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    result = await read(tmp_path, "a.txt")
    assert result.text_content == "one\ntwo\n" and not result.is_error and result.details is None


async def test_path_with_spaces_unicode_at_prefix_and_nbsp(tmp_path: Path) -> None:
    (tmp_path / "my notes ü.txt").write_text("hi")
    assert (await read(tmp_path, "@my notes ü.txt")).text_content == "hi"
    assert (await read(tmp_path, "my\u00a0notes ü.txt")).text_content == "hi"
    assert (await read(tmp_path, str(tmp_path / "my notes ü.txt"))).text_content == "hi"


async def test_offset_and_limit_with_continuation(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("\n".join(f"l{i}" for i in range(1, 11)))
    result = await read(tmp_path, "f", offset=3, limit=2)
    assert result.text_content == "l3\nl4\n\n[6 more lines in file. Use offset=5 to continue.]"
    assert (await read(tmp_path, "f", offset=9)).text_content == "l9\nl10"


async def test_offset_beyond_end(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a\nb")
    result = await read(tmp_path, "f", offset=5)
    assert result.is_error and result.text_content == "Offset 5 is beyond end of file (2 lines total)"


async def test_truncated_by_lines(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("\n".join(str(i) for i in range(1, 3001)))
    result = await read(tmp_path, "f")
    assert result.text_content.endswith(
        "2000\n\n[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]"
    )
    assert result.details["truncation"]["truncatedBy"] == "lines"


async def test_truncated_by_bytes(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("\n".join("x" * 1000 for _ in range(100)))
    result = await read(tmp_path, "f", offset=11)
    assert result.text_content.endswith(
        "\n\n[Showing lines 11-61 of 100 (50.0KB limit). Use offset=62 to continue.]"
    )


async def test_first_line_too_long(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("short\n" + "y" * 60000)
    result = await read(tmp_path, "f", offset=2)
    assert result.text_content == (
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' f | head -c 51200]"
    )
    assert result.details["truncation"]["firstLineExceedsLimit"] is True


async def test_image_is_sniffed_by_content(tmp_path: Path) -> None:
    (tmp_path / "picture.dat").write_bytes(PNG)
    result = await read(tmp_path, "picture.dat")
    assert result.text_content == "Read image file [image/png]"
    image = result.content[1]
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0", "image/jpeg"),
        (b"GIF89a", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
async def test_other_image_formats(tmp_path: Path, head: bytes, mime: str) -> None:
    (tmp_path / "img").write_bytes(head + b"\x00" * 32)
    assert (await read(tmp_path, "img")).text_content == f"Read image file [{mime}]"


async def test_missing_file_and_directory_and_binary(tmp_path: Path) -> None:
    missing = await read(tmp_path, "nope.txt")
    assert missing.is_error
    assert missing.text_content == f"ENOENT: no such file or directory, open '{tmp_path / 'nope.txt'}'"
    (tmp_path / "d").mkdir()
    directory = await read(tmp_path, "d")
    assert directory.is_error and "is a directory" in directory.text_content
    (tmp_path / "b.bin").write_bytes(b"abc\x00def" * 10)
    binary = await read(tmp_path, "b.bin")
    assert binary.is_error and binary.text_content.startswith("Cannot read b.bin: binary file (70B).")


async def test_aborted(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await ReadTool(str(tmp_path)).execute("c", ReadParams(path="x"), signal)
    assert result.is_error and result.text_content == "Operation aborted"


async def test_large_file_is_streamed_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_module, "FULL_READ_BYTES", 1024)
    big = tmp_path / "big.log"
    with big.open("wb") as file:
        file.truncate(2 * 1024**3)  # a sparse 2 GB file of NUL bytes after a text head
        file.seek(0)
        file.write(b"".join(b"line %d\n" % i for i in range(1, 5000)))
    result = await read(tmp_path, "big.log")
    assert result.text_content.endswith(
        "line 2000\n\n[Showing lines 1-2000 of a 2048.0MB file. Use offset=2001 to continue.]"
    )
    limited = await read(tmp_path, "big.log", offset=10, limit=2)
    assert (
        limited.text_content
        == "line 10\nline 11\n\n[More lines in file (2048.0MB). Use offset=12 to continue.]"
    )
