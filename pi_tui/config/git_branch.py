"""The git branch of a working directory, read from `.git/HEAD` (worktrees included), never by running git."""

from __future__ import annotations

from pathlib import Path

HEAD_REF_PREFIX = "ref: refs/heads/"
DETACHED_ID_LENGTH = 7


def _git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if candidate.is_dir():
            return candidate
        if candidate.is_file():
            # A worktree or submodule: `.git` is a file naming the real git dir.
            text = candidate.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text.removeprefix("gitdir:").strip())
                return target if target.is_absolute() else (folder / target).resolve()
    return None


def git_branch(cwd: str | Path) -> str | None:
    """The checked-out branch, the short commit id when detached, or None outside a repository."""
    try:
        git_dir = _git_dir(Path(cwd).resolve())
        if git_dir is None:
            return None
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if head.startswith(HEAD_REF_PREFIX):
        return head.removeprefix(HEAD_REF_PREFIX)
    return head[:DETACHED_ID_LENGTH] or None
