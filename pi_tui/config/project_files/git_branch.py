"""The git branch of a working directory, read from the git dir's `HEAD` (worktrees and submodules
included), never by running git."""

from __future__ import annotations

from pathlib import Path

from pi_tui.config.project_files.git_root import git_dir

HEAD_REF_PREFIX = "ref: refs/heads/"
DETACHED_ID_LENGTH = 7


def git_branch(cwd: str | Path) -> str | None:
    """The checked-out branch, the short commit id when detached, or None outside a repository."""
    try:
        found = git_dir(Path(cwd).resolve())
        if found is None:
            return None
        head = (found / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if head.startswith(HEAD_REF_PREFIX):
        return head.removeprefix(HEAD_REF_PREFIX)
    return head[:DETACHED_ID_LENGTH] or None
