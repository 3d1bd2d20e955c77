"""`pi-tui export <session> [out.html|out.jsonl]`: a self-contained HTML page or the branch as JSONL.

The format follows the extension; without an output the page is `<session id>.html` in the current
directory. The session file is opened read-only (no migration) and never written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pi_tui.config.settings_files import load_settings
from pi_tui.export.exporter import ExportError, default_output, export_session
from pi_tui.export.full_output import DEFAULT_MAX_INLINE_BYTES
from pi_tui.export.html_export import HtmlOptions
from pi_tui.modes.session_command_support import fail, report_file_problems
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionStore


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-tui export",
        description="Export a session's current branch: one self-contained HTML page, or linear JSONL.",
    )
    parser.add_argument("session", help="session file path or id prefix")
    parser.add_argument(
        "out", nargs="?", help="output file, .html or .jsonl (default: <session id>.html here)"
    )
    parser.add_argument("--json", action="store_true", help="print {path, bytes, format} as JSON")
    parser.add_argument(
        "--full-output",
        action="store_true",
        help="inline each truncated tool output's full spilled text (HTML only)",
    )
    parser.add_argument(
        "--max-inline-bytes",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_INLINE_BYTES,
        help=f"cap per inlined output with --full-output (default {DEFAULT_MAX_INLINE_BYTES})",
    )
    return parser


def run_export_command(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    cwd = os.getcwd()
    resolved = resolve_session_arg(options.session, cwd)
    if isinstance(resolved, SessionArgError):
        sys.stderr.write(f"pi-tui export: {resolved.message}\n")
        return 1
    if not resolved.is_file():
        sys.stderr.write(f"pi-tui export: no session file at {resolved}\n")
        return 1
    store = SessionStore.open(resolved, migrate=False)
    report_file_problems(store)
    out = Path(options.out).expanduser() if options.out else default_output(store, Path(cwd))
    if not out.is_absolute():
        out = Path(cwd) / out
    html_options = HtmlOptions(
        settings=load_settings(store.cwd).settings,
        full_output=options.full_output,
        max_inline_bytes=max(0, options.max_inline_bytes),
    )
    try:
        result = export_session(store, out, html_options)
    except ExportError as error:
        return fail(str(error))
    if options.json:
        json.dump(result.to_json_obj(), sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(f"Exported {result.format.upper()} ({result.bytes:,} bytes) to {result.path}\n")
    return 0
