"""Walks of a project's files that honour its ignore rules (`ignore_rules`): depth-first for the
grep/find fallbacks, breadth-first within a budget for `@` completion. Both list the same entries.

Hidden files are listed; git's `.git` (a folder, or the file of a worktree or submodule) is not;
symlinked folders are listed but not followed. Entries of a folder come in name order. Blocking:
run them in a thread.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from pi_tui.config.project_files.git_root import GIT_MARKER
from pi_tui.config.project_files.ignore_rules import IgnoreRules


@dataclass(frozen=True)
class WalkEntry:
    path: str
    """Absolute, below the walk's root as given (normalised)."""
    relative: str
    """Posix, relative to the walk's root."""
    is_dir: bool


def _sorted_entries(directory: str, limit: int | None = None) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as iterator:
            # A folder of a million files costs no more than `limit` (an arbitrary part of it).
            return sorted(islice(iterator, limit), key=lambda entry: entry.name)
    except OSError:
        return []


def _listed(entry: os.DirEntry[str], rules: IgnoreRules) -> bool | None:
    """None when the walk leaves `entry` out, else whether it is a folder to walk into."""
    if entry.name == GIT_MARKER:
        return None
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        return None
    return None if rules.ignores(entry.path, is_dir) else is_dir


def _relative_to(root: str) -> Callable[[str], str]:
    prefix = root if root.endswith(os.sep) else root + os.sep
    return lambda path: path[len(prefix) :].replace(os.sep, "/")


def walk(root: str | Path, *, should_stop: Callable[[], bool] = lambda: False) -> Iterator[WalkEntry]:
    """Every listed entry under `root`, each folder followed by its contents."""
    top = os.path.abspath(root)
    relative = _relative_to(top)

    def visit(directory: str, rules: IgnoreRules) -> Iterator[WalkEntry]:
        for entry in _sorted_entries(directory):
            if should_stop():
                return
            is_dir = _listed(entry, rules)
            if is_dir is None:
                continue
            yield WalkEntry(entry.path, relative(entry.path), is_dir)
            if is_dir:
                yield from visit(entry.path, rules.entering(entry.path))

    yield from visit(top, IgnoreRules.at(top))


def walk_breadth_first(
    root: str | Path,
    *,
    budget: int,
    first: str | Path | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> list[WalkEntry]:
    """Listed entries under `root`, shallow before deep, the subtree of `first` (a folder below
    `root`) before the rest. At most `budget` directory entries are looked at, ignored ones included,
    so a huge tree costs a bounded time; shallow entries, the likely ones, come within it."""
    top = os.path.abspath(root)
    relative = _relative_to(top)
    base = IgnoreRules.at(top)
    queue: deque[tuple[str, IgnoreRules]] = deque()
    start = os.path.abspath(first) if first is not None else None
    if start is not None and start != top:
        rules, current = base, top
        for part in relative(start).split("/"):
            current = os.path.join(current, part)
            rules = rules.entering(current)
        queue.append((start, rules))
    queue.append((top, base))
    seen_first = False
    found: list[WalkEntry] = []
    looked = 0
    while queue and looked < budget and not should_stop():
        directory, rules = queue.popleft()
        if directory == start and seen_first:
            continue
        seen_first = seen_first or directory == start
        for entry in _sorted_entries(directory, budget - looked):
            looked += 1
            is_dir = _listed(entry, rules)
            if is_dir is None:
                continue
            found.append(WalkEntry(entry.path, relative(entry.path), is_dir))
            if is_dir:
                queue.append((entry.path, rules.entering(entry.path)))
    return found
