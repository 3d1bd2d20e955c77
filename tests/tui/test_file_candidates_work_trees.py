"""In a git submodule and a linked worktree (where `.git` is a file) the grep and find fallbacks and
`@` completion list the same files: the superproject's `.gitignore` never hides the submodule's
files, and `.fdignore` is honoured by all three. Real repositories made by `git`."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.find import FindParams, FindTool
from pi_tui.tools.grep import GrepParams, GrepTool
from pi_tui.tui.file_candidates import find_files
from tests.support.git_repos import committed_repo, git, visible_to_git, write_files

LIBRARY_FILES = {".fdignore", ".gitignore", "data/table.dat", "notes/todo.md", "src/core.py"}
LIBRARY_FOLDERS = {"data/", "notes/", "src/"}


@pytest.fixture(autouse=True)
def no_fd_or_ripgrep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pi_tui.tools.find.shutil.which", lambda name: None)
    monkeypatch.setattr("pi_tui.tools.grep.shutil.which", lambda name: None)


def offered_by_completion(root: Path) -> set[str]:
    return {candidate.path for candidate in find_files(root, "", limit=10_000)}


async def found_by_find(root: Path) -> set[str]:
    result = await FindTool(str(root)).execute("c", FindParams(pattern="*"), AbortSignal())
    return set(result.text_content.split("\n"))


async def searched_by_grep(root: Path) -> set[str]:
    """The files grep looked in: every file has a line, and `.` matches it."""
    result = await GrepTool(str(root)).execute("c", GrepParams(pattern=".", limit=10_000), AbortSignal())
    return {line.split(":", 1)[0] for line in result.text_content.split("\n")}


@pytest.fixture
def superproject(tmp_path: Path) -> Path:
    library = committed_repo(
        tmp_path / "library",
        {
            ".gitignore": "*.tmp\n",
            ".fdignore": "secret.txt\n",
            "src/core.py": "core\n",
            "data/table.dat": "table\n",
        },
    )
    project = committed_repo(tmp_path / "project", {".gitignore": "*.dat\nnotes/\n", "app.py": "app\n"})
    git(project, "submodule", "add", "--quiet", str(library), "lib")
    git(project, "commit", "--quiet", "--message", "add lib")
    write_files(
        project,
        {
            "lib/scratch.tmp": "the submodule's .gitignore\n",
            "lib/secret.txt": "the submodule's .fdignore\n",
            "lib/notes/todo.md": "`notes/` is the superproject's rule\n",
            "stuff.dat": "the superproject's own rule\n",
        },
    )
    assert (project / "lib" / ".git").is_file()
    return project


async def test_in_a_submodule_the_superprojects_gitignore_hides_nothing(superproject: Path) -> None:
    library = superproject / "lib"
    assert visible_to_git(library) - {"secret.txt"} == LIBRARY_FILES  # git agrees, bar fd's own file
    assert await found_by_find(library) == LIBRARY_FILES | LIBRARY_FOLDERS
    assert await searched_by_grep(library) == LIBRARY_FILES
    assert offered_by_completion(library) == LIBRARY_FILES | LIBRARY_FOLDERS


async def test_from_the_superproject_its_gitignore_stops_at_the_submodule(superproject: Path) -> None:
    own_files = {".gitignore", ".gitmodules", "app.py"}
    below = {f"lib/{name}" for name in LIBRARY_FILES | LIBRARY_FOLDERS}
    assert await found_by_find(superproject) == own_files | {"lib/"} | below
    assert await searched_by_grep(superproject) == own_files | {f"lib/{name}" for name in LIBRARY_FILES}
    assert offered_by_completion(superproject) == own_files | {"lib/"} | below


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    project = committed_repo(tmp_path / "project", {".gitignore": ".worktrees/\n*.log\n", "app.py": "app\n"})
    git(project, "worktree", "add", "--quiet", "-b", "feature", ".worktrees/feature")
    tree = project / ".worktrees" / "feature"
    write_files(
        tree,
        {
            ".fdignore": "private/\n",
            "private/key.txt": "key\n",
            "debug.log": "log\n",
            "src/feature.py": "feature\n",
        },
    )
    assert (tree / ".git").is_file()
    return tree


async def test_in_a_linked_worktree_inside_an_ignored_folder_its_files_are_listed(worktree: Path) -> None:
    files = {".fdignore", ".gitignore", "app.py", "src/feature.py"}
    assert visible_to_git(worktree) - {"private/key.txt"} == files  # git agrees, bar fd's own rule
    assert await found_by_find(worktree) == files | {"src/"}
    assert await searched_by_grep(worktree) == files
    assert offered_by_completion(worktree) == files | {"src/"}
