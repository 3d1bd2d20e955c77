"""Problems found while reading a session file, reported as values (R6.2, R14.3)."""

from __future__ import annotations

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
