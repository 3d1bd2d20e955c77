"""Where a git working tree starts, read from the file system (never by running git).

A working tree's root holds `.git`: a folder in a plain clone, or a file `gitdir: <path>` naming the
real git dir in a linked worktree or a submodule. The nearest such folder is the root, so inside a
submodule the superproject is never reached.
"""

from __future__ import annotations

import os
from pathlib import Path

GIT_MARKER = ".git"
GITDIR_PREFIX = "gitdir:"


def git_dir_of(folder: str | Path) -> Path | None:
    """The git dir of the working tree whose root is `folder`; None when `folder` is not one."""
    marker = os.path.join(folder, GIT_MARKER)
    if os.path.isdir(marker):
        return Path(marker)
    if not os.path.isfile(marker):
        return None
    try:
        with open(marker, encoding="utf-8", errors="replace") as file:
            text = file.readline().strip()
    except OSError:
        return None
    if not text.startswith(GITDIR_PREFIX):
        return None
    target = Path(text.removeprefix(GITDIR_PREFIX).strip())
    return target if target.is_absolute() else (Path(folder) / target).resolve()


def is_work_tree_root(folder: str | Path) -> bool:
    return git_dir_of(folder) is not None


def git_root(start: str | Path) -> Path | None:
    """The root of the working tree holding `start` (itself included), or None outside one."""
    path = Path(start)
    for folder in (path, *path.parents):
        if is_work_tree_root(folder):
            return folder
    return None


def git_dir(start: str | Path) -> Path | None:
    """The git dir of the working tree holding `start`, or None outside one."""
    root = git_root(start)
    return None if root is None else git_dir_of(root)
