from __future__ import annotations

from pathlib import Path

from pi_tui.config.project_files.file_walk import walk


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not name.endswith("/"):
            path.write_text("x")


def listing(root: Path) -> list[str]:
    return [entry.relative + ("/" if entry.is_dir else "") for entry in walk(str(root))]


def test_nested_gitignore_negation_and_hidden(tmp_path: Path) -> None:
    make(tmp_path, "a.log", "keep.log", "src/b.py", "src/gen/c.py", "src/.env", ".git/HEAD", "sub/x.tmp")
    (tmp_path / ".gitignore").write_text("*.log\n!keep.log\n")
    (tmp_path / "src/.gitignore").write_text("gen/\n")
    (tmp_path / "sub/.ignore").write_text("*.tmp\n")
    assert listing(tmp_path) == [
        ".gitignore", "keep.log", "src/", "src/.env", "src/.gitignore", "src/b.py", "sub/", "sub/.ignore",
    ]  # fmt: skip


def test_ancestor_rules_up_to_the_repository_root(tmp_path: Path) -> None:
    make(tmp_path, ".git/HEAD", "pkg/lib/a.py", "pkg/lib/cache.bin", "pkg/lib/b.py")
    (tmp_path / ".gitignore").write_text("*.bin\n/pkg/lib/b.py\n")
    assert listing(tmp_path / "pkg/lib") == ["a.py"]


def test_no_rules_from_outside_a_repository(tmp_path: Path) -> None:
    make(tmp_path, "outer/inner/a.bin")
    (tmp_path / "outer/.gitignore").write_text("*.bin\n")
    assert listing(tmp_path / "outer/inner") == ["a.bin"]


def test_fdignore_is_honoured_like_ignore(tmp_path: Path) -> None:
    make(tmp_path, "keep.py", "drafts/a.md", "secret.txt")
    (tmp_path / ".fdignore").write_text("drafts/\nsecret.txt\n")
    assert listing(tmp_path) == [".fdignore", "keep.py"]


def test_gitignore_rules_stop_at_a_nested_working_tree_and_the_others_go_on(tmp_path: Path) -> None:
    make(tmp_path, ".git/HEAD", "vendor/lib/a.dat", "vendor/lib/b.tmp", "vendor/lib/c.py", "own.dat")
    (tmp_path / ".gitignore").write_text("*.dat\n")
    (tmp_path / ".ignore").write_text("*.tmp\n")
    (tmp_path / "vendor/lib/.git").write_text("gitdir: ../../.git/modules/lib\n")  # a submodule
    assert listing(tmp_path) == [
        ".gitignore", ".ignore", "vendor/", "vendor/lib/", "vendor/lib/a.dat", "vendor/lib/c.py",
    ]  # fmt: skip
