"""Problems found while reading a session file, reported as values (docs/reliability.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Diagnostic:
    """One warning about one file; `line_number` is 1-based, None when it concerns the whole file."""

    path: Path
    line_number: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line_number}" if self.line_number is not None else str(self.path)
        return f"{where}: {self.message}"


SHOWN_DIAGNOSTICS = 5
"""Where a file's problems are reported outside the start page, only the first few are listed."""


def diagnostic_lines(diagnostics: Sequence[Diagnostic], limit: int = SHOWN_DIAGNOSTICS) -> list[str]:
    """`<file>: line N: <problem>` for the first `limit`, then one line counting the rest."""
    lines = []
    for diagnostic in diagnostics[:limit]:
        where = f": line {diagnostic.line_number}" if diagnostic.line_number is not None else ""
        lines.append(f"{diagnostic.path.name}{where}: {diagnostic.message}")
    hidden = len(diagnostics) - limit
    if hidden > 0:
        lines.append(f"{diagnostics[limit].path.name}: and {hidden} more problem{'s' if hidden > 1 else ''}")
    return lines
