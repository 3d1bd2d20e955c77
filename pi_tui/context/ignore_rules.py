"""`.gitignore`-style rules collected while walking down a folder (skills discovery honours them, as pi).

Each folder's `.gitignore`, `.ignore` and `.fdignore` apply to paths below that folder, written relative to
it; deeper rules are checked after shallower ones, so a deeper `!pattern` can re-include a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pathspec

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


@dataclass(frozen=True)
class IgnoreRules:
    layers: tuple[tuple[Path, pathspec.GitIgnoreSpec], ...] = ()

    def entering(self, directory: Path) -> IgnoreRules:
        """These rules plus the ignore files found in `directory` (unreadable files are ignored)."""
        lines: list[str] = []
        for name in IGNORE_FILE_NAMES:
            try:
                lines.extend((directory / name).read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                continue
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            return self
        return IgnoreRules((*self.layers, (directory, pathspec.GitIgnoreSpec.from_lines(lines))))

    def ignores(self, path: Path, is_dir: bool) -> bool:
        verdict = False
        for base, spec in self.layers:
            try:
                relative = path.relative_to(base).as_posix()
            except ValueError:
                continue
            result = spec.check_file(relative + ("/" if is_dir else ""))
            if result.include is not None:
                verdict = result.include
        return verdict
