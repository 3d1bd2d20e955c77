"""What went wrong (or is worth a warning) while loading resources: a value, never an exception."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

DiagnosticKind = Literal["warning", "error", "collision", "large"]


@dataclass(frozen=True)
class ResourceDiagnostic:
    """One finding about one file. `collision` names the winner; `size` is set for `large` files."""

    kind: DiagnosticKind
    message: str
    path: Path | None = None
    line: int | None = None
    winner: Path | None = None
    size: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path) + (f":{self.line}" if self.line is not None else "") + ": "
        return f"{where}{self.kind}: {self.message}"
