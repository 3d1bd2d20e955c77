from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.find import FindParams, FindTool, effective_pattern


@pytest.fixture(autouse=True)
def no_fd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pi_tui.tools.find.shutil.which", lambda name: None)


async def find(root: Path, **kwargs: Any) -> ToolResult:
    return await FindTool(str(root)).execute("c", FindParams(**kwargs), AbortSignal())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in [
        "src/a.ts",
        "src/lib/b.spec.ts",
        "src/lib/c.ts",
        "node_modules/x/d.ts",
        "my docs/ü.ts",
        ".cfg/e.ts",
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / ".gitignore").write_text("node_modules\n")
    return tmp_path


def test_effective_pattern() -> None:
    assert effective_pattern("*.ts") == ("*.ts", False)
    assert effective_pattern("src/**/*.ts") == ("**/src/**/*.ts", True)
    assert effective_pattern("**/x") == ("**/x", True)


async def test_basename_glob_honours_gitignore_includes_hidden(tree: Path) -> None:
    result = await find(tree, pattern="*.ts")
    assert result.text_content.split("\n") == [
        ".cfg/e.ts",
        "my docs/ü.ts",
        "src/a.ts",
        "src/lib/b.spec.ts",
        "src/lib/c.ts",
    ]


async def test_path_glob_and_directories(tree: Path) -> None:
    assert (await find(tree, pattern="src/**/*.spec.ts")).text_content == "src/lib/b.spec.ts"
    assert (await find(tree, pattern="lib")).text_content == "src/lib/"


async def test_limit_notice_and_empty(tree: Path) -> None:
    result = await find(tree, pattern="*.ts", limit=2)
    assert result.text_content == (
        ".cfg/e.ts\nmy docs/ü.ts\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert (await find(tree, pattern="*.rs")).text_content == "No files found matching pattern"
    missing = await find(tree, pattern="*", path="nowhere")
    assert missing.is_error and missing.text_content == f"Path not found: {tree / 'nowhere'}"


async def test_byte_limit_notice(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"file-{i:02d}.txt").write_text("")
    result = await FindTool(str(tmp_path), max_bytes=100).execute(
        "c", FindParams(pattern="*.txt"), AbortSignal()
    )
    assert result.text_content.endswith("file-07.txt\n\n[100B limit reached]")
    assert result.details["truncation"]["maxBytes"] == 100


async def test_class_edge_cases_and_braces_match_like_fd(tmp_path: Path) -> None:
    for name in ["[].txt", "[!].txt", "a.txt", "b.txt", "c.md", "pkg/mod.py", "pkg/sub/deep.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")

    assert (await find(tmp_path, pattern="[].txt")).text_content == "[].txt"
    assert (await find(tmp_path, pattern="[!].txt")).text_content == "[!].txt"
    assert (await find(tmp_path, pattern="[!a].txt")).text_content == "b.txt"
    assert (await find(tmp_path, pattern="{a,b}.txt")).text_content == "a.txt\nb.txt"
    assert (await find(tmp_path, pattern="**/*.py")).text_content == "pkg/mod.py\npkg/sub/deep.py"


async def test_a_brace_explosion_is_a_one_line_error(tmp_path: Path) -> None:
    result = await find(tmp_path, pattern="{a,b}" * 10)

    assert result.is_error and result.text_content.startswith("glob pattern expands to more than 1000")
