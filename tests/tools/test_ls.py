from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.ls import LsParams, LsTool


async def ls(root: Path, **kwargs: Any) -> ToolResult:
    return await LsTool(str(root)).execute("c", LsParams(**kwargs), AbortSignal())


async def test_sorted_case_insensitively_with_dirs_and_dotfiles(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "A dir").mkdir()
    (tmp_path / ".env").write_text("")
    (tmp_path / "Zeta").write_text("")
    os.symlink(tmp_path / "missing", tmp_path / "dangling")
    result = await ls(tmp_path)
    assert result.text_content == ".env\nA dir/\nb.txt\nZeta"


async def test_limit_empty_and_errors(tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / name).write_text("")
    limited = await ls(tmp_path, limit=2)
    assert limited.text_content == "a\nb\n\n[2 entries limit reached. Use limit=4 for more]"
    (tmp_path / "empty").mkdir()
    assert (await ls(tmp_path, path="empty")).text_content == "(empty directory)"
    assert (await ls(tmp_path, path="nope")).text_content == f"Path not found: {tmp_path / 'nope'}"
    assert (await ls(tmp_path, path="a")).text_content == f"Not a directory: {tmp_path / 'a'}"


async def test_byte_limit_notice(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"entry-{i:02d}").write_text("")
    result = await LsTool(str(tmp_path), max_bytes=60).execute("c", LsParams(), AbortSignal())
    assert (
        result.text_content
        == "entry-00\nentry-01\nentry-02\nentry-03\nentry-04\nentry-05\n\n[60B limit reached]"
    )
