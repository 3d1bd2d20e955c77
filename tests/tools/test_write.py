from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.edit_diff import MAX_STORED_DIFF_LINES
from pi_tui.tools.write import MAX_DIFF_FILE_BYTES, WriteParams, WriteTool, utf16_length


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


# --- the change as a diff, in the shape of pi's edit details ------------------------------------------

PI_DIFF_LINE = re.compile(r"^[+\- ] *\d* .*$")
"""pi's display diff line (`+<n> text`, `-<n> text`, ` <n> text`, `    ...`), as its renderer parses it."""


def pi_edit_details(pi_fixtures: Path) -> dict[str, Any]:
    for line in (pi_fixtures / "pi-sessions" / "b-tools.jsonl").read_text().splitlines():
        message = json.loads(line).get("message", {})
        if message.get("toolName") == "edit" and not message.get("isError"):
            details: dict[str, Any] = message["details"]
            return details
    raise AssertionError("the fixture has a successful edit")


async def write(tmp_path: Path, path: str, content: str) -> ToolResult:
    return await WriteTool(str(tmp_path)).execute("c", WriteParams(path=path, content=content), AbortSignal())


async def test_a_new_file_is_all_added_in_the_shape_of_pis_edit_details(
    tmp_path: Path, pi_fixtures: Path
) -> None:
    result = await write(tmp_path, "src/greet.py", "def greet(name):\n    return name\n")
    assert result.details == {"diff": "+1 def greet(name):\n+2     return name", "firstChangedLine": 1}
    pi_details = pi_edit_details(pi_fixtures)
    assert set(result.details) == set(pi_details)
    assert all(PI_DIFF_LINE.match(line) for line in pi_details["diff"].split("\n"))


async def test_an_overwrite_is_diffed_against_the_previous_content(tmp_path: Path) -> None:
    old = "".join(f"line {n}\n" for n in range(1, 21))
    (tmp_path / "f.txt").write_text(old.replace("\n", "\r\n"))  # line ends are not a change
    result = await write(tmp_path, "f.txt", old.replace("line 12\n", "line twelve\n"))
    diff = result.details["diff"].split("\n")
    assert result.details["firstChangedLine"] == 12
    assert diff == [
        "    ...", "  8 line 8", "  9 line 9", " 10 line 10", " 11 line 11", "-12 line 12", "+12 line twelve",
        " 13 line 13", " 14 line 14", " 15 line 15", " 16 line 16", "    ...",
    ]  # fmt: skip
    assert all(PI_DIFF_LINE.match(line) for line in diff)


async def test_the_same_content_is_an_empty_diff(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("same\n")
    assert (await write(tmp_path, "f.txt", "same\n")).details == {"diff": ""}


async def test_a_file_too_big_to_diff_gets_no_diff(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * (MAX_DIFF_FILE_BYTES + 1))
    result = await write(tmp_path, "big.txt", "small\n")
    assert result.details is None and (tmp_path / "big.txt").read_text() == "small\n"


async def test_a_long_diff_is_kept_to_its_first_lines_and_says_how_many_more(tmp_path: Path) -> None:
    content = "".join(f"{n}\n" for n in range(MAX_STORED_DIFF_LINES + 500))
    lines = (await write(tmp_path, "n.txt", content)).details["diff"].split("\n")
    assert len(lines) == MAX_STORED_DIFF_LINES + 1
    assert lines[-2] == f"+{MAX_STORED_DIFF_LINES} {MAX_STORED_DIFF_LINES - 1}"
    assert lines[-1].split() == ["...", "500", "more", "diff", "lines", "not", "kept"]
