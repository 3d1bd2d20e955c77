"""Project instructions the system prompt carries: AGENTS.md / CLAUDE.md files and SYSTEM / APPEND_SYSTEM.md.

Context files are read as pi reads them: at most one per directory, the first existing of
`CONTEXT_FILE_NAMES`. The global one (in `PI_TUI_HOME`) comes first, then one per directory from the
outermost ancestor of the cwd down to the cwd itself; a path already taken is skipped. Large files are
still included (the user put them there) but reported, so the inspector can warn about what they cost.

`SYSTEM.md` replaces the default prompt body and `APPEND_SYSTEM.md` is appended to it; for each, the
project's `.pi-tui/` copy wins over the global one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import project_config_dir
from pi_tui.context.resource_diagnostics import ResourceDiagnostic

CONTEXT_FILE_NAMES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
SYSTEM_FILE_NAME = "SYSTEM.md"
APPEND_SYSTEM_FILE_NAME = "APPEND_SYSTEM.md"
LARGE_CONTEXT_FILE_BYTES = 100_000
"""Above this a context file is reported: ~25k tokens of prefix on every request."""


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str
    size: int
    """Size on disk in bytes."""


@dataclass(frozen=True)
class PromptFile:
    """A SYSTEM.md or APPEND_SYSTEM.md that was found, and its text."""

    path: Path
    content: str


def read_text_file(path: Path, diagnostics: list[ResourceDiagnostic]) -> str | None:
    """The file's text (invalid UTF-8 replaced), or None with a diagnostic if it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        diagnostics.append(
            ResourceDiagnostic("warning", f"cannot read file: {error.strerror or error}", path)
        )
        return None


def _context_file_in(directory: Path) -> Path | None:
    try:
        names = set(os.listdir(directory))
    except OSError:
        return None
    # Listing (not `exists`) keeps `AGENTS.md` and `AGENTS.MD` apart on case-insensitive file systems.
    for name in CONTEXT_FILE_NAMES:
        if name in names and (directory / name).is_file():
            return directory / name
    return None


def _ancestors_outermost_first(cwd: Path, ceiling: Path | None) -> list[Path]:
    chain = [cwd]
    for parent in cwd.parents:
        if ceiling is not None and chain[-1] == ceiling:
            break
        chain.append(parent)
    return list(reversed(chain))


def discover_context_files(
    cwd: Path,
    global_dir: Path,
    diagnostics: list[ResourceDiagnostic],
    *,
    ceiling: Path | None = None,
) -> list[ContextFile]:
    """Global context file first, then outermost ancestor → cwd (`ceiling`: stop the walk there)."""
    candidates: list[Path] = []
    global_file = _context_file_in(global_dir)
    if global_file is not None:
        candidates.append(global_file)
    for directory in _ancestors_outermost_first(cwd, ceiling):
        found = _context_file_in(directory)
        if found is not None:
            candidates.append(found)
    files: list[ContextFile] = []
    seen: set[Path] = set()
    for path in candidates:
        key = path.resolve()
        if key in seen:
            continue
        seen.add(key)
        content = read_text_file(path, diagnostics)
        if content is None:
            continue
        size = path.stat().st_size
        if size > LARGE_CONTEXT_FILE_BYTES:
            message = f"large context file ({size} bytes) is sent with every request"
            diagnostics.append(ResourceDiagnostic("large", message, path, size=size))
        files.append(ContextFile(path=path, content=content, size=size))
    return files


def find_prompt_file(
    cwd: Path, global_dir: Path, name: str, diagnostics: list[ResourceDiagnostic]
) -> PromptFile | None:
    """`<cwd>/.pi-tui/<name>` if it exists, else `<global_dir>/<name>`, else None."""
    for path in (project_config_dir(cwd) / name, global_dir / name):
        if path.is_file():
            content = read_text_file(path, diagnostics)
            return None if content is None else PromptFile(path=path, content=content)
    return None
