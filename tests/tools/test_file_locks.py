from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pi_tui.tools import file_locks
from pi_tui.tools.file_locks import file_mutation_lock


async def test_same_file_through_a_symlink_is_serialised(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("")
    os.symlink(target, tmp_path / "link.txt")
    events: list[str] = []

    async def hold(path: Path, name: str) -> None:
        async with file_mutation_lock(str(path)):
            events.append(f"{name} in")
            await asyncio.sleep(0.05)
            events.append(f"{name} out")

    await asyncio.gather(hold(target, "a"), hold(tmp_path / "link.txt", "b"))
    assert events in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
    assert file_locks._locks == {}


async def test_different_files_run_concurrently(tmp_path: Path) -> None:
    events: list[str] = []

    async def hold(name: str) -> None:
        async with file_mutation_lock(str(tmp_path / name)):
            events.append(f"{name} in")
            await asyncio.sleep(0.05)
            events.append(f"{name} out")

    await asyncio.gather(hold("a"), hold("b"))
    assert sorted(events[:2]) == ["a in", "b in"]  # both inside before either leaves, in any order
