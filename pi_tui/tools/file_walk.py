"""A directory walk that honours `.gitignore` and `.ignore` files (the pure-Python grep/find fallback).

Rules come from every such file in the walked tree and in the ancestors up to the enclosing git
repository's root; the deepest matching rule wins, negations included (`pathspec`'s gitignore
semantics). Hidden files are included, `.git` folders are not, symlinked folders are not followed.
Blocking: run it in a thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pathspec

IGNORE_FILES = (".gitignore", ".ignore")


@dataclass(frozen=True)
class WalkEntry:
    path: str  # absolute
    relative: str  # posix, relative to the walk root
    is_dir: bool


@dataclass(frozen=True)
class _Rules:
    base: str
    spec: pathspec.GitIgnoreSpec


def _load_rules(directory: str) -> _Rules | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as file:
                lines.extend(file.read().splitlines())
        except OSError:
            continue
    if not lines:
        return None
    return _Rules(directory, pathspec.GitIgnoreSpec.from_lines(lines))


def _ancestor_rules(root: str) -> list[_Rules]:
    """Rules of the folders above `root`, up to the git repository root (none outside a repository)."""
    chain: list[str] = []
    current = os.path.dirname(root)
    if os.path.isdir(os.path.join(root, ".git")):
        return []
    while True:
        chain.append(current)
        if os.path.isdir(os.path.join(current, ".git")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            return []
        current = parent
    rules = [_load_rules(directory) for directory in reversed(chain)]
    return [rule for rule in rules if rule is not None]


def is_ignored(path: str, is_dir: bool, rules: list[_Rules]) -> bool:
    verdict: bool | None = None
    for rule in rules:
        relative = os.path.relpath(path, rule.base).replace(os.sep, "/")
        if relative.startswith(".."):
            continue
        result = rule.spec.check_file(relative + "/" if is_dir else relative)
        if result.include is not None:
            verdict = result.include
    return verdict is True


def walk(root: str, *, should_stop: Callable[[], bool] = lambda: False) -> Iterator[WalkEntry]:
    """Every non-ignored entry under `root` (folders before their contents, names sorted)."""
    base_rules = _ancestor_rules(root)

    def visit(directory: str, rules: list[_Rules]) -> Iterator[WalkEntry]:
        own = _load_rules(directory)
        active = [*rules, own] if own is not None else rules
        try:
            with os.scandir(directory) as iterator:
                entries = sorted(iterator, key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            if should_stop():
                return
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name == ".git":
                continue
            if is_ignored(entry.path, is_dir, active):
                continue
            relative = os.path.relpath(entry.path, root).replace(os.sep, "/")
            yield WalkEntry(entry.path, relative, is_dir)
            if is_dir:
                yield from visit(entry.path, active)

    yield from visit(root, base_rules)
