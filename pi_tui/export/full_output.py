"""A tool call's full (spilled) output, inlined into the export on request, up to a size cap.

Only real spill files are read: files in the session's own spill folder, or pi's `pi-bash-<hex>.log`
files in the temp folder. A path in a session file is data, and an export must not become a way to
copy an arbitrary file (say, `models.json`) into a page that gets shared.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_tui.tools.output_pipeline import result_spill_path
from pi_tui.tools.stream_sanitizer import sanitize_text

DEFAULT_MAX_INLINE_BYTES = 256 * 1024
_PI_SPILL_NAME = re.compile(r"pi-[a-z]+-[0-9a-f]+\.log\Z")


@dataclass(frozen=True)
class InlinedOutput:
    text: str
    shown_bytes: int
    total_bytes: int

    @property
    def complete(self) -> bool:
        return self.shown_bytes >= self.total_bytes


def is_truncated(details: Any, model_text: str) -> bool:
    truncation = details.get("truncation") if isinstance(details, dict) else None
    if isinstance(truncation, dict) and truncation.get("truncated"):
        return True
    return result_spill_path(details, model_text) is not None


def may_inline(path: Path, spill_dir: Path | None) -> bool:
    """True for a spill file this export may read (see the module doc)."""
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    if not resolved.is_file():
        return False
    if spill_dir is not None:
        try:
            if resolved.is_relative_to(spill_dir.resolve()):
                return True
        except OSError:
            pass
    in_temp = resolved.parent == Path(tempfile.gettempdir()).resolve()
    return in_temp and _PI_SPILL_NAME.match(resolved.name) is not None


def read_inline(path: Path, spill_dir: Path | None, max_bytes: int) -> InlinedOutput | str:
    """The first `max_bytes` of the file, cleaned like tool output; or why it is not inlined."""
    if not may_inline(path, spill_dir):
        return "not inlined: not a spill file of this session (or no longer there)"
    try:
        with path.open("rb") as handle:
            data = handle.read(max(0, max_bytes))
        total = path.stat().st_size
    except OSError as error:
        return f"not inlined: {error.strerror or error}"
    return InlinedOutput(sanitize_text(data.decode("utf-8", errors="replace")), len(data), total)
