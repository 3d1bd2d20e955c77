from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.grep import GrepParams, GrepTool


@pytest.fixture(autouse=True)
def no_ripgrep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pi_tui.tools.grep.shutil.which", lambda name: None)


async def grep(root: Path, **kwargs: Any) -> ToolResult:
    return await GrepTool(str(root)).execute("c", GrepParams(**kwargs), AbortSignal())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("import os\nTODO: fix\nprint('x')\n")
    (tmp_path / "src/üñí côde.txt").write_text("todo later\r\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build/out.py").write_text("TODO: generated\n")
    (tmp_path / ".hidden.py").write_text("TODO: hidden\n")
    (tmp_path / "blob.bin").write_bytes(b"TODO\x00\x01")
    (tmp_path / ".gitignore").write_text("build/\n")
    return tmp_path


async def test_matches_with_relative_paths_honouring_gitignore(tree: Path) -> None:
    result = await grep(tree, pattern="TODO")
    assert result.text_content == ".hidden.py:1: TODO: hidden\nsrc/app.py:2: TODO: fix"


async def test_ignore_case_literal_glob(tree: Path) -> None:
    result = await grep(tree, pattern="todo", ignoreCase=True, glob="*.txt")
    assert result.text_content == "src/üñí côde.txt:1: todo later"
    literal = await grep(tree, pattern="print('x')", literal=True)
    assert literal.text_content == "src/app.py:3: print('x')"


async def test_context_lines_and_single_file(tree: Path) -> None:
    result = await grep(tree, pattern="TODO", path="src/app.py", context=1)
    assert result.text_content == "app.py-1- import os\napp.py:2: TODO: fix\napp.py-3- print('x')"


async def test_limit_and_long_lines(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(5)) + "hit " + "z" * 600 + "\n")
    result = await grep(tmp_path, pattern="hit", limit=2)
    assert result.text_content == (
        "many.txt:1: hit 0\nmany.txt:2: hit 1\n\n"
        "[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 2}
    long = await grep(tmp_path, pattern="z{600}")
    assert long.text_content == (
        f"many.txt:6: hit {'z' * 496}... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )


async def test_no_match_missing_path_bad_regex(tree: Path) -> None:
    assert (await grep(tree, pattern="nothing-here")).text_content == "No matches found"
    missing = await grep(tree, pattern="x", path="nope")
    assert missing.is_error and missing.text_content == f"Path not found: {tree / 'nope'}"
    bad = await grep(tree, pattern="(")
    assert bad.is_error and bad.text_content.startswith("regex parse error")


async def test_byte_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("".join("m" * 400 + "\n" for _ in range(200)))
    result = await grep(tmp_path, pattern="m", limit=500)
    assert result.text_content.endswith("\n\n[50.0KB limit reached]")
    assert result.details["truncation"]["truncatedBy"] == "bytes"


async def test_large_files_are_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pi_tui.tools.grep.WHOLE_FILE_BYTES", 100)
    (tmp_path / "big.log").write_text("".join(f"row {i}\n" for i in range(100)) + "needle here\r\n")
    result = await grep(tmp_path, pattern="needle", context=2)
    assert result.text_content == "big.log:101: needle here"


async def test_anchored_patterns_match_any_line(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("x = 1\ndef main():\n    pass\n")
    assert (await grep(tmp_path, pattern="^def")).text_content == "f.py:2: def main():"
    assert (await grep(tmp_path, pattern=r"\Adef")).text_content == "f.py:2: def main():"
    assert (await grep(tmp_path, pattern="1$")).text_content == "f.py:1: x = 1"


async def test_glob_class_edge_cases_filter_instead_of_failing(tmp_path: Path) -> None:
    for name in ["[].txt", "[!].txt", "a.txt", "b.txt", "pkg/mod.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("hit\n")

    assert (await grep(tmp_path, pattern="hit", glob="[].txt")).text_content == "[].txt:1: hit"
    assert (await grep(tmp_path, pattern="hit", glob="[!].txt")).text_content == "[!].txt:1: hit"
    assert (await grep(tmp_path, pattern="hit", glob="[!a].txt")).text_content == "b.txt:1: hit"
    assert (await grep(tmp_path, pattern="hit", glob="!{a,b}.txt")).text_content == (
        "[!].txt:1: hit\n[].txt:1: hit\npkg/mod.py:1: hit"
    )
    assert (await grep(tmp_path, pattern="hit", glob="**/*.py")).text_content == "pkg/mod.py:1: hit"
    refused = await grep(tmp_path, pattern="hit", glob="{a,b}" * 10)
    assert refused.is_error and refused.text_content.startswith("glob pattern expands to more than 1000")
