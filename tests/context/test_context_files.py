"""Context files (global first, then outermost ancestor → cwd) and SYSTEM.md / APPEND_SYSTEM.md lookup."""

from __future__ import annotations

from pathlib import Path

from pi_tui.context.context_files import (
    LARGE_CONTEXT_FILE_BYTES,
    discover_context_files,
    find_prompt_file,
)
from pi_tui.context.resource_diagnostics import ResourceDiagnostic


def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    root = tmp_path / "work"
    cwd = root / "repo" / "pkg"
    cwd.mkdir(parents=True)
    home.mkdir()
    return home, root, cwd


def test_order_is_global_then_outermost_to_cwd(tmp_path: Path) -> None:
    home, root, cwd = _tree(tmp_path)
    (home / "AGENTS.md").write_text("global")
    (root / "CLAUDE.md").write_text("outer")
    (root / "repo" / "AGENTS.md").write_text("repo")
    (cwd / "AGENTS.md").write_text("cwd")
    diagnostics: list[ResourceDiagnostic] = []

    files = discover_context_files(cwd, home, diagnostics, ceiling=root)

    assert [file.content for file in files] == ["global", "outer", "repo", "cwd"]
    assert files[1].path == root / "CLAUDE.md"
    assert diagnostics == []


def test_one_file_per_directory_in_preference_order(tmp_path: Path) -> None:
    home, _, cwd = _tree(tmp_path)
    (cwd / "CLAUDE.md").write_text("claude")
    (cwd / "AGENTS.MD").write_text("agents upper")

    files = discover_context_files(cwd, home, [], ceiling=cwd)

    assert [file.path.name for file in files] == ["AGENTS.MD"]


def test_global_dir_inside_the_walk_is_not_repeated(tmp_path: Path) -> None:
    _, root, cwd = _tree(tmp_path)
    (root / "AGENTS.md").write_text("shared")

    files = discover_context_files(cwd, root, [], ceiling=root)

    assert [file.path for file in files] == [root / "AGENTS.md"]


def test_walk_reaches_the_filesystem_root_without_a_ceiling(tmp_path: Path) -> None:
    home, _, cwd = _tree(tmp_path)
    (tmp_path / "AGENTS.md").write_text("far up")

    files = discover_context_files(cwd, home, [])

    assert tmp_path / "AGENTS.md" in [file.path for file in files]


def test_large_file_is_included_and_reported(tmp_path: Path) -> None:
    home, _, cwd = _tree(tmp_path)
    big = "x" * (5 * 1024 * 1024)
    (cwd / "AGENTS.md").write_text(big)
    diagnostics: list[ResourceDiagnostic] = []

    files = discover_context_files(cwd, home, diagnostics, ceiling=cwd)

    assert len(files[0].content) == len(big)
    [diagnostic] = diagnostics
    assert diagnostic.kind == "large"
    assert diagnostic.size == 5 * 1024 * 1024 > LARGE_CONTEXT_FILE_BYTES
    assert str(5 * 1024 * 1024) in diagnostic.message


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    home, _, cwd = _tree(tmp_path)
    (cwd / "AGENTS.md").write_bytes(b"ok \xff\xfe end")

    [file] = discover_context_files(cwd, home, [], ceiling=cwd)

    assert file.content == "ok \ufffd\ufffd end"


def test_project_prompt_file_wins_over_global(tmp_path: Path) -> None:
    home, _, cwd = _tree(tmp_path)
    (home / "SYSTEM.md").write_text("global system")
    diagnostics: list[ResourceDiagnostic] = []

    assert find_prompt_file(cwd, home, "SYSTEM.md", diagnostics).content == "global system"  # type: ignore[union-attr]

    (cwd / ".pi-tui").mkdir()
    (cwd / ".pi-tui" / "SYSTEM.md").write_text("project system")
    found = find_prompt_file(cwd, home, "SYSTEM.md", diagnostics)

    assert found is not None and found.content == "project system"
    assert find_prompt_file(cwd, home, "APPEND_SYSTEM.md", diagnostics) is None
