"""One entry point for both formats: the output's extension chooses HTML or linear JSONL."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi_tui.config.key_secrets import known_keys
from pi_tui.export.html_export import HtmlOptions, write_html
from pi_tui.export.jsonl_export import write_jsonl
from pi_tui.session_file.ids import is_session_id
from pi_tui.session_file.store import SessionStore

ExportFormat = Literal["html", "jsonl"]
FORMATS: dict[str, ExportFormat] = {".html": "html", ".htm": "html", ".jsonl": "jsonl"}


class ExportError(Exception):
    """An export that cannot be made (unknown extension, unwritable target)."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    bytes: int
    format: ExportFormat

    def to_json_obj(self) -> dict[str, Any]:
        return {"path": str(self.path), "bytes": self.bytes, "format": self.format}


def format_for(out: Path) -> ExportFormat:
    found = FORMATS.get(out.suffix.lower())
    if found is None:
        raise ExportError(f"cannot tell the format of {out.name}: use .html or .jsonl")
    return found


def default_output(store: SessionStore, folder: Path) -> Path:
    """`<session id>.html` in `folder` (`session.html` when the header's id is not a session id: it would
    pick the folder)."""
    name = store.session_id if is_session_id(store.session_id) else "session"
    return folder / f"{name}.html"


def export_session(store: SessionStore, out: Path, options: HtmlOptions | None = None) -> ExportResult:
    """Write `store`'s current branch to `out`; never touches the session file itself."""
    kind = format_for(out)
    chosen = options or HtmlOptions()
    if store.path is not None and out.resolve() == store.path.resolve():
        raise ExportError("refusing to overwrite the session file itself")
    try:
        if kind == "html":
            size = write_html(store, out, chosen)
        else:
            size = write_jsonl(store, out, known_keys(extra=chosen.api_keys))
    except OSError as error:
        raise ExportError(f"cannot write {out}: {error.strerror or error}") from error
    return ExportResult(out, size, kind)
