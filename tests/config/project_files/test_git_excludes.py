"""Besides `.gitignore`, the file walk (find and grep without fd or ripgrep, `@` completion) honours
the other files git reads: the repository's `info/exclude` (a linked worktree's from the repository it
belongs to) and the user's excludes file, by default or as `core.excludesFile` names it. Each listing
is compared with `git ls-files` reading the same configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.config.project_files.file_walk import walk
from pi_tui.config.project_files.git_excludes import _config_value, _excludes_setting
from tests.support.git_repos import committed_repo, git, visible_to_git, write_files

FILES = {
    "app.py": "app\n",
    "notes.scratch": "the repository's info/exclude\n",
    "draft.bak": "the user's excludes file\n",
    "keep.bak": "re-included by .gitignore\n",
}


def walked_files(root: Path) -> set[str]:
    return {entry.relative for entry in walk(str(root)) if not entry.is_dir}


def exclude_in_repository(git_dir: Path, rules: str) -> None:
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "exclude").write_text(rules)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    project = committed_repo(tmp_path / "project", {".gitignore": "!keep.bak\n"})
    write_files(project, FILES)
    exclude_in_repository(project / ".git", "*.scratch\n")
    return project


def test_the_default_user_excludes_file_and_info_exclude(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg"
    write_files(config, {"git/ignore": "*.bak\n"})
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    expected = {".gitignore", "app.py", "keep.bak"}
    assert visible_to_git(repository, user_config=True) == expected
    assert walked_files(repository) == expected
    assert walked_files(repository / ".") == expected


def test_core_excludes_file_from_the_global_config_with_a_home_path(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_files(home, {"ignores/everywhere": "*.bak\n", "xdg/git/ignore": "app.py\n"})
    global_config = home / "global-config"
    global_config.write_text('[user]\n\tname = x\n[core]\n\texcludesFile = "~/ignores/everywhere" ; mine\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))  # not read: core.excludesFile is set
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    expected = {".gitignore", "app.py", "keep.bak"}
    assert visible_to_git(repository, user_config=True) == expected
    assert walked_files(repository) == expected


def test_a_linked_worktree_reads_the_info_exclude_of_its_repository(repository: Path) -> None:
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "--message", "files")
    tree = repository.parent / "feature"
    git(repository, "worktree", "add", "--quiet", "-b", "feature", str(tree))
    write_files(tree, {"more.scratch": "excluded here too\n"})
    assert (tree / ".git").is_file()
    expected = {".gitignore", "app.py", "draft.bak", "keep.bak"}  # notes.scratch was never committed
    assert visible_to_git(tree) == expected
    assert walked_files(tree) == expected


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("[core]\n\texcludesfile = /a\n", "/a"),
        ('[Core]\n  ExcludesFile = "/with space" # comment\n', "/with space"),
        ("[core] excludesFile = /same-line\n", "/same-line"),
        ('[remote "origin"]\n\texcludesFile = /not-core\n', None),
        ("[core]\n\texcludesFile = /first\n[core]\n\texcludesFile = /last\n", "/last"),
    ],
)
def test_reading_core_excludes_file(text: str, setting: str | None) -> None:
    assert _excludes_setting(text) == setting


def test_config_values_as_git_reads_them() -> None:
    assert _config_value(r' "a;b" ; c') == "a;b"
    assert _config_value(r" a\"b ") == 'a"b'
