"""The ignore rules of a project, as fd and ripgrep apply them (gitignore syntax, via `pathspec`).

Each folder's `.gitignore`, `.ignore` and `.fdignore` apply to the paths below that folder, written
relative to it. Deeper rules are checked after shallower ones, and in one folder `.ignore` and
`.fdignore` after `.gitignore`, so the last matching rule decides: a deeper `!pattern` re-includes.

`.gitignore` rules belong to one working tree: they stop at the root of a nested one (a submodule, a
linked worktree, a clone inside the project), as git's own do. At a working tree's root, the other files
git reads (`info/exclude`, the user's excludes file: see `git_excludes`) come first, so `.gitignore`
rules override them. `.ignore` and `.fdignore` are not git's and go on applying below. A walk starts
with the rules of every folder from the enclosing working tree's root down to where it starts (only
that folder's own outside a working tree).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pi_tui.config.project_files.git_excludes import exclude_files
from pi_tui.config.project_files.git_root import git_dir_of, git_root

GIT_IGNORE_FILES = (".gitignore",)
OTHER_IGNORE_FILES = (".ignore", ".fdignore")

if TYPE_CHECKING:
    import pathspec


@dataclass(frozen=True)
class _Layer:
    prefix: str
    """The folder the rules were read in, ending with a separator."""
    spec: pathspec.GitIgnoreSpec
    from_git: bool


def _prefix(folder: str) -> str:
    return folder if folder.endswith(os.sep) else folder + os.sep


def _read_layer(folder: str, files: list[str], from_git: bool) -> _Layer | None:
    """The rules of `files` (paths, read in order), for the paths below `folder`."""
    lines: list[str] = []
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                lines.extend(file.read().splitlines())
        except OSError:
            continue  # absent or unreadable: no rules
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        return None
    # Imported with the first rules read (a skills scan, a find), not with the chat's first frame.
    import pathspec

    return _Layer(_prefix(folder), pathspec.GitIgnoreSpec.from_lines(lines), from_git)


@dataclass(frozen=True)
class IgnoreRules:
    layers: tuple[_Layer, ...] = ()

    @classmethod
    def at(cls, folder: str | Path) -> IgnoreRules:
        """The rules in force in `folder`: its own and those of the folders above it, up to the
        root of the working tree holding it."""
        start = Path(os.path.abspath(folder))
        top = git_root(start)
        chain = [start]
        if top is not None:
            chain += [parent for parent in start.parents if parent.is_relative_to(top)]
        rules = cls()
        for directory in reversed(chain):
            rules = rules.entering(directory)
        return rules

    def entering(self, folder: str | Path) -> IgnoreRules:
        """These rules plus the ignore files found in `folder` (a nested working tree's root drops
        the `.gitignore` rules from above)."""
        directory = os.fspath(folder)
        layers = self.layers
        sources = [(GIT_IGNORE_FILES, True), (OTHER_IGNORE_FILES, False)]
        files = [[os.path.join(directory, name) for name in names] for names, _ in sources]
        git_dir = git_dir_of(directory)
        if git_dir is not None:
            layers = tuple(layer for layer in layers if not layer.from_git)
            files[0] = [*map(os.fspath, exclude_files(git_dir)), *files[0]]
        for paths, (_, from_git) in zip(files, sources, strict=True):
            layer = _read_layer(directory, paths, from_git)
            if layer is not None:
                layers = (*layers, layer)
        return self if layers is self.layers else IgnoreRules(layers)

    def ignores(self, path: str | Path, is_dir: bool) -> bool:
        text = os.fspath(path)
        verdict = False
        for layer in self.layers:
            if not text.startswith(layer.prefix):
                continue
            relative = text[len(layer.prefix) :].replace(os.sep, "/")
            result = layer.spec.check_file(relative + "/" if is_dir else relative)
            if result.include is not None:
                verdict = result.include
        return verdict
