"""The current branch as a linear session file (pi's `exportToJsonl`).

The entries come from `SessionStore.export_branch`'s own line builder (a fresh header with the
session's id, then the branch re-chained); the text is written only after key redaction, like the
HTML page, since an export is made to leave the machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pi_tui.ai.valid_text import without_lone_surrogates
from pi_tui.config.key_secrets import redact
from pi_tui.session_file.forking import export_lines
from pi_tui.session_file.migrations import replace_file_atomically
from pi_tui.session_file.store import SessionStore


def render_jsonl(store: SessionStore, keys: Iterable[str] = ()) -> str:
    lines = export_lines(store.session_id, store.cwd, store.get_branch())
    return redact("".join(f"{line}\n" for line in lines), list(keys))


def write_jsonl(store: SessionStore, out: Path, keys: Iterable[str] = ()) -> int:
    """Write the branch to `out` (0600, atomically); returns its size in bytes."""
    data = without_lone_surrogates(render_jsonl(store, keys)).encode("utf-8")
    replace_file_atomically(out, data)
    return len(data)
