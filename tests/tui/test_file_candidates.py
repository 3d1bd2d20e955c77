"""`@path` candidates: ranking, ignore rules, the walk budget and cancellation, on real folders."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pi_tui.tui.completion_tokens import ResourceCompleter
from pi_tui.tui.file_candidates import (
    FileCandidate,
    FileIndex,
    find_files,
    list_outside,
    match_rank,
    names_outside,
    rank,
)


def make_tree(root: Path, files: list[str]) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return root


def paths(found: list[FileCandidate]) -> list[str]:
    return [candidate.path for candidate in found]


def test_rank_orders_prefix_then_name_then_segment_then_substring_then_fuzzy() -> None:
    assert match_rank("src/ma", "src/main.py") == 0
    assert match_rank("main", "src/main.py") == 1
    assert match_rank("src", "lib/src/x.py") == 2
    assert match_rank("ain", "src/main.py") == 3
    assert match_rank("smp", "src/main.py") == 4
    assert match_rank("zzz", "src/main.py") is None
    assert match_rank("README", "docs/readme.md") == 1  # any case

    candidates = [FileCandidate(path, False) for path in ["a/b/main.py", "main.py", "domain.py", "m/a/i/n"]]
    assert paths(rank("main", candidates)) == ["main.py", "a/b/main.py", "domain.py", "m/a/i/n"]
    assert len(rank("", [FileCandidate(f"f{i}", False) for i in range(80)], limit=50)) == 50


def test_finds_files_and_folders_honouring_gitignore(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path, ["src/app.py", "src/widgets/popup.py", "build/app.js", "notes.md", ".git/config"]
    )
    (root / ".gitignore").write_text("build/\n")

    assert paths(find_files(root, "app")) == ["src/app.py"]
    # Shallow first, then shorter: the likely targets of an empty `@`.
    assert paths(find_files(root, "")) == [
        "src/",
        "notes.md",
        ".gitignore",
        "src/app.py",
        "src/widgets/",
        "src/widgets/popup.py",
    ]
    assert "src/widgets/popup.py" in paths(find_files(root, "pop"))
    folders = [candidate for candidate in find_files(root, "wid") if candidate.is_dir]
    assert paths(folders) == ["src/widgets/"]


def test_a_named_folder_lists_its_contents_not_itself(tmp_path: Path) -> None:
    root = make_tree(tmp_path, ["src/a.py", "src/b.py", "srcx.py"])
    assert paths(find_files(root, "src/")) == ["src/a.py", "src/b.py"]


def test_ignore_rules_of_the_enclosing_repository_apply_below_it(tmp_path: Path) -> None:
    make_tree(tmp_path, ["pkg/keep.py", "pkg/skip.log"])
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.log\n")
    assert paths(find_files(tmp_path / "pkg", "")) == ["keep.py"]


def test_the_budget_bounds_the_walk_and_the_named_folder_is_walked_first(tmp_path: Path) -> None:
    root = make_tree(tmp_path, [f"many/f{i:03}.txt" for i in range(300)] + ["deep/er/target.py"])
    # Breadth-first: the budget runs out inside `many/` before `deep/er/` is reached ...
    assert find_files(root, "target", budget=100) == []
    # ... unless the query names the folder, which is then walked before the rest.
    assert paths(find_files(root, "deep/er/tar", budget=100)) == ["deep/er/target.py"]
    assert paths(find_files(root, "target")) == ["deep/er/target.py"]


def test_a_cancelled_search_stops_walking(tmp_path: Path) -> None:
    root = make_tree(tmp_path, ["a/one.py", "b/two.py"])
    assert find_files(root, "", should_stop=lambda: True) == []


def test_the_index_reuses_a_walk_while_fresh_and_never_keeps_a_cancelled_one(tmp_path: Path) -> None:
    root = make_tree(tmp_path, ["src/a.py"])
    now = [0.0]
    index = FileIndex(root, max_age=10.0, clock=lambda: now[0])
    assert index.find("", should_stop=lambda: True) == []  # cancelled: nothing kept ...
    (root / "b.py").write_text("x\n")
    assert paths(index.find("")) == ["b.py", "src/", "src/a.py"]  # ... so this one walks

    (root / "c.py").write_text("x\n")
    assert paths(index.find("py")) == ["b.py", "src/a.py"]  # typing on: the same listing, re-ranked
    now[0] = 11.0
    assert paths(index.find("py")) == ["b.py", "c.py", "src/a.py"]  # stale: walked again
    assert paths(index.find("src/")) == ["src/a.py"]  # another named folder: its own walk


def test_absolute_home_and_parent_paths_list_one_folder_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path / "home", ["notes/todo.md", "notes/ideas.md", ".secrets", "Notebook.txt"])
    make_tree(tmp_path / "work", ["project/src/app.py", "sibling/readme.md"])
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "work" / "project"
    assert names_outside("~/no") and names_outside("/etc") and names_outside("../s")
    assert not names_outside("src/app") and not names_outside(".hidden")

    assert paths(list_outside(project, "~/no")) == ["~/notes/", "~/Notebook.txt"]
    assert paths(list_outside(project, "~")) == ["~/notes/", "~/Notebook.txt"]
    assert paths(list_outside(project, "~/.s")) == ["~/.secrets"]  # hidden only when asked for
    assert paths(list_outside(project, "~/notes/")) == ["~/notes/ideas.md", "~/notes/todo.md"]
    home = str(tmp_path / "home")
    assert paths(list_outside(project, f"{home}/notes/to")) == [f"{home}/notes/todo.md"]
    assert paths(list_outside(project, "../s")) == ["../sibling/"]
    assert list_outside(project, "/no/such/folder/x") == []


def test_the_completer_offers_outside_paths_with_folders_kept_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path / "home", ["notes/todo.md", "my notes.md"])
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    resources = SimpleNamespace(cwd=str(tmp_path))
    completer = ResourceCompleter(lambda: resources)  # type: ignore[arg-type, return-value]
    items = completer.files("~/", lambda: False)
    assert [(item.value, item.keep_open) for item in items] == [
        ("@~/notes/", True),
        ('@"~/my notes.md"', False),
    ]
