from __future__ import annotations

from pathlib import Path

from pi_tui.config.project_files.git_branch import git_branch


def test_branch_detached_worktree_and_none(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (repo / "src" / "deep").mkdir(parents=True)
    assert git_branch(repo / "src" / "deep") == "feature/x"

    (repo / ".git" / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    assert git_branch(repo) == "0123456"

    worktree_git = tmp_path / "main-git" / "worktrees" / "wt"
    worktree_git.mkdir(parents=True)
    (worktree_git / "HEAD").write_text("ref: refs/heads/wt-branch\n")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert git_branch(worktree) == "wt-branch"

    plain = tmp_path / "plain"
    plain.mkdir()
    assert git_branch(plain) is None
